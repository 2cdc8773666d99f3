"""The Kubeless function of fetch (settings.code_file): the page from the upstream as main.py answers it, the query
read from the request Kubeless's runtime puts in the event, cold once per container, a bad query a 500 with
X-Fb-Error. The upstream is a server on loopback that answers /bytes/N with N bytes."""
import http.server
import importlib.util
import pathlib
import sys
import threading

import pytest

HERE = pathlib.Path(__file__).parent


class HTTPResponse:  # bottle's, as far as the function uses it
    def __init__(self, body, status, headers):
        self.body, self.status, self.headers = body, status, headers


class Request:  # bottle's request, as far as the function reads it
    def __init__(self, query):
        self.environ = {"QUERY_STRING": query}


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        n = int(self.path.split("/bytes/", 1)[1].split("?", 1)[0])
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.end_headers()
        self.wfile.write(b"abcd" * (n // 4) + b"abcd"[: n % 4])

    def log_message(self, *args):
        pass


@pytest.fixture
def upstream():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def function(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "bottle", type("bottle", (), {"HTTPResponse": HTTPResponse}))
    spec = importlib.util.spec_from_file_location("function", HERE / "python" / "actions" / "kubeless.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "MARKER", str(tmp_path / "served"))
    return mod


def call(mod, query):
    return mod.main({"data": b"", "extensions": {"request": Request(query)}}, {})


def test_the_page_or_its_size_cold_once(function, upstream, monkeypatch):
    monkeypatch.setenv("FB_UPSTREAM_URL", upstream + "/")
    first, second = call(function, "size=4&reply=body"), call(function, "size=6")
    assert (first.status, first.body) == (200, b"abcd") and (second.status, second.body) == (200, b"fetched 6 bytes")
    assert first.headers["X-Fb-Cold"] == "1" and first.headers["X-Fb-Cold-Kind"] == "container"
    assert second.headers["X-Fb-Cold"] == "0" and "X-Fb-Cold-Kind" not in second.headers
    assert first.headers["X-Fb-Instance"] == second.headers["X-Fb-Instance"] != ""
    assert int(first.headers["X-Fb-Handler-End-Ns"]) >= int(first.headers["X-Fb-Handler-Begin-Ns"])
    assert call(function, "").body == b"fetched 1024 bytes"  # main.py's default size


@pytest.mark.parametrize("query,says", [("size=-1", "size=-1: want >= 0"), ("size=x", "size='x': want a whole number"),
                                        ("size=4&reply=all", "reply='all'"), ("size=4&delay=soon", "delay='soon'")])
def test_a_bad_query_is_a_500_naming_the_parameter(function, upstream, monkeypatch, query, says):
    monkeypatch.setenv("FB_UPSTREAM_URL", upstream)
    got = call(function, query)
    assert got.status == 500 and says in got.headers["X-Fb-Error"] and says in got.body.decode()


def test_no_upstream_is_a_500_that_says_so(function, monkeypatch):
    monkeypatch.delenv("FB_UPSTREAM_URL", raising=False)
    got = call(function, "size=4")
    assert got.status == 500 and "FB_UPSTREAM_URL is not set" in got.headers["X-Fb-Error"]
