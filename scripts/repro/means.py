"""means.py RUN_DIR_OR_SUMMARY [--replicas N]: seed 000's Table 3 from a run of 000-reverse-single.

For each function and payload, the arithmetic, geometric and harmonic means of the per-request
throughput (payload / latency, MiB/s), from the successes' latency means that summary.json keeps
for every cell (mean, geo_mean, harm_mean of the latency, exact over the cell's histogram at its
3-digit precision): with a fixed payload P, the arithmetic mean of P/latency is P / harm_mean, the
geometric mean P / geo_mean and the harmonic mean P / mean. Each figure is the median over the
run's repetitions; the ratios Gmean/Mean and Hmean/Mean are the study's test ("all within 90 %")."""
import gzip
import json
import os
import statistics
import sys


def load(path):
    if os.path.isdir(path):
        for name in ("summary.json", "summary.json.gz"):
            if os.path.exists(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    replicas = 1
    if "--replicas" in argv:
        replicas = int(argv[argv.index("--replicas") + 1])
    cells = {}
    for c in load(argv[0])["cells"]:
        params = {p["name"]: p["value"] for p in c.get("params") or []}
        if c.get("replicas") != replicas or "payload_size" not in params:
            continue
        s = c["success_latency_ms"]
        if not s.get("count") or not s.get("harm_mean"):
            continue
        mib = int(params["payload_size"]) / 2**20
        a, g, h = mib / (s["harm_mean"] / 1e3), mib / (s["geo_mean"] / 1e3), mib / (s["mean"] / 1e3)
        cells.setdefault((c["function"], int(params["payload_size"])), []).append((a, g, h, s["count"]))
    print("| function | payload B | n per rep | Mean MiB/s | Gmean | Hmean | Gmean/Mean | Hmean/Mean |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    below = {}
    for (fn, p), v in sorted(cells.items()):
        a, g, h = (statistics.median(x[i] for x in v) for i in range(3))
        gr, hr = statistics.median(x[1] / x[0] for x in v), statistics.median(x[2] / x[0] for x in v)
        below.setdefault(fn, [0, 0])
        below[fn][0] += 1
        below[fn][1] += gr < 0.9 or hr < 0.9
        print(f"| {fn} | {p} | {v[0][3]} | {a:.4g} | {g:.4g} | {h:.4g} | {gr:.3f} | {hr:.3f} |")
    for fn, (n, b) in below.items():
        print(f"\n{fn}: {b} of {n} payloads with a mean below 90 % of the arithmetic mean", end="")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
