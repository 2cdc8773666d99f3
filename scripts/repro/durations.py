"""The machine time of kept runs, from their manifests' start and end.

Usage: python3 scripts/repro/durations.py DIR [DIR...]

Prints each run under the folders (its folder, start, seconds, platform), then the sessions they form
(runs less than GAP_S apart on the clock, in start order: a session's span and the sum of its runs'
seconds), then the total. A run's seconds are its manifest's end minus start: the platform's and the
node's start before a run are not in them. Docs that state machine time name this command and the file
its output is kept in, so that the figures can be checked (scripts/repro/prose.py).
"""
import datetime
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAP_S = 1800


def parse_time(s):
    """An RFC 3339 time as the manifests write it (nanoseconds cut to microseconds)."""
    s = s.replace("Z", "+00:00")
    if "." in s:
        head, rest = s.split(".", 1)
        frac = re.match(r"\d*", rest).group(0)
        zone = rest[len(frac):]
        s = f"{head}.{frac[:6].ljust(6, '0')}{zone}"
    return datetime.datetime.fromisoformat(s)


def runs(dirs):
    """(start, seconds, run folder, platform) for every manifest.json under the folders, in start order."""
    out = []
    for d in dirs:
        root = pathlib.Path(d)
        if not root.is_dir():
            raise FileNotFoundError(f"{d}: not a folder")
        for m in sorted(root.rglob("manifest.json")):
            j = json.loads(m.read_text())
            if not j.get("start") or not j.get("end"):
                raise ValueError(f"{m}: no start or end")
            a, b = parse_time(j["start"]), parse_time(j["end"])
            plat = ((j.get("spec") or {}).get("platform") or {}).get("name", "?")
            out.append((a, (b - a).total_seconds(), m.parent, plat))
    return sorted(out, key=lambda r: r[0])


def sessions(rs, gap_s=GAP_S):
    """Runs grouped into sessions: a run that starts more than gap_s after the previous one ended opens a new one."""
    out, end = [], None
    for r in rs:
        a, secs = r[0], r[1]
        if end is None or (a - end).total_seconds() > gap_s:
            out.append([])
        out[-1].append(r)
        fin = a + datetime.timedelta(seconds=secs)
        end = fin if end is None or fin > end else end
    return out


def report(dirs, gap_s=GAP_S):
    rs = runs(dirs)
    lines = ["run\tstart\tseconds\tplatform"]
    for a, secs, d, plat in rs:
        lines.append(f"{d}\t{a:%Y-%m-%dT%H:%M:%SZ}\t{secs:.0f}\t{plat}")
    lines.append("")
    lines.append("session\truns\tseconds")
    for s in sessions(rs, gap_s):
        first = s[0][0]
        last = max(a + datetime.timedelta(seconds=secs) for a, secs, _, _ in s)
        lines.append(f"{first:%Y-%m-%d %H:%M}-{last:%H:%M}\t{len(s)}\t{sum(x[1] for x in s):.0f}")
    lines.append(f"total\t{len(rs)}\t{sum(x[1] for x in rs):.0f}")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        sys.stdout.write(report(argv[1:]))
    except (OSError, ValueError) as e:
        print(f"durations: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
