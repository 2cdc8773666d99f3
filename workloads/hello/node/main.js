'use strict';
// hello: answers 4 bytes and does no work (seed 002's ping, seed 003's hello-world).
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));

fbrt.serve(() => 'pong');
