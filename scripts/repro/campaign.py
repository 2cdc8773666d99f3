"""A campaign: the platforms a registered comparison names, run back to back on the same day with the same binary,
their repetitions interleaved (issue 62). deploy/node/campaign.sh runs it on the real node; this prints its plan.

    python3 scripts/repro/campaign.py plan RULE[,RULE...] [--platforms a,b,c] [--rounds N] [--resume TSV --commit C]

prints the campaign's id (UTC, to the second), then one line per run, "ROUND PLATFORM": every round runs each
platform once (one repetition), the platforms' order rotated by one each round, so that no platform always
runs first on a fresh node or last in the day. The rules must be of one spec and settings (one run answers
them all, scripts/repro/run.py); the platforms, unless given, are those the rules' figures compare (a figure
with `platform:`), and must be among the rules' platforms. Each run records labels.campaign (the id) and
labels.campaign_round; scripts/repro/rules.py judges a comparison from one campaign's runs only.

With --resume, the campaign of TSV (deploy/node/campaign.sh's campaign.tsv) goes on: its id, then only the runs of
the plan that did not end with exit 0 there. Refused when TSV is a campaign of other rules, or of another commit
than C (a campaign is one binary).
"""
import argparse
import datetime
import sys

import rules
import run as run_py

MAX_ROUNDS = 20


def compared(rs):
    """The platforms the rules' figures compare (rules.compared of each), in the order they first appear."""
    return list(dict.fromkeys(p for r in rs for p in rules.compared(r)))


def plan(rs, platforms, rounds):
    """[(round, platform)] for rounds 1..rounds, the platforms' order rotated by one each round; or an error
    naming the flag."""
    if not 1 <= rounds <= MAX_ROUNDS:
        return None, f"--rounds {rounds}: from 1 to {MAX_ROUNDS} (each round runs every platform once)"
    allowed = [p for r in rs for p in r["platforms"]]
    platforms = platforms or compared(rs)
    if not platforms:
        return None, f"--platforms: {', '.join(r['id'] for r in rs)} compare no platforms: name the platforms to run"
    for p in platforms:
        if p == "local" or p not in allowed:
            return None, f"--platforms: {p} is not a real platform of {', '.join(r['id'] for r in rs)} ({', '.join(sorted(set(allowed) - {'local'}))})"
    if len(set(platforms)) != len(platforms):
        return None, f"--platforms: {','.join(platforms)} names a platform twice"
    n = len(platforms)
    return [(k, platforms[(k - 1 + i) % n]) for k in range(1, rounds + 1) for i in range(n)], None


def read_tsv(path):
    """(header {campaign, rules, commit, binary_sha256}, {(round, platform): exit of its last attempt})."""
    head, done = {}, {}
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for r in rows:
        if len(r) == 2:
            head[r[0]] = r[1]
        elif len(r) == 5 and r[0] != "round":
            done[(int(r[0]), r[1])] = int(r[4])
    for k in ("campaign", "rules", "commit"):
        if k not in head:
            raise ValueError(f"{path}: no {k} line: not a campaign.tsv")
    return head, done


def resume(order, rule, head, done, commit):
    """The runs of order still to make in the campaign of head/done, or an error naming --resume."""
    if head["rules"] != rule:
        return None, f"--resume: campaign {head['campaign']} ran {head['rules']}, not {rule}"
    if head["commit"] != commit:
        return None, f"--resume: campaign {head['campaign']} ran commit {head['commit'][:12]}, this is {commit[:12]}: a campaign is one binary"
    return [x for x in order if done.get(x) != 0], None


def campaign_id(now=None):
    return (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["plan"])
    ap.add_argument("rule")
    ap.add_argument("--platforms", default="")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--resume", default="")
    ap.add_argument("--commit", default="")
    a = ap.parse_args(argv)
    rs, err = run_py.pick(rules.load(), a.rule)
    if err:
        print(f"campaign.py: {err}", file=sys.stderr)
        return 2
    order, err = plan(rs, [p for p in a.platforms.split(",") if p], a.rounds)
    if err:
        print(f"campaign.py: {err}", file=sys.stderr)
        return 2
    cid = campaign_id()
    if a.resume:
        try:
            head, done = read_tsv(a.resume)
        except (OSError, ValueError) as e:
            print(f"campaign.py: --resume: {e}", file=sys.stderr)
            return 2
        order, err = resume(order, a.rule, head, done, a.commit)
        if err:
            print(f"campaign.py: {err}", file=sys.stderr)
            return 2
        cid = head["campaign"]
    print(cid)
    for k, p in order:
        print(k, p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
