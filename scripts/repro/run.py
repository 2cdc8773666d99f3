"""Run a registered rule's spec so that the run records the rule it was made under.

    python3 scripts/repro/run.py RULE-ID --results DIR [--bin bin/faasbench] [-- FAASBENCH-RUN-FLAGS...]
    python3 scripts/repro/run.py RULE-ID --sets      # the rule's spec, then its --set values, one a line
                                                     # (for scripts that run the spec themselves: seed-on-node.sh)

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


def git(*args):
    return subprocess.run(["git", "-C", str(rules.ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def command(rule, results, binary, extra, rules_commit):
    return [binary, "run", str(rules.ROOT / rule["spec"]), "--results", results,
            "--set", f"labels.rule=\"{rule['id']}\"", "--set", f"labels.rule_sha256=\"{rules.rule_hash(rule)}\"",
            "--set", f"labels.rules_commit=\"{rules_commit}\"",
            *[a for s in rule.get("set") or [] for a in ("--set", s)], *extra]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rule")
    ap.add_argument("--results")
    ap.add_argument("--sets", action="store_true", help="print the rule's spec and --set values, run nothing")
    ap.add_argument("--bin", default=str(rules.ROOT / "bin/faasbench"))
    ap.add_argument("extra", nargs="*", help="more flags for faasbench run (after --)")
    a = ap.parse_args(argv)
    doc = rules.load()
    rule = next((r for r in doc["rules"] if r["id"] == a.rule), None)
    if rule is None:
        print(f"run.py: rule: no rule {a.rule!r} in {rules.RULES.relative_to(rules.ROOT)}", file=sys.stderr)
        return 2
    if git("status", "--porcelain", "--", str(rules.RULES)):
        print(f"run.py: {rules.RULES.relative_to(rules.ROOT)} has uncommitted changes: register (commit) the rule before its run",
              file=sys.stderr)
        return 2
    cmd = command(rule, a.results or "", a.bin, a.extra, git("log", "-1", "--format=%H", "--", str(rules.RULES)))
    if a.sets:
        print(rule["spec"])
        print("\n".join(cmd[i + 1] for i, x in enumerate(cmd) if x == "--set"))
        return 0
    if not a.results:
        print("run.py: --results: give the directory the run is written under", file=sys.stderr)
        return 2
    print("+", " ".join(cmd), file=sys.stderr)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
