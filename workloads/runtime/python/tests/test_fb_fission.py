"""Tests of faasbench's function for Fission's Python environment (fb_fission.py) inside a Flask app
routed as Fission's environment routes (fission/environments python/server.py: '/' and '/<path:path>'
for every method call the loaded entrypoint with no arguments), from a package laid out as the
platform adapter lays it out (platform/fission package.go): fb_fission.py at the top, fbrt.py at
runtime/python/, the workload's python/ directory at workload/python/."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys

import flask  # scripts/setup.sh installs it (the environment's Flask: fission/environments python/requirements.txt)
import pytest

RUNTIME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
WORKLOADS = os.path.join(RUNTIME, "..", "..")

ECHO = '''
import fbrt
def handle(req):
    if req.body == b"fail":
        raise RuntimeError("asked to fail")
    return fbrt.Response(body=f"{req.method} {req.path} {req.query.get('n', '-')} {req.headers.get('X-Test', '-')} ".encode() + req.body,
                         status=201, headers={"Content-Type": "text/plain", "X-Own": "yes"})
'''


def package(tmp_path, monkeypatch, name: str, main: str | None = None):
    """A package directory as the fetcher unpacks the adapter's zip, imported as the environment does
    (sys.path.append, import_module): the app and the module."""
    d = tmp_path / name
    (d / "workload" / "python").mkdir(parents=True)
    (d / "runtime" / "python").mkdir(parents=True)
    shutil.copy(os.path.join(RUNTIME, "fb_fission.py"), d / "fb_fission.py")
    shutil.copy(os.path.join(RUNTIME, "fbrt.py"), d / "runtime" / "python" / "fbrt.py")
    if main is None:
        shutil.copy(os.path.join(WORKLOADS, "hello", "python", "main.py"), d / "workload" / "python" / "main.py")
    else:
        (d / "workload" / "python" / "main.py").write_text(main)
    # Only the package: no fbrt imported before, no repository directory on the path.
    monkeypatch.delitem(sys.modules, "fbrt", raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if os.path.realpath(p) != os.path.realpath(RUNTIME)])
    spec = importlib.util.spec_from_file_location(f"fb_fission_{name}", d / "fb_fission.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    app = flask.Flask(name)
    call = lambda *args, **kwargs: mod.main()  # noqa: E731 - server.py's userfunc_call drops the path argument
    methods = ["GET", "POST", "PUT", "HEAD", "OPTIONS", "DELETE"]
    app.add_url_rule("/", "userfunc_call", call, methods=methods)
    app.add_url_rule("/<path:path>", "userfunc_call", call, methods=methods)
    return app.test_client(), mod


def test_hello_under_the_contract(tmp_path, monkeypatch):
    monkeypatch.setenv("FB_INSTANCE_ID", "fission-pod-1")
    client, _ = package(tmp_path, monkeypatch, "hello")
    health = client.get("/_fb/health")
    assert health.status_code == 200 and health.data == b"ok"
    assert health.headers["X-Fb-Instance"] == "fission-pod-1"
    assert "X-Fb-Cold" not in health.headers
    first = client.get("/")
    assert first.status_code == 200 and first.data == b"pong"
    assert first.headers["X-Fb-Cold"] == "1" and first.headers["X-Fb-Cold-Kind"] == "process"
    assert first.headers["X-Fb-Instance"] == "fission-pod-1"
    begin, end = int(first.headers["X-Fb-Handler-Begin-Ns"]), int(first.headers["X-Fb-Handler-End-Ns"])
    assert 0 < begin <= end
    second = client.post("/any/path", data=b"x")
    assert second.data == b"pong" and second.headers["X-Fb-Cold"] == "0"
    assert "X-Fb-Cold-Kind" not in second.headers


def test_the_request_reaches_the_workload_and_its_reply_comes_back(tmp_path, monkeypatch):
    client, _ = package(tmp_path, monkeypatch, "echo", ECHO)
    r = client.post("/fn/x?n=7&n=8", data=b"body", headers={"X-Test": "t"})
    assert r.status_code == 201
    assert r.data == b"POST /fn/x 7 t body"
    assert r.headers["Content-Type"] == "text/plain" and r.headers["X-Own"] == "yes"
    failed = client.post("/", data=b"fail")
    assert failed.status_code == 500
    assert failed.headers["X-Fb-Error"] == "RuntimeError: asked to fail"


def test_a_broken_workload_fails_the_specialisation(tmp_path, monkeypatch):
    with pytest.raises(ImportError, match="workload/python/main.py.*no handle"):
        package(tmp_path, monkeypatch, "broken", "def nothing():\n    pass\n")
