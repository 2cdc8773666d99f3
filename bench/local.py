#!/usr/bin/env python3
"""Figures of the local platform (issue 5), measured with faasbench itself.

The platform runs pinned to CPU 0 (`platform local up --cpus 0`), the load generator to CPU 1
(GOMAXPROCS=1). Interleaved rounds; median [min-max].

  overhead   hello (Go), closed loop with 1 connection: p50 through the gateway vs a direct call
             to the instance; the difference is the gateway's overhead
  cold       time from a request to a function at zero to its reply, per runtime (Go, Python,
             Node, Java), with the gateway's own measure of the wait for the instance
  modes      hello (Python), closed loop with 8 connections: http (persistent) vs fork mode
  workers    sleep 50 ms (Python), 16 connections: throughput vs worker processes per instance
  spread     hello (Go), 8 kept-alive connections, scale 1 -> 3 during the load: share of the
             requests served by each instance, pinned vs round-robin routing
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FB = str(ROOT / "bin" / "faasbench")


class Local:
    def __init__(self, binary: str = "") -> None:
        self.binary = binary or FB
        self.state = tempfile.mkdtemp(prefix="fb-local-")
        st = json.loads(self.fb("platform", "local", "up", "--cpus", "0", "--output", "json"))
        self.gw = st["gateway"]

    def fb(self, *args: str, cpu: str | None = None) -> str:
        cmd = [getattr(self, "binary", FB), *args]
        if args[:2] == ("platform", "local"):
            cmd += ["--state", self.state] if hasattr(self, "state") else []
        if cpu is not None:
            cmd = ["taskset", "-c", cpu, *cmd]
        env = dict(os.environ, GOMAXPROCS="1", FAASBENCH_WORKLOADS=str(ROOT / "workloads"))
        return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout

    def deploy(self, workload: str, lang: str, name: str, *extra: str) -> str:
        self.fb("platform", "local", "deploy", workload, "--lang", lang, "--name", name, *extra)
        return f"{self.gw}/function/{name}"

    def status(self) -> list:
        return json.loads(self.fb("platform", "local", "status", "--output", "json"))

    def load(self, url: str, *args: str) -> dict:
        return json.loads(self.fb("load", url, "--output", "json", *args, cpu="1"))

    def down(self) -> None:
        self.fb("platform", "local", "down")


def agg(xs: list[float], fmt: str = "{:.1f}") -> str:
    return f"{fmt.format(statistics.median(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def overhead(p: Local, rounds: int) -> str:
    url = p.deploy("hello", "go", "ov")
    direct = [in_["addr"] for f in p.status() if f["name"] == "ov" for in_ in f["instances"]][0]
    gw, dr = [], []
    for _ in range(rounds):
        gw.append(p.load(url, "-c", "1", "-n", "20000", "-d", "0")["success_latency_ms"]["p50"] * 1000)
        dr.append(p.load(f"http://{direct}/", "-c", "1", "-n", "20000", "-d", "0")["success_latency_ms"]["p50"] * 1000)
    diff = [g - d for g, d in zip(gw, dr)]
    return ("| path | p50 µs |\n|---|---|\n"
            f"| through the gateway | {agg(gw)} |\n| direct to the instance | {agg(dr)} |\n"
            f"| gateway overhead (per round) | {agg(diff)} |\n")


def cold(p: Local, rounds: int) -> str:
    rows = []
    for lang in ("go", "python", "node", "java"):
        name = f"cold-{lang}"
        url = p.deploy("hello", lang, name)
        client, waited = [], []
        for _ in range(rounds):
            p.fb("platform", "local", "scale", name, "0")
            t0 = time.perf_counter()
            with urllib.request.urlopen(url, timeout=60) as r:
                r.read()
                assert r.headers["X-Fb-Cold"] == "1", "not cold"
                waited.append(int(r.headers["X-Fb-Gw-Cold-Wait-Ns"]) / 1e6)
            client.append((time.perf_counter() - t0) * 1000)
        rows.append(f"| {lang} | {agg(client)} | {agg(waited)} |")
    return ("| runtime | request at zero → reply, ms | of which waiting for the instance, ms |\n|---|---|---|\n"
            + "\n".join(rows) + "\n")


def modes(p: Local, rounds: int) -> str:
    urls = {"http": p.deploy("hello", "python", "mode-http"), "fork": p.deploy("hello", "python", "mode-fork", "--mode", "fork")}
    res: dict[str, list[float]] = {k: [] for k in urls}
    for _ in range(rounds):
        for k, u in urls.items():
            res[k].append(p.load(u, "-c", "8", "-d", "3s")["throughput_rps"])
    return "| mode | req/s |\n|---|---|\n" + "".join(f"| {k} | {agg(v)} |\n" for k, v in res.items())


def workers(p: Local, rounds: int) -> str:
    rows = []
    for n in (1, 2, 4, 8):
        u = p.deploy("sleep", "python", f"w{n}", "--workers", str(n)) if n > 1 else p.deploy("sleep", "python", "w1-threaded")
        xs = [p.load(u + "?ms=50", "-c", "16", "-d", "3s")["throughput_rps"] for _ in range(rounds)]
        label = f"{n} worker processes (one request each at a time)" if n > 1 else "1 process, a thread per connection"
        rows.append(f"| {label} | {agg(xs)} |")
    return "| instance | req/s, 16 connections, 50 ms sleep |\n|---|---|\n" + "\n".join(rows) + "\n"


def spread(p: Local, rounds: int) -> str:
    rows = []
    for routing in ("pinned", "round-robin", "least-outstanding"):
        shares = []
        for r in range(rounds):
            name = f"sp-{routing}-{r}"
            u = p.deploy("sleep", "go", name, "--set", f"routing={routing}")
            p.load(u + "?ms=5", "-c", "8", "-d", "1s")  # open 8 kept-alive connections to the first instance
            proc = subprocess.Popen(["taskset", "-c", "1", FB, "load", u + "?ms=5", "-c", "8", "-d", "3s", "--output", "json"],
                                    stdout=subprocess.PIPE, text=True, env=dict(os.environ, GOMAXPROCS="1"))
            time.sleep(0.5)
            p.fb("platform", "local", "scale", name, "3")
            out = json.loads(proc.communicate()[0])
            counts = sorted(out["instances"].values(), reverse=True)
            shares.append(100 * counts[0] / sum(counts))
            p.fb("platform", "local", "remove", name)
        rows.append(f"| {routing} | {agg(shares)} |")
    return ("| routing | share of requests on the busiest of 3 instances, % (scale 1→3 after 0.5 s of a 3 s load) |\n"
            "|---|---|\n" + "\n".join(rows) + "\n")


def isolation(binaries: list[tuple[str, str]], rounds: int) -> str:
    """The cost of isolating functions (issue 43): the gateway's overhead (hello in Go, one
    connection, p50 through the gateway less direct) and a cold start per runtime, measured for each
    binary in interleaved rounds (each round: every binary's platform up, measured, down)."""
    langs = ("go", "python", "node", "java")
    res: dict[str, dict[str, list[float]]] = {b: {k: [] for k in ("overhead", *langs)} for b, _ in binaries}
    for _ in range(rounds):
        for label, path in binaries:
            p = Local(path)
            try:
                url = p.deploy("hello", "go", "ov")
                direct = [in_["addr"] for f in p.status() if f["name"] == "ov" for in_ in f["instances"]][0]
                gw = p.load(url, "-c", "1", "-n", "20000", "-d", "0")["success_latency_ms"]["p50"] * 1000
                dr = p.load(f"http://{direct}/", "-c", "1", "-n", "20000", "-d", "0")["success_latency_ms"]["p50"] * 1000
                res[label]["overhead"].append(gw - dr)
                for lang in langs:
                    name = f"cold-{lang}"
                    u = p.deploy("hello", lang, name)
                    p.fb("platform", "local", "scale", name, "0")
                    t0 = time.perf_counter()
                    with urllib.request.urlopen(u, timeout=60) as r:
                        r.read()
                        assert r.headers["X-Fb-Cold"] == "1", "not cold"
                    res[label][lang].append((time.perf_counter() - t0) * 1000)
            finally:
                p.down()
    head = "| figure | " + " | ".join(label for label, _ in binaries) + " |\n|---|" + "---|" * len(binaries) + "\n"
    rows = [("gateway overhead, p50 µs", "overhead")] + [(f"cold start {lang}, ms (request at zero → reply)", lang) for lang in langs]
    return head + "".join(f"| {title} | " + " | ".join(agg(res[label][k]) for label, _ in binaries) + " |\n" for title, k in rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="")
    ap.add_argument("--only", choices=["overhead", "cold", "modes", "workers", "spread"], action="append",
                    help="run only these (default: all)")
    ap.add_argument("--binary", action="append", default=[], metavar="LABEL=PATH",
                    help="compare binaries on isolation's cost (gateway overhead, cold start per runtime) in interleaved rounds; nothing else runs")
    args = ap.parse_args()
    subprocess.run(["make", "-s", "-C", str(ROOT), "build"], check=True)
    if args.binary:
        bins = [tuple(b.split("=", 1)) for b in args.binary]
        t = (f"# The cost of isolation ({time.strftime('%Y-%m-%d %H:%M')}, {args.rounds} interleaved rounds; platform on CPU 0, generator on CPU 1)\n\n"
             + isolation(bins, args.rounds))
        print(t)
        if args.out:
            Path(args.out).write_text(f"<!-- produced by: python3 bench/local.py --rounds {args.rounds} "
                                      + " ".join(f"--binary {b}" for b in args.binary) + f" --out {args.out} -->\n" + t)
        return 0
    p = Local()
    out = [f"# Local platform figures ({time.strftime('%Y-%m-%d %H:%M')}, {args.rounds} rounds; platform on CPU 0, generator on CPU 1)"]
    try:
        for title, fn in [("Gateway overhead", overhead), ("Cold start per runtime", cold), ("http vs fork mode", modes),
                          ("Workers per instance", workers), ("Traffic after a scale-up", spread)]:
            if args.only and fn.__name__ not in args.only:
                continue
            t = f"\n## {title}\n\n" + fn(p, args.rounds)
            print(t, flush=True)
            out.append(t)
    finally:
        p.down()
    if args.out:
        Path(args.out).write_text("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
