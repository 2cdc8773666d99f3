#!/usr/bin/env python3
"""deploy/knative/conformance_key.py [--at REV] [--record SUITES EVIDENCE]: the key of the Knative that Knative's own
conformance suites test here, and the record of the runs that passed them (deploy/knative/conformance-passes.tsv).

The key is a sha256 over what decides that Knative and its test: the build (deploy/knative/build.sh, which the
build cache is keyed by too), the install (deploy/knative/up.sh), the suites' runner and its known failures
(deploy/knative/conformance.sh, conformance-known.tsv), net-kourier's pin (its line of deploy/shared/pins.tsv) and
the versions (the VERSION lines of deploy/knative/paths.sh). The node under it is not in the key: make test's Knative
tier (its realnode tests and runs) is on the node at every commit.

make test does not run the suites (they test nothing of faasbench's own code: 196 s of the last warm make test,
docs/evidence/make-test-2026-11-30-19a4323.txt, and more on a fresh machine, which first builds their test binaries
and images); its Python tests instead fail when the
key of the tree has no recorded pass (test_conformance_key.py). deploy/knative/test-real.sh records one when the
suites pass whole (--record). --at REV computes the key of a commit (git show), so a recorded row can be checked
against the commit it names."""
import argparse
import datetime
import hashlib
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PASSES = ROOT / "deploy/knative/conformance-passes.tsv"
WHOLE = ["deploy/knative/build.sh", "deploy/knative/up.sh", "deploy/knative/conformance.sh", "deploy/knative/conformance-known.tsv"]
HEADER = "key\tcommit\tdate\tsuites\tevidence\n"


def _read(path, rev=None):
    if rev is None:
        return (ROOT / path).read_text()
    return subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True, check=True).stdout


def key(rev=None, read=_read):
    h = hashlib.sha256()
    for path in WHOLE:
        h.update(path.encode() + b"\0" + read(path, rev).encode() + b"\0")
    pins = [line for line in read("deploy/shared/pins.tsv", rev).splitlines() if line.startswith("net-kourier\t")]
    versions = [line for line in read("deploy/knative/paths.sh", rev).splitlines() if re.match(r"^[A-Z_]+_VERSION=", line)]
    if len(pins) != 1 or len(versions) < 3:
        raise ValueError(f"cannot key the Knative: {len(pins)} net-kourier pins, {len(versions)} VERSION lines")
    for line in pins + versions:
        h.update(line.encode() + b"\n")
    return h.hexdigest()[:16]


def passes(path=PASSES):
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip() or line == HEADER.strip():
            continue
        k, commit, date, suites, evidence = line.split("\t")
        rows.append({"key": k, "commit": commit, "date": date, "suites": suites, "evidence": evidence})
    return rows


def record(suites, evidence, path=PASSES):
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", *WHOLE,
                            "deploy/shared/pins.tsv", "deploy/knative/paths.sh"], capture_output=True, text=True, check=True).stdout.strip()
    if dirty:
        commit += "-dirty"
    with path.open("a") as f:
        f.write(f"{key()}\t{commit}\t{datetime.date.today().isoformat()}\t{suites}\t{evidence}\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--at", help="the key of this commit")
    ap.add_argument("--record", nargs=2, metavar=("SUITES", "EVIDENCE"), help="append a pass of the tree's key")
    a = ap.parse_args(argv)
    if a.record:
        record(*a.record)
    print(key(a.at))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
