#!/usr/bin/env python3
"""deploy/knative/conformance_results.py SUITE LOG KNOWN TSV EXIT SECONDS: reads a Go test binary's -test.v
output (LOG) from one of Knative's conformance suites (deploy/knative/conformance.sh), writes each test's
verdict to TSV (test, result, seconds, the reason Knative's test gave for a skip or the first line of a
failure) and prints the suite's summary line (suite, passed, failed, known, skipped, seconds, exit).

KNOWN lists, one per line, SUITE<TAB>TEST<TAB>REASON: a test that cannot pass on this node and why. A failure
listed there counts as known; a failure not listed, a listed test that now passes, or a suite that exited
non-zero with no failing test (a panic, a timeout, a flag refused) makes the exit status 1. A REASON that
starts with "flaky:" is a test seen both to pass and to fail here: either is accepted, and a failure is
still reported as known."""

import re
import sys

VERDICT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)")
MARKER = re.compile(r"^=== (RUN|CONT|PAUSE|NAME)\s+(\S+)")
SAID = re.compile(r"^\s+\S+\.go:\d+: (.*)$")


def parse(lines):
    """Returns [(test, result, seconds, reason)] in the order the verdicts were printed."""
    said = {}
    current = None
    out = []
    for line in lines:
        m = MARKER.match(line)
        if m:
            current = m.group(2)
            continue
        m = VERDICT.match(line)
        if m:
            result, test, secs = m.group(1), m.group(2), float(m.group(3))
            words = said.get(test, [])
            reason = ""
            if result == "SKIP" and words:
                reason = words[-1]
            elif result == "FAIL" and words:
                reason = words[0]
            out.append((test, result, secs, reason))
            continue
        m = SAID.match(line)
        if m and current:
            said.setdefault(current, []).append(m.group(1).strip())
    return out


def known_failures(path, suite):
    known = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or not all(parts):
                raise ValueError(f"{path}:{n}: want SUITE<TAB>TEST<TAB>REASON, got {line!r}")
            if parts[0] == suite:
                known[parts[1]] = parts[2]
    return known


def verdict(suite, results, known, exit_code):
    """Returns (summary fields, problems)."""
    failed = [t for t, r, _, _ in results if r == "FAIL"]
    unknown = [t for t in failed if t not in known]
    passing = [t for t, r, _, _ in results if r == "PASS" and t in known and not known[t].startswith("flaky:")]
    problems = [f"{suite}: {t} failed and is not in the known list" for t in unknown]
    problems += [f"{suite}: {t} is listed as known to fail, but passed: take it off the list" for t in passing]
    if exit_code != 0 and not failed:
        problems.append(f"{suite}: exited {exit_code} with no failing test (a panic, a timeout or a refused flag: see its log)")
    if not results:
        problems.append(f"{suite}: no test ran")
    passed = sum(1 for _, r, _, _ in results if r == "PASS")
    skipped = sum(1 for _, r, _, _ in results if r == "SKIP")
    return (passed, len(unknown), len(failed) - len(unknown), skipped), problems


def main(argv):
    if len(argv) != 7:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    suite, log, known_path, tsv, exit_code, seconds = argv[1:]
    with open(log, encoding="utf-8", errors="replace") as f:
        results = parse(f)
    known = known_failures(known_path, suite)
    with open(tsv, "w", encoding="utf-8") as f:
        f.write("test\tresult\tseconds\treason\n")
        for test, result, secs, reason in results:
            if result == "FAIL" and test in known:
                result, reason = "FAIL (known)", known[test]
            f.write(f"{test}\t{result}\t{secs:.2f}\t{reason}\n")
    (passed, failed, known_n, skipped), problems = verdict(suite, results, known, int(exit_code))
    print(f"{suite}\t{passed}\t{failed}\t{known_n}\t{skipped}\t{seconds}\t{exit_code}")
    for p in problems:
        print("knative-conformance: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
