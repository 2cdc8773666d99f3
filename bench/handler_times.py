#!/usr/bin/env python3
"""Median handler time per workload × language for a fixed input, on the local platform (issue 6).

Deploys every implementation of the catalogue on `faasbench platform local up --cpus 0`, sends N
sequential requests (after one discarded first request: the cold one) and reads each reply's
X-Fb-Handler-Begin-Ns / -End-Ns: the function's own time, without gateway and network. The
dependencies are real and started here: MariaDB (scripts/mariadb.sh, a temporary data directory),
`faasbench upstream` (fetch; files for wordcount), a corpus and an 800×800 16-bit PNG from
`faasbench data`. Prints a Markdown table.

  python3 bench/handler_times.py [-n 20] [--only image,prime]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FB = str(ROOT / "bin" / "faasbench")

# workload -> (method, query, body source); body: None, "payload:N", "image", "reverse:N"
INPUTS = {
    "hello": ("GET", "", None),
    "sleep": ("GET", "?ms=10", None),
    "reverse": ("POST", "", "payload:1048576"),
    "image": ("POST", "", "image"),
    "prime": ("GET", "?n=1000", None),
    "matrix": ("GET", "?n=100", None),
    "fetch": ("GET", "?size=102400", None),
    "query": ("GET", "?delay=0.01", None),
    "payload": ("POST", "", "payload:1048576"),
    "wordcount": ("GET", "?file=doc-0000.txt", None),
    "mapreduce": ("GET", "?docs=20&variant=mappers", None),
}


def run(*cmd: str, **kw) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def catalogue() -> dict[str, list[str]]:
    out = {}
    for d in sorted((ROOT / "workloads").iterdir()):
        y = d / "workload.yaml"
        if y.is_file():
            for line in y.read_text().splitlines():
                if line.startswith("languages:"):
                    out[d.name] = [x.strip() for x in line.split("[", 1)[1].rstrip("]").split(",")]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=20, help="measured requests per function (default 20)")
    ap.add_argument("--only", default="", help="comma-separated workloads")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    tmp = Path(tempfile.mkdtemp(prefix="fb-handler-"))
    state = tmp / "state"
    procs: list[subprocess.Popen] = []
    env = dict(os.environ, FAASBENCH_WORKLOADS=str(ROOT / "workloads"))
    db = {}
    try:
        run(FB, "data", "corpus", "--out", str(tmp / "corpus"), "--docs", "20")
        run(FB, "data", "images", "--out", str(tmp / "img"), "--count", "1")
        up = subprocess.Popen([FB, "upstream", "--dir", str(tmp / "corpus")], stdout=subprocess.PIPE, text=True)
        procs.append(up)
        upstream = up.stdout.readline().split()[-1]
        for line in run(str(ROOT / "scripts" / "mariadb.sh"), "start", str(tmp / "db"), "33398").splitlines():
            k, _, v = line.partition("=")
            db[k] = v
        st = json.loads(run(FB, "platform", "local", "up", "--cpus", "0", "--state", str(state), "--output", "json", env=env))
        gw = st["gateway"]
        rows = []
        for wl, langs in catalogue().items():
            if only and wl not in only:
                continue
            method, query, body = INPUTS[wl]
            data = None
            if body == "image":
                data = (tmp / "img" / "img-0000.png").read_bytes()
            elif body and body.startswith("payload:"):
                data = os.urandom(int(body.split(":")[1]))
            for lang in langs:
                name = f"{wl}-{lang}"
                extra = []
                if wl == "fetch":
                    extra = ["--env", f"FB_UPSTREAM_URL={upstream}"]
                elif wl == "query":
                    extra = [x for k, v in db.items() for x in ("--env", f"{k}={v}")]
                elif wl in ("wordcount", "mapreduce"):
                    extra = ["--env", f"FB_DATA_DIR={tmp / 'corpus'}"]
                if wl == "mapreduce" and "wordcount" not in catalogue():
                    continue
                if wl == "mapreduce":
                    subprocess.run([FB, "platform", "local", "deploy", "wordcount", "--lang", "python", "--name", "wordcount",
                                    "--state", str(state), *extra], capture_output=True, env=env)
                run(FB, "platform", "local", "deploy", wl, "--lang", lang, "--name", name, "--state", str(state), *extra, env=env)
                url = f"{gw}/function/{name}{query}"
                times = []
                n = args.n if wl != "image" else max(5, args.n // 4)
                for i in range(n + 1):
                    req = urllib.request.Request(url, data=data, method=method)
                    with urllib.request.urlopen(req, timeout=120) as resp:
                        resp.read()
                        b, e = int(resp.headers["X-Fb-Handler-Begin-Ns"]), int(resp.headers["X-Fb-Handler-End-Ns"])
                    if i > 0:
                        times.append((e - b) / 1e6)
                rows.append((wl, lang, query or "-", body or "-", statistics.median(times), min(times), max(times), len(times),
                             "fork" if lang == "cpp" else "http"))
                print(f"{wl:10} {lang:7} {statistics.median(times):10.3f} ms", file=sys.stderr)
        print("| workload | language | mode | input | median handler ms | min | max | n |")
        print("|---|---|---|---|---:|---:|---:|---:|")
        for wl, lang, q, body, med, lo, hi, n, mode in rows:
            print(f"| {wl} | {lang} | {mode} | `{q}` {'' if body == '-' else body} | {med:.3f} | {lo:.3f} | {hi:.3f} | {n} |")
    finally:
        subprocess.run([FB, "platform", "local", "down", "--state", str(state)], capture_output=True)
        subprocess.run([str(ROOT / "scripts" / "mariadb.sh"), "stop", str(tmp / "db")], capture_output=True)
        for p in procs:
            p.terminate()
            p.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
