'use strict';
// matrix: multiply two seeded n x n matrices (seed 004); ?ram=K holds K more numbers meanwhile.
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));

const MAX_N = 2000;
const MAX_RAM = 100_000_000;
const cell = (i, j, which) => (i * 31 + j * 17 + which * 7) % 10;

fbrt.serve((req) => {
  const n = Number(req.query.n || '50');
  const ram = Number(req.query.ram || '0');
  if (!Number.isInteger(n) || n < 1 || n > MAX_N || !Number.isInteger(ram) || ram < 0 || ram > MAX_RAM) {
    throw new RangeError(`n=${req.query.n} ram=${req.query.ram}: want 1..${MAX_N} and 0..${MAX_RAM}`);
  }
  const held = new Array(ram).fill(0); // the RAM loader
  const a = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => cell(i, j, 0)));
  const b = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => cell(i, j, 1)));
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a[i][k] * b[k][j];
      total += s;
    }
  }
  return `${total} ${held.length}`;
});
