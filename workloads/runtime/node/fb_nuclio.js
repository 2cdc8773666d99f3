'use strict';
// faasbench's handler for Nuclio's Node.js runtime (copied into the image as /opt/nuclio/handler.js,
// the name Nuclio's runtime requires; handler "handler:handler"). It runs a Node.js workload's
// handler inside the processor's Node.js worker, as a Nuclio function runs: no server of its own,
// no extra hop. FB_MAIN names the workload's main.js, loaded once in initContext through the
// fbrt.js that main.js itself requires (workloads/runtime/node/fbrt.js beside the workloads).
// Replies carry the function contract's headers (fbrt.invoke), the cold flag per worker process.
//
// What Nuclio's wrapper hands over (pkg/processor/runtime/nodejs/js/wrapper.js, from the HTTP
// trigger's event): the body as a Buffer, path without the query, the query arguments as fields,
// the headers as sent. A reply leaves as a context.Response whose body is base64 text with
// bodyEncoding 'base64' (the wrapper's Response would turn a Buffer into JSON).
const path = require('node:path');

function runtimeOf(main) {
  return require(path.join(path.dirname(main), '..', '..', 'runtime', 'node', 'fbrt.js'));
}

exports.initContext = (context) => {
  const main = process.env.FB_MAIN;
  if (!main) throw new Error("FB_MAIN is not set: it names the workload's main.js");
  const fbrt = runtimeOf(main);
  context.userData.fb = { fbrt, handler: fbrt.load(main), served: false, inst: fbrt.instanceId() };
};

exports.handler = async (context, event) => {
  const fb = context.userData.fb;
  const cold = !fb.served;
  fb.served = true;
  const headers = {};
  for (const [k, v] of Object.entries(event.headers || {})) headers[k.toLowerCase()] = String(v);
  const query = {};
  for (const [k, v] of Object.entries(event.fields || {})) query[k] = String(v);
  const body = Buffer.isBuffer(event.body) ? event.body : Buffer.from(event.body || '');
  const { out, extra } = await fb.fbrt.invoke(fb.handler, { method: event.method || 'POST', path: event.path || '/',
    query, headers, body }, cold, fb.inst);
  const reply = { ...out.headers, ...extra };
  let contentType = 'application/octet-stream';
  for (const k of Object.keys(reply)) {
    if (k.toLowerCase() === 'content-type') {
      contentType = reply[k];
      delete reply[k];
    }
  }
  context.callback(new context.Response(out.body.toString('base64'), reply, contentType, out.status, 'base64'));
};
