"""faasbench's functions behind OpenFaaS's real watchdogs, built from their pinned source (issue 37):
of-watchdog 0.11.6 in http and serializing mode, the classic watchdog 0.3.9 (fork per request, the
studies' STDIN/STDOUT watchdog). Each runs in a network namespace of its own (`unshare --net`: the
watchdogs listen on every address of port 8080; there, only that namespace's loopback). Root only.

The binaries: $FB_OPENFAAS_BIN (make test passes deploy/openfaas/build.sh's), else that script is run.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
W = ROOT / "workloads"
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace of its own needs root")


@pytest.fixture(scope="module")
def openfaas_bin():
    b = os.environ.get("FB_OPENFAAS_BIN")
    if not b:
        r = subprocess.run(["bash", str(ROOT / "deploy/openfaas/build.sh")], capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, r.stderr
        b = r.stdout.strip().splitlines()[-1]
    return Path(b)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("fns")
    out = {}
    for name, pkg in [("hello-go", "./workloads/hello/go"), ("sleep-go", "./workloads/sleep/go")]:
        subprocess.run(["go", "build", "-o", str(d / name), pkg], cwd=ROOT, check=True, capture_output=True)
        out[name] = str(d / name)
    subprocess.run(["g++", "-O2", "-std=c++17", "-o", str(d / "reverse"), str(W / "reverse/cpp/main.cpp")], check=True, capture_output=True)
    out["reverse"] = str(d / "reverse")
    subprocess.run(["javac", "-d", str(d / "hello-java"), str(W / "runtime/java/Fbrt.java"), str(W / "hello/java/Main.java")],
                   check=True, capture_output=True)
    out["hello-java"] = f"java -cp {d / 'hello-java'} Main"
    return out


def http_mode(fprocess):
    """of-watchdog in http mode in front of the function's own server, as OpenFaaS's templates run it."""
    return {"mode": "http", "fprocess": fprocess, "upstream_url": "http://127.0.0.1:8082", "FB_HOST": "127.0.0.1", "FB_PORT": "8082"}


def run(cases):
    r = subprocess.run(["unshare", "--net", "--", PY, str(Path(__file__).with_name("watchdogs.py"))],
                       input=json.dumps({"cases": cases}), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = {c["name"]: c for c in json.loads(r.stdout)}
    for c in res.values():
        assert c["left"] == [], f"{c['name']}: processes left: {c['left']}"
        assert c["health"] == 200, f"{c['name']}: health {c['health']}\n{c['log']}"
    return res


def test_http_mode_every_language(openfaas_bin, built):
    ofw = str(openfaas_bin / "of-watchdog")
    res = run([
        {"name": "python", "watchdog": ofw, "env": http_mode(f"{PY} -s -u {W}/hello/python/main.py"), "requests": [{"method": "GET", "path": "/"}]},
        {"name": "go", "watchdog": ofw, "env": http_mode(built["hello-go"]), "requests": [{"method": "GET", "path": "/"}]},
        {"name": "node", "watchdog": ofw, "env": http_mode(f"node {W}/hello/node/main.js"), "requests": [{"method": "GET", "path": "/"}]},
        {"name": "java", "watchdog": ofw, "env": http_mode(built["hello-java"]), "requests": [{"method": "GET", "path": "/"}]},
        {"name": "sleep-python", "watchdog": ofw, "env": http_mode(f"{PY} -s -u {W}/sleep/python/main.py"),
         "requests": [{"method": "GET", "path": "/?ms=0"}, {"method": "GET", "path": "/?ms=40"}]},
        # of-watchdog forwards a request's body chunked (executor/http_runner.go: http.NewRequest with the
        # incoming body, no ContentLength): the Python runtime read it as empty until 2026-11-27, found by
        # the payload function on the real node ("received 0 bytes").
        {"name": "payload-python", "watchdog": ofw, "env": http_mode(f"{PY} -s -u {W}/payload/python/main.py"),
         "requests": [{"method": "POST", "path": "/", "body": "x" * 10240}]},
        {"name": "payload-node", "watchdog": ofw, "env": http_mode(f"node {W}/payload/node/main.js"),
         "requests": [{"method": "POST", "path": "/", "body": "x" * 10240}]},
    ])
    for lang in ("python", "go", "node", "java"):
        a = res[lang]["answers"][0]
        assert (a["status"], a["body"]) == (200, "pong"), f"{lang}: {a}\n{res[lang]['log']}"
        # The function's own headers pass through of-watchdog: the instance that answered is known.
        assert a["headers"].get("X-Fb-Instance"), f"{lang}: no X-Fb-Instance in {a['headers']}"
    assert res["sleep-python"]["answers"][1]["body"] == "slept 40 ms"
    for name in ("payload-python", "payload-node"):
        a = res[name]["answers"][0]
        assert (a["status"], a["body"]) == (200, "received 10240 bytes"), f"{name}: {a}\n{res[name]['log']}"


def test_fork_modes_give_the_function_its_request(openfaas_bin, built):
    """The classic watchdog and of-watchdog's serializing mode start the function per request with the
    body on stdin and the request in Http_Method, Http_Path and Http_Query (the real watchdogs' contract:
    classic-watchdog handler.go, of-watchdog pkg/watchdog.go getEnvironment); FB_MODE=stdio is the image's.
    Seen failing before the runtimes read Http_Query (the sleep answered 100 ms, its default, to ?ms=40)."""
    classic, ofw = str(openfaas_bin / "watchdog"), str(openfaas_bin / "of-watchdog")
    sleep_py = f"{PY} -s -u {W}/sleep/python/main.py"
    res = run([
        {"name": "classic-cpp", "watchdog": classic, "env": {"fprocess": built["reverse"]}, "requests": [{"method": "POST", "path": "/", "body": "abcdef"}]},
        {"name": "serializing-cpp", "watchdog": ofw, "env": {"mode": "serializing", "fprocess": built["reverse"]},
         "requests": [{"method": "POST", "path": "/", "body": "abcdef"}]},
        {"name": "classic-python", "watchdog": classic, "env": {"fprocess": sleep_py, "FB_MODE": "stdio"},
         "requests": [{"method": "GET", "path": "/?ms=0"}, {"method": "GET", "path": "/?ms=40"}]},
        {"name": "serializing-python", "watchdog": ofw, "env": {"mode": "serializing", "fprocess": sleep_py, "FB_MODE": "stdio"},
         "requests": [{"method": "POST", "path": "/?ms=0"}, {"method": "POST", "path": "/?ms=40"}]},
        {"name": "classic-go", "watchdog": classic, "env": {"fprocess": built["sleep-go"], "FB_MODE": "stdio"},
         "requests": [{"method": "GET", "path": "/?ms=0"}, {"method": "GET", "path": "/?ms=40"}]},
    ])
    for name in ("classic-cpp", "serializing-cpp"):
        a = res[name]["answers"][0]
        assert (a["status"], a["body"]) == (200, "fedcba"), f"{name}: {a}\n{res[name]['log']}"
    for name in ("classic-python", "serializing-python", "classic-go"):
        a = res[name]["answers"][1]
        assert (a["status"], a["body"]) == (200, "slept 40 ms"), f"{name}: {a}\n{res[name]['log']}"
    # A function run per request by the classic watchdog cannot set a header: the reply does not say
    # which instance answered (the adapter must not expect X-Fb-Instance there).
    assert "X-Fb-Instance" not in res["classic-cpp"]["answers"][0]["headers"]


def test_tools_present():
    for tool in ("unshare", "ip", "pgrep", "g++", "javac", "node", "go"):
        assert shutil.which(tool), f"{tool} is needed by the watchdog tests"


def test_of_watchdog_answers_500_while_its_upstream_does_not_listen(openfaas_bin):
    # executor/http_runner.go: the upstream refused the connection, so of-watchdog answers 500 itself, with
    # X-OpenFaaS-Internal: of-watchdog and no function headers. faasbench's docs and stand-in said 502 (#59).
    res = run([{"name": "not-listening", "watchdog": str(openfaas_bin / "of-watchdog"), "until_ok": False,
                "env": http_mode("sleep 60"), "requests": [{"method": "GET", "path": "/"}]}])
    a = res["not-listening"]["answers"][0]
    headers = {k.lower(): v for k, v in a["headers"].items()}
    assert a["status"] == 500, a
    assert headers.get("x-openfaas-internal") == "of-watchdog", a
    assert "x-fb-instance" not in headers, a
