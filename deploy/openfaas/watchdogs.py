"""Runs faasbench's functions behind OpenFaaS's real watchdogs (built from their pinned source by
deploy/openfaas/build.sh) and prints what each answered, as JSON on stdout.

Meant to run inside a network namespace of its own (test_watchdogs.py starts it with `unshare --net`):
the watchdogs listen on every address of port 8080, which there is only this namespace's loopback.

Input (stdin, JSON): {"cases": [{"name", "watchdog": PATH, "env": {...}, "requests": [{"method", "path",
"body"}]}]}. Each case: the watchdog starts with exactly the environment given (plus PATH and a TMPDIR of
its own: the classic watchdog writes its lock file there), /_/health is polled until 200 (at most 15 s),
then the first request is repeated until it answers 200 (at most 15 s: of-watchdog's health answers once
it has started the function, before the function listens; "until_ok": false sends it once) and the others
are sent once. The watchdog's
session is killed at the end, and the case says whether anything of it was left.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BASE = "http://127.0.0.1:8080"


def call(method, path, body=b"", timeout=10):
    req = urllib.request.Request(BASE + path, data=body if method != "GET" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)
    except OSError as e:
        return 0, str(e).encode(), {}


def until(deadline_s, fn):
    end = time.monotonic() + deadline_s
    tries = 0
    while True:
        tries += 1
        res = fn()
        if res[0] == 200 or time.monotonic() > end:
            return res, tries
        time.sleep(0.02)


def in_session(sid):
    return subprocess.run(["pgrep", "-s", str(sid)], capture_output=True, text=True).stdout.split()


def stop_session(p):
    """Kills the watchdog's whole session (a function it started may be in a process group of its own),
    for at most 5 s; returns what is left of it."""
    end = time.monotonic() + 5
    while True:
        for pid in [p.pid] + [int(x) for x in in_session(p.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            p.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
        left = in_session(p.pid)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.05)


def run_case(case):
    out = {"name": case["name"], "answers": []}
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TMPDIR": tmp, **case["env"]}
        log = open(os.path.join(tmp, "log"), "w+b")
        p = subprocess.Popen([case["watchdog"]], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            (hs, _, _), out["health_tries"] = until(15, lambda: call("GET", "/_/health"))
            out["health"] = hs
            first = True
            for r in case["requests"]:
                body = r.get("body", "").encode()
                if first and case.get("until_ok", True):
                    (st, b, h), out["first_tries"] = until(15, lambda: call(r["method"], r["path"], body))
                    first = False
                else:
                    st, b, h = call(r["method"], r["path"], body)
                out["answers"].append({"status": st, "body": b.decode(errors="replace"), "headers": h})
        finally:
            out["left"] = stop_session(p)
            log.seek(0)
            out["log"] = log.read()[-2000:].decode(errors="replace")
    return out


def main():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    cases = json.load(sys.stdin)["cases"]
    json.dump([run_case(c) for c in cases], sys.stdout)


if __name__ == "__main__":
    main()
