'use strict';
// query: SELECT SLEEP(?delay) on MariaDB (seed 004), through mysql2. A small pool per process,
// opened on first use (a Node.js process serves invocations concurrently).
const path = require('node:path');
const fbrt = require(path.join(__dirname, '..', '..', 'runtime', 'node', 'fbrt.js'));
const mysql = require('mysql2/promise');

const MAX_DELAY = 300;
let pool = null;

function getPool() {
  if (pool) return pool;
  if (process.env.FB_DB_PASSWORD === undefined) throw new Error('FB_DB_PASSWORD is not set (scripts/mariadb.sh start prints it)');
  pool = mysql.createPool({
    host: process.env.FB_DB_HOST || '127.0.0.1',
    port: Number(process.env.FB_DB_PORT || 33306),
    user: process.env.FB_DB_USER || 'faasbench',
    password: process.env.FB_DB_PASSWORD,
    database: process.env.FB_DB_NAME || 'faasbench',
    connectionLimit: 64,
    connectTimeout: 10_000,
  });
  return pool;
}

fbrt.serve(async (req) => {
  const text = req.query.delay ?? '0.01';
  const delay = Number(text);
  if (!(delay >= 0 && delay <= MAX_DELAY)) throw new Error(`delay=${text}: want 0..${MAX_DELAY} seconds`);
  const [rows] = await getPool().query('SELECT SLEEP(?) AS r', [delay]);
  if (Number(rows[0].r) !== 0) throw new Error(`SLEEP was interrupted (returned ${rows[0].r})`);
  return `slept ${text}`;
});
