'use strict';
// Tests of the Node.js function runtime against a real server on loopback (node --test).
const test = require('node:test');
const assert = require('node:assert');
const http = require('node:http');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fbrt = require('./fbrt.js');

function request(port, p, body = '', agent) {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: p, method: 'POST', agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ res, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('contract headers, cold flag once, health not counted, errors', async () => {
  process.env.FB_INSTANCE_ID = 'node-inst';
  const server = fbrt.makeServer(async (req) => {
    if (req.body.toString() === 'fail') throw new Error('asked to fail');
    return req.query.echo || 'pong';
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const health = await request(port, fbrt.HEALTH_PATH, '', agent);
    assert.strictEqual(health.res.statusCode, 200);
    assert.strictEqual(health.res.headers['x-fb-cold'], undefined);
    assert.ok(health.res.headers['x-fb-instance'], 'the health answer names the instance (deploys count replicas through a Service with it)');
    const first = await request(port, '/', '', agent);
    assert.strictEqual(first.body, 'pong');
    assert.strictEqual(first.res.headers['x-fb-cold'], '1');
    assert.strictEqual(first.res.headers['x-fb-cold-kind'], 'process');
    const second = await request(port, '/?echo=hi', '', agent);
    assert.strictEqual(second.body, 'hi');
    assert.strictEqual(second.res.headers['x-fb-cold'], '0');
    assert.strictEqual(second.res.headers['x-fb-instance'], 'node-inst');
    const b = BigInt(second.res.headers['x-fb-handler-begin-ns']);
    const e = BigInt(second.res.headers['x-fb-handler-end-ns']);
    assert.ok(b > 0n && e >= b);
    const failed = await request(port, '/', 'fail', agent);
    assert.strictEqual(failed.res.statusCode, 500);
    assert.match(failed.res.headers['x-fb-error'], /asked to fail/);
  } finally {
    agent.destroy();
    server.close();
  }
});

test('stdio mode runs one invocation', () => {
  const main = path.join(__dirname, '..', '..', 'hello', 'node', 'main.js');
  const out = spawnSync(process.execPath, [main], { input: 'x', env: { ...process.env, FB_MODE: 'stdio' } });
  assert.strictEqual(out.status, 0);
  assert.strictEqual(out.stdout.toString(), 'pong');
});

test('normalise rejects other results', () => {
  assert.throws(() => fbrt.normalise(42), /want a Buffer/);
  assert.deepStrictEqual(fbrt.normalise({ status: 201, body: 'x' }).status, 201);
});

test('loadSecrets reads the names FB_SECRETS lists from FB_SECRETS_DIR, leaving set variables alone', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-secrets-'));
  fs.writeFileSync(path.join(dir, 'FBT_PASSWORD'), 'pw-1');
  fs.writeFileSync(path.join(dir, 'FBT_SET'), 'from-file');
  fs.writeFileSync(path.join(dir, 'not-a-name'), 'x');
  // Files the platform did not list: never read (#60).
  fs.writeFileSync(path.join(dir, 'LD_PRELOAD'), '/tmp/evil.so');
  fs.writeFileSync(path.join(dir, 'OPENSSL_CONF'), '/tmp/evil.cnf');
  fs.symlinkSync('/etc/hostname', path.join(dir, 'FBT_LINK'));
  process.env.FB_SECRETS_DIR = dir;
  process.env.FB_SECRETS = 'FBT_PASSWORD,FBT_SET,not-a-name,FBT_LINK,FBT_MISSING';
  process.env.FBT_SET = 'given';
  try {
    fbrt.loadSecrets();
    assert.strictEqual(process.env.FBT_PASSWORD, 'pw-1');
    assert.strictEqual(process.env.FBT_SET, 'given');
    assert.strictEqual(process.env['not-a-name'], undefined);
    for (const n of ['LD_PRELOAD', 'OPENSSL_CONF', 'FBT_LINK', 'FBT_MISSING']) {
      assert.strictEqual(process.env[n], undefined, n);
    }
  } finally {
    delete process.env.FB_SECRETS_DIR;
    delete process.env.FB_SECRETS;
    delete process.env.FBT_PASSWORD;
    delete process.env.FBT_SET;
    fs.rmSync(dir, { recursive: true });
  }
});
