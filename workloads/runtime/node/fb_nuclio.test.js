'use strict';
// Tests of faasbench's Nuclio Node.js handler (node --test). The context and event are shaped as
// Nuclio's wrapper makes them (pkg/processor/runtime/nodejs/js/wrapper.js, read there: the event's
// base64 body decoded to a Buffer, context.userData, context.callback, and a Response constructor
// that turns a non-string body into JSON); replies are read back as the wrapper sends them on
// (a Response instance is copied field by field; body_encoding says how to read the body).
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const fbNuclio = require('./fb_nuclio.js');

const WORKLOADS = path.join(__dirname, '..', '..');

function WrapperResponse(body = null, headers = null, contentType = 'text/plain', statusCode = 200, bodyEncoding = 'text') {
  this.body = body;
  this.headers = headers;
  this.content_type = contentType;
  this.status_code = statusCode;
  this.body_encoding = bodyEncoding;
  if (typeof body !== 'string') {
    this.body = JSON.stringify(body);
    this.content_type = 'application/json';
  }
}

function context() {
  const ctx = { userData: {}, Response: WrapperResponse };
  ctx.next = () => new Promise((resolve) => { ctx.callback = async (r) => resolve(r); });
  return ctx;
}

async function call(ctx, { body = '', pathname = '/', fields = {}, headers = {} } = {}) {
  const waiter = ctx.next();
  const event = { body: Buffer.from(Buffer.from(body).toString('base64'), 'base64'), path: pathname, method: 'POST',
    fields, headers: { 'Content-Type': 'application/octet-stream', ...headers }, content_type: 'application/octet-stream' };
  await fbNuclio.handler(ctx, event);
  const r = await waiter;
  assert.ok(r instanceof WrapperResponse);
  const out = Object.assign({ body: '', headers: {}, status_code: 200, body_encoding: 'text' }, r);
  return { ...out, bytes: out.body_encoding === 'base64' ? Buffer.from(out.body, 'base64') : Buffer.from(out.body) };
}

function init(workload) {
  process.env.FB_MAIN = path.join(WORKLOADS, workload, 'node', 'main.js');
  process.env.FB_INSTANCE_ID = 'nu-pod-2';
  const ctx = context();
  fbNuclio.initContext(ctx);
  return ctx;
}

test('a workload runs in process with the contract, binary bodies intact', async () => {
  const ctx = init('payload');
  const body = Buffer.from([0, 255, 1, 254, 10, 13]);
  const first = await call(ctx, { body });
  const second = await call(ctx, { body: 'abc' });
  assert.strictEqual(first.bytes.toString(), 'received 6 bytes');
  assert.strictEqual(second.bytes.toString(), 'received 3 bytes');
  assert.strictEqual(first.status_code, 200);
  assert.strictEqual(first.headers['X-Fb-Cold'], '1');
  assert.strictEqual(first.headers['X-Fb-Cold-Kind'], 'process');
  assert.strictEqual(second.headers['X-Fb-Cold'], '0');
  assert.strictEqual(first.headers['X-Fb-Instance'], 'nu-pod-2');
  assert.ok(BigInt(first.headers['X-Fb-Handler-End-Ns']) >= BigInt(first.headers['X-Fb-Handler-Begin-Ns']));
});

test('query arguments come from the event fields', async () => {
  const ctx = init('prime');
  assert.strictEqual((await call(ctx, { fields: { n: '10' } })).bytes.toString(), '29');
  const bad = await call(ctx, { fields: { n: '0' } });
  assert.strictEqual(bad.status_code, 500);
  assert.match(bad.headers['X-Fb-Error'], /RangeError: n=0/);
});

test('a missing FB_MAIN or a main.js that serves nothing is named', () => {
  delete process.env.FB_MAIN;
  assert.throws(() => fbNuclio.initContext(context()), /FB_MAIN is not set/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fbn-'));
  const main = path.join(dir, 'w', 'node', 'main.js');
  fs.mkdirSync(path.dirname(main), { recursive: true });
  fs.mkdirSync(path.join(dir, 'runtime', 'node'), { recursive: true });
  fs.copyFileSync(path.join(__dirname, 'fbrt.js'), path.join(dir, 'runtime', 'node', 'fbrt.js'));
  fs.writeFileSync(main, "'use strict';\nmodule.exports = 1;\n");
  process.env.FB_MAIN = main;
  try {
    assert.throws(() => fbNuclio.initContext(context()), /gave fbrt.serve no handler/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
