#!/usr/bin/env python3
"""Benchmarks faasbench's load engine against other load tools on this machine.

Every tool runs pinned to one CPU (GOMAXPROCS=1 for Go tools) against a server pinned to the
other, in interleaved rounds (each round runs every tool once, in a shuffled order), so drift of
a noisy machine spreads over all tools. Figures: median and [min-max] over the rounds.

  closed     64 connections against nginx: req/s and CPU seconds per 100k requests
  open       constant rate (default 10k req/s, and half of wrk's max): achieved rate, p50/p99,
             generator lag, CPU seconds per 100k requests; beside it bench/c/pacefloor.c, a minimal C
             loop with the same wake-ups (what pacing alone costs here), and faasbench's CPU over it
  stall      1,000 req/s for --stall-seconds against a server that stalls 500 ms every second:
             p50/p90/p99/max, corrected and not (a tool that corrects shows p90 near 400 ms)
  memory     (only with --only memory) peak RSS of a 10k req/s open loop for 60 s and 600 s

Peers are found on PATH or in .cache/peers (bench/install-peers.sh installs them). Missing peers
are reported and skipped. Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / ".cache" / "peers"
NGINX_URL = "http://127.0.0.1:18080/"
STALL_URL = "http://127.0.0.1:18081/"
SERVER_CPU, TOOL_CPU = "0", "1"


def find(name: str) -> str | None:
    for cand in (PEERS / name, PEERS / "oha" / "bin" / name):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return shutil.which(name)


def run_measured(cmd: list[str], timeout: float) -> tuple[str, float]:
    """Runs cmd pinned to the tool CPU; returns stdout and CPU seconds (user+sys) it used."""
    env = dict(os.environ, GOMAXPROCS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(["taskset", "-c", TOOL_CPU, *cmd], capture_output=True, text=True, env=env, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {p.returncode}: {p.stderr[-400:]}")
    return p.stdout, cpu


def ms(v: float) -> float:
    return v * 1000


# Each tool: a command builder and a parser returning {"rps", "requests", "p50", "p90", "p99", "max"} (ms).
def fb_cmd(url: str, secs: int, conns: int, rate: float = 0, correct: bool = True) -> list[str]:
    cmd = [str(ROOT / "bin" / "faasbench"), "load", url, "-d", f"{secs}s", "--output", "json"]
    if rate:
        cmd += ["--rate", str(rate), "--max-in-flight", str(conns)]
    else:
        cmd += ["-c", str(conns)]
    return cmd


def fb_parse(out: str, corrected: bool = True) -> dict:
    d = json.loads(out)
    lat = d["latency_ms"] if corrected else d["service_latency_ms"]
    return {"rps": d["throughput_rps"], "requests": d["requests"]["total"], "p50": lat["p50"], "p90": lat["p90"],
            "p99": lat["p99"], "max": lat["max"], "lag_p99": d["generator_lag_ms"]["p99"], "sent_rps": d["sent_rps"]}


def wrk_cmd(url: str, secs: int, conns: int) -> list[str]:
    return [find("wrk") or "wrk", "-t1", f"-c{conns}", f"-d{secs}s", "--latency", url]


def wrk_parse(out: str) -> dict:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    def unit(v: str) -> float:
        m = re.match(r"([\d.]+)(us|ms|s)", v)
        x = float(m.group(1))
        return {"us": x / 1000, "ms": x, "s": x * 1000}[m.group(2)]
    pct = {k: unit(v) for k, v in re.findall(r"\s(50|90|99)%\s+(\S+)", out)}
    return {"rps": rps, "requests": total, "p50": pct.get("50"), "p90": pct.get("90"), "p99": pct.get("99")}


def oha_cmd(url: str, secs: int, conns: int, rate: float = 0, correct: bool = True) -> list[str]:
    cmd = [find("oha") or "oha", "-c", str(conns), "-z", f"{secs}s", "--no-tui", "--output-format", "json"]
    if rate:
        cmd += ["-q", str(rate)]
        if correct:
            cmd.append("--latency-correction")
    return cmd + [url]


def oha_parse(out: str) -> dict:
    d = json.loads(out)
    s, p = d["summary"], d["latencyPercentiles"]
    total = sum(d["statusCodeDistribution"].values())
    return {"rps": s["requestsPerSec"], "requests": total, "p50": ms(p["p50"]), "p90": ms(p["p90"]),
            "p99": ms(p["p99"]), "max": ms(s["slowest"]), "sent_rps": total / s["total"]}


def hey_cmd(url: str, secs: int, conns: int) -> list[str]:
    return [find("hey") or "hey", "-c", str(conns), "-z", f"{secs}s", url]


def hey_parse(out: str) -> dict:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = sum(int(n) for n in re.findall(r"\[\d+\]\s+(\d+) responses", out))
    return {"rps": rps, "requests": total}


def vegeta_cmd(url: str, secs: int, conns: int) -> list[str]:
    v = find("vegeta") or "vegeta"
    script = (f"echo 'GET {url}' | {v} attack -rate=0 -max-workers={conns} -workers={conns} -duration={secs}s "
              f"| {v} report -type=json")
    return ["bash", "-c", script]


def vegeta_parse(out: str) -> dict:
    d = json.loads(out)
    return {"rps": d["throughput"], "requests": d["requests"]}


def ab_cmd(url: str, secs: int, conns: int) -> list[str]:
    return [find("ab") or "ab", "-k", "-q", "-c", str(conns), "-t", str(secs), "-n", "100000000", url]


def ab_parse(out: str) -> dict:
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))
    return {"rps": rps, "requests": total}


CLOSED = {
    "faasbench": (fb_cmd, fb_parse, "faasbench"),
    "wrk": (wrk_cmd, wrk_parse, "wrk"),
    "oha": (oha_cmd, oha_parse, "oha"),
    "hey": (hey_cmd, hey_parse, "hey"),
    "vegeta": (vegeta_cmd, vegeta_parse, "vegeta"),
    "ab": (ab_cmd, ab_parse, "ab"),
}


def available(tools: dict) -> dict:
    out = {}
    for name, spec in tools.items():
        binary = spec[2]
        if binary == "faasbench" or find(binary):
            out[name] = spec
        else:
            print(f"  (skipping {name}: not installed; bench/install-peers.sh installs it)")
    return out


def agg(vals: list[float]) -> str:
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    med = statistics.median(vals)
    fmt = (lambda x: f"{x:,.0f}") if med >= 100 else (lambda x: f"{x:.3g}")
    return f"{fmt(med)} [{fmt(min(vals))}-{fmt(max(vals))}]"


def table(title: str, cols: list[str], rows: dict[str, dict[str, list]]) -> str:
    lines = [f"\n### {title}\n", "| tool | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for tool, r in rows.items():
        lines.append(f"| {tool} | " + " | ".join(agg(r.get(c, [])) for c in cols) + " |")
    return "\n".join(lines)


def rounds(n: int, tools: dict, one) -> dict[str, dict[str, list]]:
    res: dict[str, dict[str, list]] = {t: {} for t in tools}
    for r in range(n):
        order = list(tools)
        random.shuffle(order)
        for t in order:
            try:
                figs = one(t, tools[t])
            except Exception as e:  # noqa: BLE001 - a failed peer run is reported, not fatal
                print(f"  round {r + 1} {t}: {e}")
                continue
            for k, v in figs.items():
                res[t].setdefault(k, []).append(v)
            time.sleep(0.5)
        print(f"  round {r + 1}/{n} done")
    return res


def bench_closed(args) -> tuple[str, float]:
    tools = available(CLOSED)

    def one(name, spec):
        cmd, parse, _ = spec
        out, cpu = run_measured(cmd(NGINX_URL, args.seconds, 64), args.seconds * 4 + 30)
        f = parse(out)
        f["cpu_per_100k"] = cpu / f["requests"] * 1e5
        return f

    res = rounds(args.runs, tools, one)
    wrk_max = statistics.median(res["wrk"]["rps"]) if res.get("wrk", {}).get("rps") else 0
    if wrk_max and res["faasbench"].get("rps"):
        ratios = [f / w for f, w in zip(res["faasbench"]["rps"], res["wrk"]["rps"])]
        res["faasbench"]["vs_wrk"] = ratios
    return table("Closed loop, 64 connections, nginx (req/s; CPU s per 100k requests; faasbench/wrk per round)",
                 ["rps", "cpu_per_100k", "p50", "p99", "vs_wrk"], res), wrk_max


def fb_coarse_cmd(url: str, secs: int, conns: int, rate: float = 0, correct: bool = True) -> list[str]:
    """faasbench pacing on a 1 ms grid, as wrk2 and oha do (fewer wake-ups, up to 1 ms of lag)."""
    return fb_cmd(url, secs, conns, rate, correct) + ["--pacing-resolution", "1ms"]


def floor_cmd(binary: str, resolution_us: int = 0):
    """bench/c/pacefloor.c: the same wake-ups as faasbench's open loop and nothing else."""
    def cmd(url: str, secs: int, conns: int, rate: float = 0, correct: bool = True) -> list[str]:
        port = url.rsplit(":", 1)[1].strip("/")
        return [binary, "--port", port, "--rate", str(rate), "--seconds", str(secs), "--conns", str(conns),
                "--resolution-us", str(resolution_us)]
    return cmd


def floor_parse(out: str) -> dict:
    d = json.loads(out)
    if d["errors"] or d["unanswered"]:
        raise RuntimeError(f"pacefloor: {d['errors']} errors, {d['unanswered']} unanswered")
    return d


def bench_open(args, rate: float) -> str:
    tools = {"faasbench": (fb_cmd, fb_parse, "faasbench"),
             "faasbench --pacing-resolution 1ms": (fb_coarse_cmd, fb_parse, "faasbench")}
    floors = {}
    if args.floor:
        floors = {"faasbench": "floor (C, a wake-up per request)",
                  "faasbench --pacing-resolution 1ms": "floor (C, 1 ms grid)"}
        tools[floors["faasbench"]] = (floor_cmd(args.floor), floor_parse, "pacefloor")
        tools[floors["faasbench --pacing-resolution 1ms"]] = (floor_cmd(args.floor, 1000), floor_parse, "pacefloor")
    if find("oha"):
        tools["oha --latency-correction"] = (oha_cmd, oha_parse, "oha")

    def one(name, spec):
        cmd, parse, _ = spec
        out, cpu = run_measured(cmd(NGINX_URL, args.seconds, 64, rate=rate), args.seconds * 4 + 30)
        f = parse(out)
        f["achieved_share"] = f["sent_rps"] / rate
        f["cpu_per_100k"] = cpu / f["requests"] * 1e5
        return f

    res = rounds(args.runs, tools, one)
    for fb, fl in floors.items():
        a, b = res[fb].get("cpu_per_100k", []), res[fl].get("cpu_per_100k", [])
        if a and len(a) == len(b):  # paired by round (no failed run in either)
            res[fb]["cpu_vs_floor"] = [x / y for x, y in zip(a, b)]
    return table(f"Open loop at {rate:,.0f} req/s, nginx (sent/offered; ms; lag p99 ms; CPU s per 100k; "
                 "faasbench's CPU / the C floor's with the same pacing, per round)",
                 ["achieved_share", "p50", "p99", "lag_p99", "cpu_per_100k", "cpu_vs_floor"], res)


def bench_stall(args) -> str:
    tools = {
        "faasbench (corrected)": (lambda u, s, c, rate: fb_cmd(u, s, c, rate=rate), lambda o: fb_parse(o, True), "faasbench"),
        "faasbench (uncorrected)": (lambda u, s, c, rate: fb_cmd(u, s, c, rate=rate), lambda o: fb_parse(o, False), "faasbench"),
    }
    if find("oha"):
        tools["oha --latency-correction"] = (lambda u, s, c, rate: oha_cmd(u, s, c, rate=rate, correct=True), oha_parse, "oha")
        tools["oha (no correction)"] = (lambda u, s, c, rate: oha_cmd(u, s, c, rate=rate, correct=False), oha_parse, "oha")

    def one(name, spec):
        cmd, parse, _ = spec
        out, _ = run_measured(cmd(STALL_URL, args.stall_seconds, 64, 1000), args.stall_seconds * 4 + 30)
        return parse(out)

    res = rounds(args.runs, tools, one)
    return table("Server stalling 500 ms every second, 1,000 req/s (ms; the true p90 is ~400 ms)",
                 ["p50", "p90", "p99", "max"], res)


def peak_rss_kib(cmd: list[str], timeout: float) -> tuple[str, int]:
    """Runs cmd pinned to the tool CPU and returns its stdout and its own peak RSS (VmHWM, KiB).

    (getrusage's RUSAGE_CHILDREN max RSS is the largest of every child so far, a go build
    included, so it cannot tell one process's memory.)"""
    env = dict(os.environ, GOMAXPROCS="1")
    out = tempfile.TemporaryFile()
    p = subprocess.Popen(["taskset", "-c", TOOL_CPU, *cmd], stdout=out, stderr=subprocess.DEVNULL, env=env)
    peak, deadline = 0, time.time() + timeout
    while p.poll() is None and time.time() < deadline:
        try:
            status = Path(f"/proc/{p.pid}/status").read_text()
            peak = max(peak, int(re.search(r"VmHWM:\s+(\d+)", status).group(1)))
        except (OSError, AttributeError):
            pass
        time.sleep(0.2)
    p.wait(timeout=30)
    out.seek(0)
    return out.read().decode(), peak


def bench_memory(args) -> str:
    """Peak RSS of faasbench's open loop at 10k req/s for each duration (records off)."""
    rows = {}
    for secs in args.memory_seconds:
        # taskset execs the tool, so the polled pid is faasbench itself.
        out, peak = peak_rss_kib(fb_cmd(NGINX_URL, secs, 64, rate=10000), secs * 2 + 60)
        rows[f"{secs} s"] = {"peak_rss_mib": [peak / 1024], "requests": [json.loads(out)["requests"]["total"]]}
    return table("Memory: faasbench open loop at 10k req/s, records off (peak RSS MiB, VmHWM)", ["peak_rss_mib", "requests"], rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="interleaved rounds per benchmark (default 5)")
    ap.add_argument("--seconds", type=int, default=5, help="seconds per tool run (default 5)")
    ap.add_argument("--stall-seconds", type=int, default=5, help="seconds per stalled-server run (default 5)")
    ap.add_argument("--only", choices=["closed", "open", "stall", "memory"], action="append", help="run only these benchmarks")
    ap.add_argument("--memory-seconds", type=int, nargs="+", default=[60, 600], help="durations of the memory runs (default 60 600)")
    ap.add_argument("--out", default="", help="also write the Markdown tables to this file")
    args = ap.parse_args()
    only = set(args.only or ["closed", "open", "stall"])
    args.memory_seconds = sorted(args.memory_seconds)

    subprocess.run(["make", "-s", "-C", str(ROOT), "build"], check=True)
    tmp = Path(tempfile.mkdtemp(prefix="faasbench-bench-"))
    stall_bin = tmp / "stallserver"
    subprocess.run(["go", "build", "-o", str(stall_bin), "./bench/stallserver"], cwd=ROOT, check=True)
    args.floor = ""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        args.floor = str(tmp / "pacefloor")
        subprocess.run([cc, "-O2", "-o", args.floor, str(ROOT / "bench" / "c" / "pacefloor.c")], check=True)
    else:
        print("no C compiler: the open-loop floor rows are left out")
    shutil.copy(ROOT / "bench" / "nginx.conf", tmp / "nginx.conf")
    nginx = find("nginx") or "/usr/sbin/nginx"
    servers = [
        subprocess.Popen(["taskset", "-c", SERVER_CPU, nginx, "-p", str(tmp), "-c", str(tmp / "nginx.conf")], start_new_session=True),
        subprocess.Popen(["taskset", "-c", SERVER_CPU, str(stall_bin)], env=dict(os.environ, GOMAXPROCS="1"), start_new_session=True),
    ]
    out = [f"# faasbench load engine vs peers ({time.strftime('%Y-%m-%d %H:%M')}, {args.runs} interleaved rounds, "
           f"{args.seconds} s runs; server on CPU {SERVER_CPU}, tool on CPU {TOOL_CPU})"]
    try:
        time.sleep(1)
        wrk_max = 0.0
        if "closed" in only:
            t, wrk_max = bench_closed(args)
            out.append(t)
            print(t)
        if "open" in only:
            for rate in sorted({10000.0, round(wrk_max / 2, -3)} - {0.0}):
                t = bench_open(args, rate)
                out.append(t)
                print(t)
        if "stall" in only:
            t = bench_stall(args)
            out.append(t)
            print(t)
        if "memory" in only:
            t = bench_memory(args)
            out.append(t)
            print(t)
    finally:
        for s in servers:
            os.killpg(s.pid, signal.SIGTERM)
            s.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.out:
        Path(args.out).write_text("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
