"""A campaign: the platforms a registered comparison names, run back to back on the same day with the same binary,
their repetitions interleaved (issue 62). deploy/node/campaign.sh runs it on the real node; this prints its plan.

    python3 scripts/repro/campaign.py plan RULE[,RULE...] [--platforms a,b,c] [--rounds N]

prints the campaign's id (UTC, to the second), then one line per run, "ROUND PLATFORM": every round runs each
platform once (one repetition), the platforms' order rotated by one each round, so that no platform always
runs first on a fresh node or last in the day. The rules must be of one spec and settings (one run answers
them all, scripts/repro/run.py); the platforms, unless given, are those the rules' figures compare (a figure
with `platform:`), and must be among the rules' platforms. Each run records labels.campaign (the id) and
labels.campaign_round; scripts/repro/rules.py judges a comparison from one campaign's runs only.
"""
import argparse
import datetime
import sys

import rules
import run as run_py

MAX_ROUNDS = 20


def compared(rs):
    """The platforms the rules' figures compare, in the order they first appear."""
    out = []
    for r in rs:
        for f in r["figures"].values():
            p = f.get("platform")
            if p and p not in out:
                out.append(p)
    return out


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


def campaign_id(now=None):
    return (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["plan"])
    ap.add_argument("rule")
    ap.add_argument("--platforms", default="")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    rs, err = run_py.pick(rules.load(), a.rule)
    if err:
        print(f"campaign.py: {err}", file=sys.stderr)
        return 2
    order, err = plan(rs, [p for p in a.platforms.split(",") if p], a.rounds)
    if err:
        print(f"campaign.py: {err}", file=sys.stderr)
        return 2
    print(campaign_id())
    for k, p in order:
        print(k, p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
