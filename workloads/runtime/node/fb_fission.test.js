'use strict';
// Tests of faasbench's function for Fission's Node.js environment (node --test). The package is laid out as
// the platform adapter lays it out (platform/fission package.go: fb_fission.js at the top, fbrt.js at
// runtime/node/, the workload at workload/node/) and required from there alone; the function is called as
// the environment calls it (fission/environments nodejs/server.js: the default export with {request,
// response}, its {status, body, headers} sent), with a real request of node:http, its body either unread
// on the stream or as Express's body parsers leave it (a Buffer, a string, a parsed object).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const HERE = __dirname;
const WORKLOADS = path.join(HERE, '..', '..');

const ECHO = `'use strict';
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));
fbrt.serve((req) => {
  if (req.body.toString() === 'fail') throw new Error('asked to fail');
  return { status: 201, headers: { 'X-Own': 'yes' },
    body: \`\${req.method} \${req.path} \${req.query.n || '-'} \${req.headers['x-test'] || '-'} \${req.body.toString()}\` };
});
`;

function pkg(main) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-fission-'));
  fs.mkdirSync(path.join(d, 'runtime', 'node'), { recursive: true });
  fs.mkdirSync(path.join(d, 'workload', 'node'), { recursive: true });
  fs.copyFileSync(path.join(HERE, 'fb_fission.js'), path.join(d, 'fb_fission.js'));
  fs.copyFileSync(path.join(HERE, 'fbrt.js'), path.join(d, 'runtime', 'node', 'fbrt.js'));
  const m = path.join(d, 'workload', 'node', 'main.js');
  if (main === undefined) fs.copyFileSync(path.join(WORKLOADS, 'hello', 'node', 'main.js'), m);
  else fs.writeFileSync(m, main);
  return d;
}

// serve runs fn as the environment does, each request's body set by parse (Express's parsers) first.
async function serve(fn, parse = () => {}) {
  const srv = http.createServer(async (req, res) => {
    parse(req);
    const { status, body, headers } = await fn({ request: req, response: res });
    for (const [k, v] of Object.entries(headers || {})) res.setHeader(k, v);
    res.statusCode = status;
    res.end(body);
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return srv;
}

function call(srv, { method = 'GET', p = '/', body = '', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: srv.address().port, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('hello through the package, under the contract', async () => {
  process.env.FB_INSTANCE_ID = 'fission-node-1';
  const fn = require(path.join(pkg(), 'fb_fission.js'));
  const srv = await serve(fn);
  try {
    const health = await call(srv, { p: '/_fb/health' });
    assert.strictEqual(health.status, 200);
    assert.strictEqual(health.body, 'ok');
    assert.strictEqual(health.headers['x-fb-instance'], 'fission-node-1');
    assert.strictEqual(health.headers['x-fb-cold'], undefined);
    const first = await call(srv, { p: '/hello-node' });
    assert.strictEqual(first.body, 'pong');
    assert.strictEqual(first.headers['x-fb-cold'], '1');
    assert.strictEqual(first.headers['x-fb-cold-kind'], 'process');
    assert.ok(BigInt(first.headers['x-fb-handler-begin-ns']) <= BigInt(first.headers['x-fb-handler-end-ns']));
    const second = await call(srv, { method: 'POST', p: '/x', body: 'abc' });
    assert.strictEqual(second.body, 'pong');
    assert.strictEqual(second.headers['x-fb-cold'], '0');
    assert.strictEqual(second.headers['x-fb-cold-kind'], undefined);
  } finally {
    srv.close();
  }
});

test('the request reaches the workload, its body unread or parsed by the environment', async () => {
  const fn = require(path.join(pkg(ECHO), 'fb_fission.js'));
  const cases = [
    ['unread', () => {}, 'body', 'application/x-unknown', 'body'],
    ['raw', (req) => { req.body = Buffer.from('raw'); }, 'raw', 'application/octet-stream', 'raw'],
    ['text', (req) => { req.body = 'text'; }, 'text', 'text/plain', 'text'],
    ['json', (req) => { req.body = { a: 1 }; }, '{"a":1}', 'application/json', '{"a":1}'],
    ['urlencoded', (req) => { req.body = { a: '1', b: 'x y' }; }, 'a=1&b=x+y', 'application/x-www-form-urlencoded', 'a=1&b=x+y'],
  ];
  for (const [name, parse, sent, type, want] of cases) {
    const srv = await serve(fn, (req) => { if (name !== 'unread') { req.resume(); parse(req); } });
    try {
      const r = await call(srv, { method: 'POST', p: '/fn/x?n=7&n=8', body: sent, headers: { 'X-Test': 't', 'Content-Type': type } });
      assert.strictEqual(r.status, 201, name);
      assert.strictEqual(r.body, `POST /fn/x 7 t ${want}`, name);
      assert.strictEqual(r.headers['x-own'], 'yes', name);
    } finally {
      srv.close();
    }
  }
  const srv = await serve(fn);
  try {
    const failed = await call(srv, { method: 'POST', body: 'fail' });
    assert.strictEqual(failed.status, 500);
    assert.strictEqual(failed.headers['x-fb-error'], 'Error: asked to fail');
  } finally {
    srv.close();
  }
});

test('a broken workload fails the specialisation', () => {
  assert.throws(() => require(path.join(pkg("'use strict';\n"), 'fb_fission.js')), /gave fbrt.serve no handler/);
});
