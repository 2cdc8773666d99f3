"""query: SELECT SLEEP(?delay) on MariaDB (seed 004), one connection per process."""

import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402
import pymysql  # noqa: E402

MAX_DELAY = 300.0
_local = threading.local()  # a connection per serving thread: PyMySQL connections are not shared


def connect() -> "pymysql.connections.Connection":
    password = os.environ.get("FB_DB_PASSWORD")
    if password is None:
        raise fbrt.FunctionError("FB_DB_PASSWORD is not set (scripts/mariadb.sh start prints it)")
    return pymysql.connect(
        host=os.environ.get("FB_DB_HOST", "127.0.0.1"),
        port=int(os.environ.get("FB_DB_PORT", "33306")),
        user=os.environ.get("FB_DB_USER", "faasbench"),
        password=password,
        database=os.environ.get("FB_DB_NAME", "faasbench"),
        connect_timeout=10,
        autocommit=True,
    )


def handle(req: fbrt.Request) -> bytes:
    text = req.query.get("delay", "0.01")
    delay = float(text)
    if not 0 <= delay <= MAX_DELAY:
        raise fbrt.FunctionError(f"delay={text}: want 0..{MAX_DELAY} seconds")
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT SLEEP(%s)", (delay,))
            (result,) = cur.fetchone()
    except pymysql.MySQLError:
        _local.conn = None
        conn.close()
        raise
    if int(result) != 0:
        raise fbrt.FunctionError(f"SLEEP was interrupted (returned {result})")
    return f"slept {text}".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
