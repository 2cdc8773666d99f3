'use strict';
// faasbench's function for Fission's own Node.js environment (fission/environments nodejs/server.js, built here
// by deploy/fission/envs.sh; entrypoint "fb_fission", the module's default export). faasbench's Fission adapter
// (platform/fission package.go, settings.env_image without code_file) packages a Node.js workload for it as a
// zip laid out as the repository is: this module at the top, the contract runtime at runtime/node/fbrt.js and
// the workload's node/ directory at workload/node/ (its main.js finds the runtime as in the repository).
// Fission's fetcher unpacks it; the environment's /v2/specialize imports this module, which loads the
// workload's handler there and then (a broken workload fails the specialisation), and calls the export with
// {request, response} (Express's) for every request on every path, sending the {status, body, headers} it
// resolves to. Replies carry the function contract's headers (fbrt.invoke), the cold flag per process; GET
// /_fb/health answers 200 and never counts.
//
// What the environment hands over: Express's request after its body parsers (server.js: urlencoded, json,
// raw for application/octet-stream, text/*; BODY_PARSER_LIMIT, 1mb by default: a larger body is the
// environment's 413), so the body arrives as a Buffer, a string, a parsed object (encoded again here) or,
// for other types, unread on the stream.
const path = require('node:path');

const fbrt = require(path.join(__dirname, 'runtime', 'node', 'fbrt.js'));

const handler = fbrt.load(path.join(__dirname, 'workload', 'node', 'main.js'));
const inst = fbrt.instanceId();
let served = false;

async function bodyOf(req) {
  const b = req.body;
  if (Buffer.isBuffer(b)) return b;
  if (typeof b === 'string') return Buffer.from(b);
  if (b !== undefined && b !== null && typeof b === 'object') {
    const type = String(req.headers['content-type'] || '');
    return Buffer.from(type.includes('urlencoded') ? new URLSearchParams(b).toString() : JSON.stringify(b));
  }
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

module.exports = async function fbFission(context) {
  const req = context.request;
  const url = new URL(req.originalUrl || req.url, 'http://fission');
  if (req.method === 'GET' && url.pathname === fbrt.HEALTH_PATH) {
    return { status: 200, body: Buffer.from('ok'), headers: { 'X-Fb-Instance': inst } };
  }
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = String(v);
  const query = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const body = await bodyOf(req);
  const cold = !served;
  served = true;
  const { out, extra } = await fbrt.invoke(handler, { method: req.method, path: url.pathname, query, headers, body }, cold, inst);
  return { status: out.status, body: out.body, headers: { ...out.headers, ...extra } };
};
