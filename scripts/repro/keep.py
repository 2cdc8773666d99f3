"""Keep runs as evidence: what the verdicts and the docs read of each, and nothing else.

    python3 scripts/repro/keep.py EVIDENCE_DIR RUN_DIR...

Copies manifest.json and summary.md, summary.json compressed (summary.json.gz), and each cell's latency
histograms (hlog/*.hlog: HdrHistogram logs) and per-second buckets (windows/*.json), so that any percentile
can be computed again from the evidence, of each run into EVIDENCE_DIR/<run directory's name>/ (the per-request
Parquet records, the report and the platform's logs stay with the run).
A run that was not made under a registered rule (labels.rule) is refused: its verdict could not be
computed."""
import gzip
import json
import pathlib
import shutil
import sys


def keep(evidence, run):
    run = pathlib.Path(run)
    m = json.loads((run / "manifest.json").read_text())
    if not ((m.get("spec") or {}).get("labels") or {}).get("rule"):
        raise SystemExit(f"keep.py: {run}: not made under a registered rule (no labels.rule in its manifest)")
    out = pathlib.Path(evidence) / run.name
    out.mkdir(parents=True, exist_ok=True)
    for f in ("manifest.json", "summary.md"):
        shutil.copyfile(run / f, out / f)
    src = run / "summary.json"
    with open(src, "rb") as i, gzip.GzipFile(out / "summary.json.gz", "wb", mtime=0) as o:
        shutil.copyfileobj(i, o)
    for sub, pattern in (("hlog", "*.hlog"), ("windows", "*.json")):
        files = sorted(p for p in (run / sub).glob(pattern) if p.is_file() and not p.is_symlink())
        if files:
            (out / sub).mkdir(exist_ok=True)
        for f in files:
            shutil.copyfile(f, out / sub / f.name)
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for r in sys.argv[2:]:
        print(keep(sys.argv[1], r))
