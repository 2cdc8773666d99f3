#!/usr/bin/env python3
"""overhead.py SUMMARY.json: what the Route adds over a direct call to the revision, per function
and concurrency: p50 and p99 of the Route minus the direct call's, the mean over repetitions (each
repetition's pair measured back to back), with each cell's data path."""
import json
import sys
from collections import defaultdict


def main(path: str) -> None:
    cells = json.load(open(path))["cells"]
    by = defaultdict(dict)  # (function, c, rep) -> via -> cell
    for c in cells:
        via = next(p["value"] for p in c.get("params", []) if p["name"] == "via")
        by[(c["function"], c["concurrency"], c["repetition"])][via] = c
    rows = defaultdict(list)
    paths = {}
    for (fn, conc, _rep), v in sorted(by.items()):
        if "gateway" not in v or "direct" not in v:
            continue
        g, d = v["gateway"]["latency_ms"], v["direct"]["latency_ms"]
        rows[(fn, conc)].append((g["p50"] - d["p50"], g["p99"] - d["p99"], g["p50"], d["p50"], g["p99"], d["p99"]))
        paths[(fn, conc)] = v["gateway"].get("data_path", "")
    print("| function | c | Route p50 | direct p50 | added p50 | Route p99 | direct p99 | added p99 | data path |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (fn, conc), rs in sorted(rows.items()):
        n = len(rs)
        mean = [sum(r[i] for r in rs) / n for i in range(6)]
        print(f"| {fn} | {conc} | {mean[2]:.3f} | {mean[3]:.3f} | **{mean[0]:+.3f}** | {mean[4]:.3f} | {mean[5]:.3f} | "
              f"**{mean[1]:+.3f}** | {paths[(fn, conc)]} |")


if __name__ == "__main__":
    main(sys.argv[1])
