"""make mutate-py: an operator sweep over Python files, the Python side of `make mutate-sweep` (gremlins mutates Go
only). Every comparison, arithmetic operator and `and`/`or` on a line the file's tests run is mutated, one at a
time, in a copy of the committed tree, and the tests run there: a mutant they fail on (or time out on) is killed,
one they pass on lives. Prints each mutant's fate, the efficacy (killed over killed and lived) and every survivor;
exits 1 under --min.

    python3 scripts/mutate/pysweep.py [--min 0.9] [--workers 2] FILE:TESTS[,TESTS...] ...

The mutants, as gremlins names them: CONDITIONALS_BOUNDARY (< and <=, > and >=), CONDITIONALS_NEGATION (== and !=,
< and >=, > and <=), ARITHMETIC_BASE (binary + and -, * and /), INVERT_LOGICAL (and, or). A line no test runs is
NOT COVERED (found with sys.settrace while the tests run once) and not tried; a mutant that does not compile is
not counted. The working tree is never touched: the copy is `git archive HEAD` (uncommitted changes are not in
it), one per worker, removed at the end."""
import argparse
import concurrent.futures
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from mutate import copy_head  # noqa: E402  (make mutate's: the same committed tree)

ROOT = pathlib.Path(__file__).resolve().parents[2]

FLIPS = {
    "<": [("CONDITIONALS_BOUNDARY", "<="), ("CONDITIONALS_NEGATION", ">=")],
    "<=": [("CONDITIONALS_BOUNDARY", "<"), ("CONDITIONALS_NEGATION", ">")],
    ">": [("CONDITIONALS_BOUNDARY", ">="), ("CONDITIONALS_NEGATION", "<=")],
    ">=": [("CONDITIONALS_BOUNDARY", ">"), ("CONDITIONALS_NEGATION", "<")],
    "==": [("CONDITIONALS_NEGATION", "!=")],
    "!=": [("CONDITIONALS_NEGATION", "==")],
    "+": [("ARITHMETIC_BASE", "-")],
    "-": [("ARITHMETIC_BASE", "+")],
    "*": [("ARITHMETIC_BASE", "/")],
    "/": [("ARITHMETIC_BASE", "*")],
    "and": [("INVERT_LOGICAL", "or")],
    "or": [("INVERT_LOGICAL", "and")],
}

# A + - or * after one of these is unary (a sign, *args, **kwargs), not arithmetic.
UNARY_AFTER = {"(", "[", "{", ",", "=", ":", "return", "in", "not", "and", "or", "if", "else", "lambda", "yield",
               "**", "*", "+", "-", "/", "<", "<=", ">", ">=", "==", "!=", "+=", "-=", "*=", "/=", "->", "%"}

COVER = r"""
import json, sys, threading
target, out, tests = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = set()
def local(frame, event, arg):
    if event == "line":
        lines.add(frame.f_lineno)
    return local
def tracer(frame, event, arg):
    return local if frame.f_code.co_filename == target else None
sys.settrace(tracer)
threading.settrace(tracer)
import pytest
rc = pytest.main(["-q", "-p", "no:cacheprovider", *tests])
sys.settrace(None)
json.dump(sorted(lines), open(out, "w"))
sys.exit(rc)
"""


def mutants(src):
    """Every mutant of src: (kind, line, col, old, new), in the order of the source."""
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type not in skip or t.type == tokenize.NEWLINE]
    strings = {tokenize.STRING} | ({tokenize.FSTRING_START, tokenize.FSTRING_END} if hasattr(tokenize, "FSTRING_START") else set())
    out = []
    for i, t in enumerate(toks):
        s = t.string
        if t.type == tokenize.NEWLINE or s not in FLIPS or not (t.type == tokenize.OP or t.type == tokenize.NAME and s in ("and", "or")):
            continue
        prev = toks[i - 1] if i > 0 and toks[i - 1].type != tokenize.NEWLINE else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if s in ("+", "-", "*") and (prev is None or prev.string in UNARY_AFTER):
            continue  # a sign, *args: not arithmetic
        if s == "+" and (prev.type in strings or nxt is not None and nxt.type in strings):
            continue  # joining strings: its mutant fails on its type, whatever the tests
        for kind, new in FLIPS[s]:
            out.append((kind, t.start[0], t.start[1], s, new))
    return out


def apply(src, m):
    """src with mutant m applied (its token replaced at its line and column)."""
    _, line, col, old, new = m
    lines = src.splitlines(keepends=True)
    text = lines[line - 1]
    if text[col:col + len(old)] != old:
        raise ValueError(f"line {line} col {col}: {text[col:col + len(old)]!r} is not {old!r}")
    lines[line - 1] = text[:col] + new + text[col + len(old):]
    return "".join(lines)


def pytest_cmd(tests):
    return [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]


def covered(tree, file, tests, env):
    """The lines of file the tests run, and how long they took; the tests must pass on the unmutated tree."""
    out = tree / ".pysweep-lines.json"
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-c", COVER, str(tree / file), str(out), *tests], cwd=tree, env=env,
                       capture_output=True, text=True)
    took = time.monotonic() - t
    if r.returncode != 0:
        raise SystemExit(f"pysweep: {' '.join(tests)} fail on the unmutated tree:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    lines = set(json.loads(out.read_text()))
    out.unlink()
    return lines, took


def fate(tree, file, src, m, tests, env, timeout):
    """KILLED, LIVED, TIMED OUT (killed: the tests did not pass) or BROKEN (does not compile: not counted)."""
    mutated = apply(src, m)
    try:
        compile(mutated, file, "exec")
    except SyntaxError:
        return "BROKEN"
    p = tree / file
    p.write_text(mutated)
    try:
        r = subprocess.run(pytest_cmd(tests), cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
        return "LIVED" if r.returncode == 0 else "KILLED"
    except subprocess.TimeoutExpired:
        return "TIMED OUT"
    finally:
        p.write_text(src)


def sweep(root, file, tests, workers, coefficient, log=print):
    """Sweeps one file; returns (killed, lived, not covered, survivors)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="faasbench-pysweep-"))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        trees = [copy_head(root, tmp / f"tree{i}") for i in range(workers)]
        src = (trees[0] / file).read_text()
        lines, took = covered(trees[0], file, tests, env)
        ms = mutants(src)
        todo = [m for m in ms if m[1] in lines]
        for m in ms:
            if m[1] not in lines:
                log(f"NOT COVERED {m[0]} at {file}:{m[1]}:{m[2] + 1} ({m[3]} -> {m[4]})")
        timeout = max(30.0, coefficient * took)
        free = list(trees)
        results = {}

        def one(m):
            tree = free.pop()
            try:
                return m, fate(tree, file, src, m, tests, env, timeout)
            finally:
                free.append(tree)

        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as ex:
            for m, f in ex.map(one, todo):
                results[m] = f
                log(f"{f:>11} {m[0]} at {file}:{m[1]}:{m[2] + 1} ({m[3]} -> {m[4]})")
        killed = sum(1 for f in results.values() if f in ("KILLED", "TIMED OUT"))
        survivors = [m for m, f in results.items() if f == "LIVED"]
        return killed, len(survivors), len(ms) - len(todo), survivors
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min", type=float, default=0.9, help="the least efficacy (killed / (killed + lived)) that passes")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout-coefficient", type=float, default=10, help="a mutant's tests may take this many times the unmutated tests' time")
    ap.add_argument("--root", default=str(ROOT), help="the repository whose HEAD is mutated")
    ap.add_argument("targets", nargs="+", metavar="FILE:TESTS", help="a Python file and its tests (comma-separated), relative to the root")
    a = ap.parse_args(argv)
    if not 0 <= a.min <= 1:
        raise SystemExit(f"pysweep: --min {a.min}: want a fraction in [0, 1]")
    if a.workers < 1:
        raise SystemExit(f"pysweep: --workers {a.workers}: want at least 1")
    root = pathlib.Path(a.root)
    targets = []
    for t in a.targets:
        file, sep, tests = t.partition(":")
        if not sep or not tests or not file.endswith(".py"):
            raise SystemExit(f"pysweep: {t!r}: want FILE.py:TESTS[,TESTS...]")
        for p in [file, *tests.split(",")]:
            if not (root / p).is_file():
                raise SystemExit(f"pysweep: {t!r}: no file {p} in {root}")
        targets.append((file, tests.split(",")))
    t0 = time.monotonic()
    total_k = total_l = 0
    survivors = []
    for file, tests in targets:
        k, lv, nc, sv = sweep(root, file, tests, a.workers, a.timeout_coefficient)
        total_k, total_l = total_k + k, total_l + lv
        survivors += [(file, m) for m in sv]
        eff = k / (k + lv) if k + lv else 1.0
        print(f"\npysweep: {file}: {k} killed, {lv} lived, {nc} not covered: efficacy {100 * eff:.1f} %\n", flush=True)
    eff = total_k / (total_k + total_l) if total_k + total_l else 1.0
    print(f"pysweep: {total_k} killed, {total_l} lived: efficacy {100 * eff:.1f} % in {time.monotonic() - t0:.0f} s; least to pass {100 * a.min:.0f} %")
    for file, m in survivors:
        print(f"  survivor {m[0]} at {file}:{m[1]}:{m[2] + 1} ({m[3]} -> {m[4]})")
    return 0 if eff >= a.min else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
