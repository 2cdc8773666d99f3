'use strict';
// fetch: GETs a page of ?size bytes after ?delay from the upstream (FB_UPSTREAM_URL), answers its size.
const http = require('node:http');
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));

const DELAY = /^[0-9]+(\.[0-9]+)?(ms|s|us)$/;
const TIMEOUT_MS = 120_000;
// A new connection per invocation, like the Python version's urllib.
const agent = new http.Agent({ keepAlive: false });

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, timeout: TIMEOUT_MS }, (res) => {
      let n = 0;
      res.on('data', (c) => { n += c.length; });
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`upstream answered ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`upstream timeout after ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

fbrt.serve(async (req) => {
  const base = process.env.FB_UPSTREAM_URL;
  if (!base) throw new Error('FB_UPSTREAM_URL is not set (run faasbench upstream and pass its URL in the function\'s env)');
  const size = Number(req.query.size ?? '1024');
  if (!Number.isInteger(size) || size < 0) throw new Error(`size=${req.query.size}: want an integer >= 0`);
  let url = `${base.replace(/\/$/, '')}/bytes/${size}`;
  if (req.query.delay) {
    if (!DELAY.test(req.query.delay)) throw new Error(`delay=${req.query.delay}: want a duration such as 250ms or 1s`);
    url += `?delay=${req.query.delay}`;
  }
  const n = await get(url);
  if (n !== size) throw new Error(`upstream sent ${n} bytes, want ${size}`);
  return `fetched ${n} bytes`;
});
