'use strict';
// faasbench function runtime for Node.js: serves one handler under the function contract
// (docs/function-contract.md): X-Fb-Instance, X-Fb-Cold (1 only on the first request this process
// serves), X-Fb-Cold-Kind, X-Fb-Handler-Begin-Ns / -End-Ns (CLOCK_MONOTONIC ns: process.hrtime),
// X-Fb-Error when the handler throws (answered 500). GET /_fb/health never counts as the first
// request. Environment: FB_HOST, FB_PORT (0: any), FB_INSTANCE_ID, FB_READY_FD (the bound port is
// written there once listening), FB_MODE=stdio (one invocation from stdin to stdout; Http_Method,
// Http_Path and Http_Query describe it, as OpenFaaS's watchdogs describe a request to a forked process).

const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const HEALTH_PATH = '/_fb/health';

function instanceId() {
  return process.env.FB_INSTANCE_ID || `${os.hostname()}-${process.pid}`;
}

// normalise turns a handler's result into {status, headers, body: Buffer}.
function normalise(result) {
  if (Buffer.isBuffer(result)) return { status: 200, headers: {}, body: result };
  if (typeof result === 'string') return { status: 200, headers: {}, body: Buffer.from(result) };
  if (result && typeof result === 'object' && 'body' in result) {
    const body = Buffer.isBuffer(result.body) ? result.body : Buffer.from(String(result.body));
    return { status: result.status || 200, headers: result.headers || {}, body };
  }
  throw new TypeError(`handler returned ${typeof result}, want a Buffer, a string or {status, headers, body}`);
}

function parseQuery(search) {
  const out = {};
  for (const [k, v] of new URLSearchParams(search)) if (!(k in out)) out[k] = v;
  return out;
}

// invoke runs handler on req under the contract: its normalised reply (500 with the error when it
// threw) and the contract's headers (instance, cold flag and kind, handler begin/end, error).
async function invoke(handler, req, cold, inst) {
  const begin = process.hrtime.bigint();
  let out;
  let error = '';
  try {
    out = normalise(await handler(req));
  } catch (e) {
    error = `${e && e.name ? e.name : 'Error'}: ${e && e.message ? e.message : e}`;
    out = { status: 500, headers: {}, body: Buffer.from(error) };
  }
  const end = process.hrtime.bigint();
  const extra = { 'X-Fb-Instance': inst, 'X-Fb-Cold': cold ? '1' : '0',
    'X-Fb-Handler-Begin-Ns': begin.toString(), 'X-Fb-Handler-End-Ns': end.toString() };
  if (cold) extra['X-Fb-Cold-Kind'] = 'process';
  if (error) extra['X-Fb-Error'] = error.replace(/\n/g, ' ').slice(0, 200);
  return { out, extra };
}

// load requires a workload's main.js without serving and returns the handler it gives serve: for
// hosts that call handlers themselves (Nuclio's Node.js runtime, fb_nuclio.js).
function load(mainPath) {
  let handler;
  const serve = module.exports.serve;
  module.exports.serve = (h) => { handler = h; };
  try {
    require(mainPath);
  } finally {
    module.exports.serve = serve;
  }
  if (typeof handler !== 'function') throw new Error(`FB_MAIN=${mainPath}: it gave fbrt.serve no handler`);
  return handler;
}

// makeServer returns an http.Server for handler (not yet listening).
function makeServer(handler) {
  const inst = instanceId();
  let served = false;
  return http.createServer({ keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === HEALTH_PATH) {
        res.writeHead(200, { 'Content-Length': 2, 'X-Fb-Instance': inst });
        res.end('ok');
        return;
      }
      const cold = !served;
      served = true;
      const { out, extra } = await invoke(handler, { method: req.method, path: url.pathname, query: parseQuery(url.search),
        headers: req.headers, body: Buffer.concat(chunks) }, cold, inst);
      const headers = { ...out.headers, ...extra, 'Content-Length': out.body.length };
      res.writeHead(out.status, headers);
      res.end(out.body);
    });
  });
}

function announce(port) {
  const fd = process.env.FB_READY_FD;
  if (fd) {
    fs.writeSync(Number(fd), `${port}\n`);
    fs.closeSync(Number(fd));
  } else {
    process.stderr.write(`listening on port ${port}\n`);
  }
}

async function serveStdio(handler) {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  try {
    const out = normalise(await handler({ method: process.env.Http_Method || 'POST', path: process.env.Http_Path || '/',
      query: parseQuery(process.env.Http_Query || ''), headers: {}, body: Buffer.concat(chunks) }));
    process.stdout.write(out.body);
    return 0;
  } catch (e) {
    process.stderr.write(`${e && e.name ? e.name : 'Error'}: ${e && e.message ? e.message : e}\n`);
    return 1;
  }
}

// loadSecrets reads the secrets a platform mounted as files (FB_SECRETS_DIR, a file per variable, as
// OpenFaaS mounts them under /var/openfaas/secrets) into the environment: only the names FB_SECRETS lists
// (comma-separated, what the platform put there), so a file of another name (LD_PRELOAD, OPENSSL_CONF,
// http_proxy) never reaches the environment child processes inherit; a variable already set is left alone.
function loadSecrets() {
  const dir = process.env.FB_SECRETS_DIR;
  if (!dir || !fs.existsSync(dir)) return;
  for (const name of (process.env.FB_SECRETS || '').split(',')) {
    const file = path.join(dir, name);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && process.env[name] === undefined && fs.existsSync(file) &&
        fs.lstatSync(file).isFile()) {
      process.env[name] = fs.readFileSync(file, 'utf8');
    }
  }
}

// serve serves handler until the process is killed (or once, in stdio mode).
function serve(handler) {
  loadSecrets();
  if (process.env.FB_MODE === 'stdio') {
    serveStdio(handler).then((code) => { process.exitCode = code; });
    return;
  }
  // As a container's PID 1, Node.js has no default action for SIGTERM: without a handler every pod
  // deletion waits out the grace period (30 s) before SIGKILL. It exits as a process SIGTERM killed
  // reports itself (143), not 0: behind OpenFaaS's of-watchdog an exit 0 makes the watchdog drain
  // for its health-check interval (seen with the Python runtime on the real 2022 gateway).
  process.on('SIGTERM', () => process.exit(143));
  const server = makeServer(handler);
  server.keepAliveTimeout = 90_000;
  server.listen(Number(process.env.FB_PORT || 8080), process.env.FB_HOST || '127.0.0.1', () => {
    announce(server.address().port);
  });
}

module.exports = { serve, makeServer, normalise, invoke, load, loadSecrets, instanceId, HEALTH_PATH };
