"""Run a registered rule's spec so that the run records the rule it was made under.

    python3 scripts/repro/run.py RULE-ID[,RULE-ID...] --results DIR [--bin bin/faasbench] [-- FAASBENCH-RUN-FLAGS...]
    python3 scripts/repro/run.py RULE-ID[,RULE-ID...] --sets   # the spec, then the --set values, one a line
                                                     # (for scripts that run the spec themselves: deploy/node/seed.sh)

Several rules that run the same spec with the same `set:` are answered by one run (each is judged from
it: e.g. a figure's shape on one platform and the comparison of platforms); rules that differ in either
are refused together.

The rule's own `set:` overrides are applied (e.g. repetitions=3 where the example's default is fewer).
The rule must be committed as it is (docs/reproductions/rules.yaml clean in git): the run's labels carry
the rule's id, its sha256 and the commit the rules file was read at, so that a rule written after the run,
or changed since, shows (scripts/repro/rules.py check). Exits with faasbench's status.
"""
import argparse
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import rules  # noqa: E402


MAX_LABEL = 256  # a label value's limit (spec/labels.go MaxLabelValueBytes)


def git(*args):
    return subprocess.run(["git", "-C", str(rules.ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def command(rs, results, binary, extra, rules_commit):
    """The run's command line for rules of one spec and `set:` (pick's)."""
    ids = ",".join(r["id"] for r in rs)
    shas = ",".join(rules.rule_hash(r) for r in rs)
    return [binary, "run", str(rules.ROOT / rs[0]["spec"]), "--results", results,
            "--set", f"labels.rule=\"{ids}\"", "--set", f"labels.rule_sha256=\"{shas}\"",
            "--set", f"labels.rules_commit=\"{rules_commit}\"",
            *[a for s in rs[0].get("set") or [] for a in ("--set", s)], *extra]


def pick(doc, ids):
    """The rules named (comma-separated), or an error naming the one that cannot run with the others."""
    byid = {r["id"]: r for r in doc["rules"]}
    out = []
    for rid in ids.split(","):
        r = byid.get(rid)
        if r is None:
            return None, f"rule: no rule {rid!r} in {rules.RULES.relative_to(rules.ROOT)}"
        if out and (r["spec"], r.get("set") or []) != (out[0]["spec"], out[0].get("set") or []):
            return None, (f"rule: {rid} runs {r['spec']} with set {r.get('set') or []}, {out[0]['id']} runs "
                          f"{out[0]['spec']} with set {out[0].get('set') or []}: one run answers rules of the same spec and settings only")
        if r not in out:
            out.append(r)
    if len(",".join(rules.rule_hash(r) for r in out)) > MAX_LABEL:
        return None, f"rule: {len(out)} rules: their sha256s exceed a label's {MAX_LABEL} bytes (at most 3 rules a run)"
    return out, None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rule")
    ap.add_argument("--results")
    ap.add_argument("--sets", action="store_true", help="print the rule's spec and --set values, run nothing")
    ap.add_argument("--bin", default=str(rules.ROOT / "bin/faasbench"))
    ap.add_argument("extra", nargs="*", help="more flags for faasbench run (after --)")
    a = ap.parse_args(argv)
    doc = rules.load()
    picked, err = pick(doc, a.rule)
    if err:
        print(f"run.py: {err}", file=sys.stderr)
        return 2
    if git("status", "--porcelain", "--", str(rules.RULES)):
        print(f"run.py: {rules.RULES.relative_to(rules.ROOT)} has uncommitted changes: register (commit) the rule before its run",
              file=sys.stderr)
        return 2
    cmd = command(picked, a.results or "", a.bin, a.extra, git("log", "-1", "--format=%H", "--", str(rules.RULES)))
    if a.sets:
        print(picked[0]["spec"])
        print("\n".join(cmd[i + 1] for i, x in enumerate(cmd) if x == "--set"))
        return 0
    if not a.results:
        print("run.py: --results: give the directory the run is written under", file=sys.stderr)
        return 2
    print("+", " ".join(cmd), file=sys.stderr)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
