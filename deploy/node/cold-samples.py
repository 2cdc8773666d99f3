#!/usr/bin/env python3
"""deploy/node/cold-samples.py RUNDIR...: the verified cold samples of coldstart runs pooled, by kind: count, min, p50,
p90 (nearest rank over the pooled samples), max, in ms. For cold starts that a run can force only once (a
Fission poolmgr function's first request after its deploy: make test-real-fission), each run gives one
sample; this puts them together. Unverified samples are counted and left out."""
import json
import math
import pathlib
import sys


def pooled(dirs):
    kinds, unverified = {}, 0
    for d in dirs:
        s = json.loads((pathlib.Path(d) / "summary.json").read_text())
        for cell in s.get("cells", []):
            for smp in (cell.get("cold") or {}).get("samples", []):
                if smp.get("verified"):
                    kinds.setdefault(smp.get("kind") or "?", []).append(smp["latency_ms"])
                else:
                    unverified += 1
    return kinds, unverified


def rank(xs, q):
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)]


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kinds, unverified = pooled(argv)
    if not kinds:
        print(f"cold-samples: no verified cold sample in {len(argv)} run(s) ({unverified} unverified)", file=sys.stderr)
        return 1
    print("| kind | verified | min ms | p50 ms | p90 ms | max ms |")
    print("|---|---|---|---|---|---|")
    for k, xs in sorted(kinds.items()):
        print(f"| {k} | {len(xs)} | {min(xs):.1f} | {rank(xs, 0.5):.1f} | {rank(xs, 0.9):.1f} | {max(xs):.1f} |")
    print(f"\n{len(argv)} run(s); {unverified} unverified sample(s) left out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
