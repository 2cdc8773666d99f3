"""What the cluster did during a run, for the evidence beside it (deploy/node/seed.sh writes cluster-events.txt):

    python3 deploy/node/events.py --since 2026-12-02T00:30:00Z EVENTS.json PODS.json

EVENTS.json is `kubectl get events -A -o json`, PODS.json `kubectl get pods -A -o json`. Prints the events of the
run (their last time at or after --since; the kubelet's legacy events carry lastTimestamp, the scheduler's newer
ones eventTime only), oldest first, one a line: time, namespace, object, type, reason, count and message; then, per
pod, the containers ended against their will as the events tell it (a liveness probe's restart, out of memory,
evicted: known even when the pod is gone); then every pod still there that restarted a container, with the count and
how its last run ended. A run that failed (a platform's
calls hanging, its port refusing) is then explained by what Kubernetes saw (a probe failing, a container killed
for memory, a pod evicted), not guessed at. Events hold no secret (object names, reasons, the components'
messages); neither do the pods' statuses read here (their spec, where an environment would be, is not read).
"""
import argparse
import json
import sys


def when(e):
    """The event's last time (an RFC 3339 string; they compare as strings at the same precision once cut to seconds)."""
    t = e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp") or (e.get("metadata") or {}).get("creationTimestamp") or ""
    return t[:19] + "Z" if t else ""


def event_lines(events, since):
    since = since[:19] + "Z"
    rows = []
    for e in events.get("items") or []:
        t = when(e)
        if not t or t < since:
            continue
        o = e.get("involvedObject") or e.get("regarding") or {}
        msg = " ".join((e.get("message") or e.get("note") or "").split())
        rows.append((t, f"{t} {o.get('namespace') or '-'} {o.get('kind', '?')}/{o.get('name', '?')} {e.get('type', '?')} "
                        f"{e.get('reason', '?')} x{e.get('count') or (e.get('series') or {}).get('count') or 1}: {msg}"))
    return [line for _, line in sorted(rows)]


def restart_lines(pods):
    out = []
    for p in pods.get("items") or []:
        md, st = p.get("metadata") or {}, p.get("status") or {}
        for c in (st.get("containerStatuses") or []) + (st.get("initContainerStatuses") or []):
            n = c.get("restartCount") or 0
            if n:
                last = (c.get("lastState") or {}).get("terminated") or {}
                out.append(f"{md.get('namespace')}/{md.get('name')} container {c.get('name')}: {n} restarts; the last run ended "
                           f"{last.get('reason', '?')} (exit {last.get('exitCode', '?')}) at {last.get('finishedAt', '?')}")
    return sorted(out)


# What the kubelet (and the node) report when a container is ended against its will: a liveness probe's restart
# ("Container X failed liveness probe, will be restarted", reason Killing; a pod's deletion is Killing too, with
# "Stopping container X", and is not counted), a container over its memory, a node short of it, a pod evicted.
FORCED = {"OOMKilling", "SystemOOM", "Evicted", "Preempting"}


def killed_lines(events, since):
    """Per pod, the containers ended against their will during the run, read from the events: a pod's own status
    says so only while the pod exists, and a run's pods are gone by the time its evidence is written (the
    Fig 7 campaign of 2026-12-02: Kubeless's liveness kills in the events, "(none)" among the restarted pods)."""
    since = since[:19] + "Z"
    per = {}
    for e in events.get("items") or []:
        t, reason = when(e), e.get("reason") or ""
        msg = " ".join((e.get("message") or e.get("note") or "").split())
        if not t or t < since or not ((reason == "Killing" and "will be restarted" in msg) or reason in FORCED):
            continue
        o = e.get("involvedObject") or e.get("regarding") or {}
        key = (f"{o.get('namespace') or '-'}/{o.get('name', '?')}", reason)
        n, first, last, why = per.get(key, (0, t, t, msg))
        per[key] = (n + (e.get("count") or (e.get("series") or {}).get("count") or 1), min(first, t), max(last, t), why)
    return [f"{pod} {reason} x{n} from {first} to {last}: {why}" for (pod, reason), (n, first, last, why) in sorted(per.items())]


def main(argv):
    a = argparse.ArgumentParser(prog="deploy/node/events.py")
    a.add_argument("--since", required=True, help="the run's start, RFC 3339 UTC (2026-12-02T00:30:00Z)")
    a.add_argument("events")
    a.add_argument("pods")
    args = a.parse_args(argv)
    if len(args.since) < 19 or args.since[4] != "-" or args.since[10] != "T":
        a.error(f"--since {args.since!r}: want an RFC 3339 time in UTC, such as 2026-12-02T00:30:00Z")
    try:
        with open(args.events) as fh:
            events = json.load(fh)
        with open(args.pods) as fh:
            pods = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        print(f"events: {e}", file=sys.stderr)
        return 1
    ev, rs, kl = event_lines(events, args.since), restart_lines(pods), killed_lines(events, args.since)
    print(f"# the cluster's events since {args.since} ({len(ev)}), oldest first")
    print("\n".join(ev) if ev else "(none)")
    print(f"# containers ended against their will, from the events (their pods may be gone): {len(kl)} pods")
    print("\n".join(kl) if kl else "(none)")
    print(f"# pods whose containers restarted ({len(rs)})")
    print("\n".join(rs) if rs else "(none)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
