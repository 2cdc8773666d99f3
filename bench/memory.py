#!/usr/bin/env python3
"""Memory of `faasbench load` over a run (issue 21): RSS sampled every second of an open loop, on a
quiet machine and with a competing CPU hog on the generator's CPU (the machine falls behind).

The server is `faasbench upstream` (Go, /bytes/2) pinned to CPU 0; the generator runs on CPU 1 with
GOMAXPROCS=1, records off. A bounded memory is flat after the first seconds, whatever the run's
length and however far the generator falls behind.

  python3 bench/memory.py --rate 5000 --duration 30 --out bench/MEMORY.md
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FB = str(ROOT / "bin" / "faasbench")


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def upstream() -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen(["taskset", "-c", "0", FB, "upstream", "--listen", "127.0.0.1:0"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 10
    while time.time() < deadline:
        line = p.stdout.readline()
        m = re.search(r"(127\.0\.0\.1:\d+)", line)
        if m:
            return p, "http://" + m.group(1)
    p.kill()
    sys.exit("upstream did not start")


def run(url: str, rate: int, duration: int, hog: bool) -> list[int]:
    hogp = None
    if hog:
        hogp = subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c", "while True: pass"])
    env = dict(os.environ, GOMAXPROCS="1")
    p = subprocess.Popen(["taskset", "-c", "1", FB, "load", url + "/bytes/2", "--rate", str(rate), "-d", f"{duration}s"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    samples = []
    try:
        for _ in range(duration + 5):
            time.sleep(1)
            if p.poll() is not None:
                break
            samples.append(rss_kb(p.pid))
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        if hogp:
            hogp.kill()
    return samples


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=5000)
    ap.add_argument("--duration", type=int, default=30)
    ap.add_argument("--out")
    a = ap.parse_args()
    subprocess.run(["make", "-s", "-C", str(ROOT), "build"], check=True)
    srv, url = upstream()
    rows = []
    try:
        for name, hog in [("quiet", False), ("CPU hog on the generator's CPU", True)]:
            s = run(url, a.rate, a.duration, hog)
            if len(s) < 3:
                sys.exit(f"{name}: too few samples {s}")
            rows.append((name, s[0] / 1024, s[len(s) // 2] / 1024, s[-1] / 1024, max(s) / 1024))
    finally:
        srv.kill()
    out = [f"<!-- produced by: python3 bench/memory.py --rate {a.rate} --duration {a.duration} -->",
           f"# faasbench load: RSS over a {a.duration} s open loop at {a.rate} req/s ({time.strftime('%Y-%m-%d %H:%M')})", "",
           "| machine | at 1 s, MiB | mid-run, MiB | last second, MiB | max, MiB |", "|---|---|---|---|---|"]
    out += [f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} |" for r in rows]
    text = "\n".join(out) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
