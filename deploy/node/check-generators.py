"""deploy/node/check-generators.py RUNDIR N: the run on the real node split every cell over N generator pods.

Each cell is complete and valid enough to hold N generators that each sent requests, ran in a pod of
the generator Job (its host is the pod's name, not this machine's), reported no error, and were on
time; the merged counts equal the sum of the generators' parts."""
import json
import socket
import sys

run, n = sys.argv[1], int(sys.argv[2])
manifest = json.load(open(f"{run}/manifest.json"))
summary = json.load(open(f"{run}/summary.json"))
problems = []
if manifest.get("status") != "complete":
    problems.append(f"run status {manifest.get('status')}")
cells = summary.get("cells", [])
if not cells:
    problems.append("no cells")
for c in cells:
    gens = c.get("generators", [])
    if len(gens) != n:
        problems.append(f"{c['id']}: {len(gens)} generators, want {n}")
        continue
    total = sum(g["requests"] for g in gens)
    if total != c["requests"]["total"]:
        problems.append(f"{c['id']}: generators sent {total}, the cell counts {c['requests']['total']}")
    for g in gens:
        if g.get("error") or g["requests"] == 0:
            problems.append(f"{c['id']}: generator {g['index']}: {g['requests']} requests, error {g.get('error')}")
        if not g.get("host", "").startswith("fb-gen-") or g.get("host") == socket.gethostname():
            problems.append(f"{c['id']}: generator {g['index']} ran on {g.get('host')}, not in a generator pod")
        if g["late_ms"] > 50:
            problems.append(f"{c['id']}: generator {g['index']} began {g['late_ms']} ms late")
    if c.get("partial"):
        problems.append(f"{c['id']}: partial")
for p in problems:
    print("check-generators:", p, file=sys.stderr)
print(f"check-generators: {len(cells)} cells, {n} generator pods each: " + ("ok" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
