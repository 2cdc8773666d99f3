'use strict';
// prime: by trial division, the n-th prime (kind=nth, seed 004), or the largest prime <= n found as
// seed 002 did, testing every number from 2 to n in turn (kind=scan: the cost grows with n), or by
// searching down from n (kind=largest: the first prime found ends it).
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));

const MAX_N = 10_000_000;

function isPrime(k) {
  if (k < 2) return false;
  for (let d = 2; d * d <= k; d++) if (k % d === 0) return false;
  return true;
}

fbrt.serve((req) => {
  const n = Number(req.query.n || '100');
  if (!Number.isInteger(n) || n < 1 || n > MAX_N) throw new RangeError(`n=${req.query.n}: want 1..${MAX_N}`);
  const kind = req.query.kind || 'nth';
  if (!['nth', 'largest', 'scan'].includes(kind)) throw new RangeError(`kind=${kind}: want nth, largest or scan`);
  if (kind === 'scan') {
    let largest = 0;
    for (let k = 2; k <= n; k++) if (isPrime(k)) largest = k;
    return String(largest);
  }
  if (kind === 'largest') {
    let k = n;
    while (k >= 2 && !isPrime(k)) k--;
    return String(k >= 2 ? k : 0);
  }
  let count = 0;
  let k = 1;
  while (count < n) {
    k++;
    if (isPrime(k)) count++;
  }
  return String(k);
});
