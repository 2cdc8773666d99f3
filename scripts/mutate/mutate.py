"""make mutate: a fixed list of deliberate bugs (scripts/mutate/mutants.yaml), each applied alone to a copy of the
committed tree, and the tests named for it run there: a mutant the tests fail on is killed, one they pass on
survives. Prints each mutant's fate and time, the score, and every survivor; exits 1 when the score is under
--min (a fraction) or a mutant's text is not in its file exactly once (the list is stale), 0 otherwise.

    python3 scripts/mutate/mutate.py [--min 0.9] [--only ID,...] [--list FILE]

The working tree is never touched: the copy is `git archive HEAD` in a temporary directory (uncommitted
changes are not in it), removed at the end. Go's build cache is shared, so each mutant rebuilds only what it
changed."""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIST = ROOT / "scripts/mutate/mutants.yaml"
TIMEOUT_S = 900


def load(path):
    doc = yaml.safe_load(pathlib.Path(path).read_text()) or {}
    out = []
    for i, m in enumerate(doc.get("mutants") or []):
        for f in ("id", "file", "find", "replace"):
            if f not in m:
                raise SystemExit(f"mutate: {path}: mutants[{i}] ({m.get('id', '?')}): missing {f}")
        if not m.get("go") and not m.get("py"):
            raise SystemExit(f"mutate: {path}: {m['id']}: names no tests (go: or py:)")
        if m["find"] == m["replace"]:
            raise SystemExit(f"mutate: {path}: {m['id']}: replace is find: not a mutant")
        out.append(m)
    ids = [m["id"] for m in out]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"mutate: {path}: an id is used twice")
    return out


def stale(tree, m):
    """Why the mutant cannot be applied to tree ('' when it can): its text must be in its file once."""
    p = tree / m["file"]
    if not p.is_file():
        return f"{m['file']}: no such file"
    n = p.read_text().count(m["find"])
    return "" if n == 1 else f"{m['file']}: its text occurs {n} times (want 1): the list is stale"


def run_tests(tree, m, env):
    """'survived' when the tests pass, 'killed' when they fail, 'broken' when a Go mutant does not compile (a
    compile error is no test catching a bug: the mutant must be mended)."""
    if m.get("go"):
        r = subprocess.run(["go", "test", "-count=1", "-run", "^$", *m["go"]], cwd=tree, env=env, capture_output=True,
                           text=True, timeout=TIMEOUT_S)
        if r.returncode != 0:
            return "broken"
    cmds = []
    if m.get("go"):
        cmds.append(["go", "test", "-count=1", *m["go"]])
    if m.get("py"):
        cmds.append([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *m["py"]])
    for c in cmds:
        try:
            r = subprocess.run(c, cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "killed"  # a hang is caught too (the tests did not pass)
        if r.returncode != 0:
            return "killed"
    return "survived"


def copy_head(root, into):
    """Extracts the committed tree of the repository at root (git archive HEAD) into the new directory into."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(root), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min", type=float, default=0.9, help="the least score (killed / mutants) that passes")
    ap.add_argument("--only", default="", help="comma-separated mutant ids")
    ap.add_argument("--list", default=str(LIST))
    ap.add_argument("--root", default=str(ROOT), help="the repository whose HEAD is mutated")
    a = ap.parse_args(argv)
    if not 0 <= a.min <= 1:
        raise SystemExit(f"mutate: --min {a.min}: want a fraction in [0, 1]")
    ms = load(a.list)
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {m["id"] for m in ms}
        if unknown:
            raise SystemExit(f"mutate: --only: no mutant {', '.join(sorted(unknown))}")
        ms = [m for m in ms if m["id"] in want]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="faasbench-mutate-"))
    try:
        tree = copy_head(a.root, tmp / "tree")
        env = dict(os.environ, GOFLAGS=os.environ.get("GOFLAGS", ""), PYTHONDONTWRITEBYTECODE="1")
        problems = [f"{m['id']}: {why}" for m in ms if (why := stale(tree, m))]
        if problems:
            print("\n".join(f"mutate: {p}" for p in problems), file=sys.stderr)
            return 1
        killed, survivors, broken, t0 = 0, [], [], time.monotonic()
        for m in ms:
            p = tree / m["file"]
            orig = p.read_text()
            p.write_text(orig.replace(m["find"], m["replace"], 1))
            t = time.monotonic()
            try:
                fate = run_tests(tree, m, env)
            finally:
                p.write_text(orig)
            print(f"{fate if fate == 'killed' else fate.upper():8} {m['id']:36} {time.monotonic() - t:6.1f} s  ({m['file']})", flush=True)
            if fate == "survived":
                survivors.append(m)
            elif fate == "broken":
                broken.append(m)
            else:
                killed += 1
        n = len(ms) - len(broken)
        score = killed / n if n else 1.0
        print(f"\nmutate: {killed} of {n} killed ({100 * score:.0f} %) in {time.monotonic() - t0:.0f} s; least to pass {100 * a.min:.0f} %")
        for m in survivors:
            print(f"  survivor {m['id']}: {m['file']}: {m['find'].strip()!r} -> {m['replace'].strip()!r}")
        for m in broken:
            print(f"  broken {m['id']}: {m['file']}: the mutant does not compile: mend it in the list", file=sys.stderr)
        return 0 if score >= a.min and not broken else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
