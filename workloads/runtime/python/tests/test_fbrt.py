"""Tests of the Python function runtime against a real server on loopback."""

from __future__ import annotations

import http.client
import os
import sys
import threading

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import fbrt  # noqa: E402


def handler(req: fbrt.Request) -> bytes:
    if req.body == b"fail":
        raise RuntimeError("asked to fail")
    if req.query.get("echo"):
        return req.query["echo"]
    return b"pong"


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("FB_INSTANCE_ID", "py-inst")
    srv = fbrt.make_server(handler, host="127.0.0.1", port=0)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def call(port: int, path: str = "/", body: bytes = b"", conn: http.client.HTTPConnection | None = None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("POST", path, body=body)
    r = c.getresponse()
    data = r.read()
    return r, data


def test_cold_flag_only_on_first_counted_request(server):
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=5)
    health, _ = call(server, fbrt.HEALTH_PATH, conn=conn)
    assert health.status == 200
    assert health.getheader("X-Fb-Cold") is None
    assert health.getheader("X-Fb-Instance"), "the health answer names the instance"
    first, body = call(server, conn=conn)
    assert body == b"pong"
    assert first.getheader("X-Fb-Cold") == "1"
    assert first.getheader("X-Fb-Cold-Kind") == "process"
    # Same keep-alive connection: HTTP/1.1 works.
    second, _ = call(server, conn=conn)
    assert second.getheader("X-Fb-Cold") == "0"
    assert second.getheader("X-Fb-Instance") == "py-inst"
    begin = int(second.getheader("X-Fb-Handler-Begin-Ns"))
    end = int(second.getheader("X-Fb-Handler-End-Ns"))
    assert 0 < begin <= end


def test_handler_error_is_function_error(server):
    resp, body = call(server, body=b"fail")
    assert resp.status == 500
    assert "asked to fail" in resp.getheader("X-Fb-Error")
    assert b"asked to fail" in body


def test_chunked_request_body(monkeypatch):
    """A body sent chunked (as OpenFaaS's of-watchdog forwards one) reaches the handler whole, on a
    connection that then serves the next request; a malformed one is a 400."""
    monkeypatch.setenv("FB_INSTANCE_ID", "py-inst")
    srv = fbrt.make_server(lambda req: b"received %d bytes" % len(req.body), host="127.0.0.1", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        port = srv.server_address[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/", body=iter([b"x" * 4000, b"y" * 6240]), encode_chunked=True)
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, b"received 10240 bytes")
        _, body = call(port, body=b"z" * 10, conn=conn)
        assert body == b"received 10 bytes", "the connection is usable after a chunked body"
        import socket
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            assert s.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        srv.shutdown()
        srv.server_close()


def test_query_and_str_results(server):
    _, body = call(server, "/?echo=hi")
    assert body == b"hi"


def test_announce_writes_port(monkeypatch):
    r, w = os.pipe()
    monkeypatch.setenv("FB_READY_FD", str(w))
    fbrt.announce(4321)
    assert os.read(r, 16) == b"4321\n"
    os.close(r)


def test_bad_return_type_is_reported():
    with pytest.raises(TypeError, match="want Response"):
        fbrt._normalise(42)  # type: ignore[arg-type]


def test_stdio_mode_runs_one_invocation(tmp_path):
    import subprocess

    script = tmp_path / "f.py"
    script.write_text(
        "import sys\nsys.path.insert(0, %r)\nimport fbrt\n"
        "def h(req):\n    if req.body == b'boom':\n        raise ValueError('no')\n    return req.body[::-1] + req.query.get('x', '').encode()\n"
        "fbrt.serve(h)\n" % os.path.join(os.path.dirname(__file__), "..")
    )
    env = dict(os.environ, FB_MODE="stdio", Http_Query="x=!")
    ok = subprocess.run([sys.executable, str(script)], input=b"abc", capture_output=True, env=env, timeout=30)
    assert ok.returncode == 0 and ok.stdout == b"cba!"
    bad = subprocess.run([sys.executable, str(script)], input=b"boom", capture_output=True, env=env, timeout=30)
    assert bad.returncode == 1 and b"ValueError: no" in bad.stderr


def test_workers_share_the_socket(tmp_path):
    import signal
    import subprocess
    import time

    script = tmp_path / "w.py"
    script.write_text(
        "import sys, time\nsys.path.insert(0, %r)\nimport fbrt\n"
        "def h(req):\n    time.sleep(0.2)\n    return b'ok'\n"
        "fbrt.serve(h)\n" % os.path.join(os.path.dirname(__file__), "..")
    )
    r, w = os.pipe()
    env = dict(os.environ, FB_WORKERS="3", FB_PORT="0", FB_READY_FD=str(w))
    p = subprocess.Popen([sys.executable, str(script)], env=env, pass_fds=(w,), start_new_session=True)
    os.close(w)
    try:
        port = int(os.read(r, 16).decode().strip())
        import concurrent.futures

        def one(_):
            resp, _body = call(port)
            return resp.getheader("X-Fb-Worker"), resp.getheader("X-Fb-Cold")

        with concurrent.futures.ThreadPoolExecutor(12) as ex:
            got = list(ex.map(one, range(12)))
        workers = {w for w, _ in got}
        assert len(workers) == 3, got  # 12 slow requests at once spread over the 3 processes
        colds = [w for w, c in got if c == "1"]
        assert sorted(colds) == sorted(workers)  # exactly one cold start per worker process
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        os.close(r)


def test_one_sync_worker_serves_one_request_at_a_time(tmp_path):
    """FB_WORKERS=1 is one sync worker (requests queue), not the threaded default."""
    import concurrent.futures
    import signal
    import subprocess
    import time

    script = tmp_path / "w.py"
    script.write_text(
        "import sys, time\nsys.path.insert(0, %r)\nimport fbrt\n"
        "def h(req):\n    time.sleep(0.2)\n    return b'ok'\n"
        "fbrt.serve(h)\n" % os.path.join(os.path.dirname(__file__), "..")
    )

    def four_at_once(extra):
        r, w = os.pipe()
        env = dict(os.environ, FB_PORT="0", FB_READY_FD=str(w), **extra)
        env.pop("FB_WORKERS", None) if not extra else None
        p = subprocess.Popen([sys.executable, str(script)], env=env, pass_fds=(w,), start_new_session=True)
        os.close(w)
        try:
            port = int(os.read(r, 16).decode().strip())
            start = time.monotonic()
            with concurrent.futures.ThreadPoolExecutor(4) as ex:
                list(ex.map(lambda _: call(port), range(4)))
            return time.monotonic() - start
        finally:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            os.close(r)

    assert four_at_once({"FB_WORKERS": "1"}) >= 0.8  # four 0.2 s requests one after another
    assert four_at_once({}) < 0.6  # threaded: at once


def test_load_secrets_reads_the_directory_into_the_environment(tmp_path, monkeypatch):
    (tmp_path / "FBT_PASSWORD").write_text("pw-1")
    (tmp_path / "FBT_SET").write_text("from-file")
    (tmp_path / "not-a-name").write_text("x")
    # Files the platform did not list (FB_SECRETS): never read (#60: a spec that could point FB_SECRETS_DIR at a
    # directory of its own put a loader into the environment of every child process).
    (tmp_path / "LD_PRELOAD").write_text("/tmp/evil.so")
    (tmp_path / "OPENSSL_CONF").write_text("/tmp/evil.cnf")
    (tmp_path / "FBT_LINK").symlink_to("/etc/hostname")
    monkeypatch.setenv("FB_SECRETS_DIR", str(tmp_path))
    monkeypatch.setenv("FB_SECRETS", "FBT_PASSWORD,FBT_SET,not-a-name,FBT_LINK,FBT_MISSING")
    monkeypatch.setenv("FBT_SET", "given")
    for n in ("FBT_PASSWORD", "LD_PRELOAD", "OPENSSL_CONF", "FBT_LINK", "FBT_MISSING"):
        monkeypatch.delenv(n, raising=False)
    try:
        fbrt.load_secrets()
        assert os.environ["FBT_PASSWORD"] == "pw-1"
        assert os.environ["FBT_SET"] == "given"
        assert "not-a-name" not in os.environ
        for n in ("LD_PRELOAD", "OPENSSL_CONF", "FBT_LINK", "FBT_MISSING"):
            assert n not in os.environ, n
    finally:
        os.environ.pop("FBT_PASSWORD", None)


def test_sigterm_exits_as_killed_by_it(tmp_path):
    """SIGTERM ends the server at once with 143, as a process the signal killed reports itself: OpenFaaS's
    of-watchdog, which forwards SIGTERM to it, then exits too (an exit 0 made it drain for its health-check
    interval: 32.8 s to scale a Python function to zero on the real 2022 gateway, 2.6 s for Go)."""
    import signal
    import subprocess

    script = tmp_path / "t.py"
    script.write_text(
        "import sys\nsys.path.insert(0, %r)\nimport fbrt\n"
        "fbrt.serve(lambda req: b'ok')\n" % os.path.join(os.path.dirname(__file__), "..")
    )
    r, w = os.pipe()
    env = dict(os.environ, FB_PORT="0", FB_READY_FD=str(w))
    env.pop("FB_WORKERS", None)
    p = subprocess.Popen([sys.executable, str(script)], env=env, pass_fds=(w,), start_new_session=True)
    os.close(w)
    try:
        port = int(os.read(r, 16).decode().strip())
        assert call(port)[0].status == 200
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=10) == 143
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        os.close(r)
