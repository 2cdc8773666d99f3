'use strict';
// fetch: GETs a page of ?size bytes after ?delay from the upstream (FB_UPSTREAM_URL), answers its size,
// or with ?reply=body the page itself (seed 003's http-workload: "fetch and respond with" the payload).
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
      const chunks = [];
      res.on('data', (c) => { chunks.push(c); });
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`upstream answered ${res.statusCode}`))));
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
  const reply = req.query.reply ?? 'size';
  if (reply !== 'size' && reply !== 'body') throw new Error(`reply=${reply}: want size or body`);
  let url = `${base.replace(/\/$/, '')}/bytes/${size}`;
  if (req.query.delay) {
    if (!DELAY.test(req.query.delay)) throw new Error(`delay=${req.query.delay}: want a duration such as 250ms or 1s`);
    url += `?delay=${req.query.delay}`;
  }
  const page = await get(url);
  const n = page.length;
  if (n !== size) throw new Error(`upstream sent ${n} bytes, want ${size}`);
  if (reply === 'body') return page;
  return `fetched ${n} bytes`;
});
