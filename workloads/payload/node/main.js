'use strict';
// payload: receives a body, does nothing with it, says how many bytes came (seed 004).
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));

fbrt.serve((req) => `received ${req.body.length} bytes`);
