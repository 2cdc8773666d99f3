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
