'use strict';
// hello as an OpenWhisk Node.js action (a native nodejs kind's code: settings.code_file) for a raw-HTTP web
// action: answers 4 bytes and does no work, as main.js does behind faasbench's runtime, with the function
// contract's headers (docs/function-contract.md) from inside OpenWhisk's own Node.js runtime: the instance is
// the action container (its host name and the runtime's process), cold only on the first activation it runs.
const os = require('node:os');

const instance = `${os.hostname()}-${process.pid}`;
let served = false;

function main() {
  const begin = process.hrtime.bigint();
  const cold = !served;
  served = true;
  const end = process.hrtime.bigint();
  const headers = { 'Content-Type': 'text/plain', 'X-Fb-Instance': instance, 'X-Fb-Cold': cold ? '1' : '0',
    'X-Fb-Handler-Begin-Ns': begin.toString(), 'X-Fb-Handler-End-Ns': end.toString() };
  if (cold) headers['X-Fb-Cold-Kind'] = 'process';
  return { statusCode: 200, headers, body: 'pong' };
}
exports.main = main;
