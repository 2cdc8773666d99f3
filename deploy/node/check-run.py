"""deploy/node/check-run.py RUNDIR [options]: what a real-tier run measured, asserted.

A run that ended "complete" is not enough (a broken route answers fast): every cell must hold
successful requests (unless the spec declared its status) and its expectation must have held (the
spec's expect: at most 1 % failed by default), every drain after a cell must have finished (OpenWhisk's
backlog, platform.Drainer), some cell must be valid (invalid ones are listed; a run
whose every cell the hypervisor's steal alone made invalid, after the runner measured it again, is
checked all the same: the machine was starved, the platform's answers are still there to check),
and every function must have answered its probe with its own reply (kinds coldstart and autoscale
are not probed); every success of a coldrate step was a cold start, and some step called each of its
copies once, cold (past the knee, calls may fail: those steps are judged by being sustained, not by
the expectation). Options add what the spec claims:

  --failed-max X         every cell: at most X of its requests failed, whatever the spec allowed
  --cold-verified N      every coldstart cell: every forced iteration verified cold, N in all at least
  --cold-kind KIND=N     at least N verified cold starts of that kind (image-pull: the node pulled the image)
  --data-path SUB=TEXT   every cell whose id contains SUB says TEXT in its data path (at its end)
  --no-data-path SUB=TEXT  ... and never says TEXT
  --instances SUB=N      every cell whose id contains SUB spread its successes over N instances or
                         more, each with at least 5 % of them (a Service's pods' shares)
  --resets LEVEL=N       the manifest records N resets between repetitions at LEVEL, each saying what
  --no-probe, --probe    no probe expected, or one expected whatever the kind
  --headerless FN        FN's replies cannot name their instance (OpenFaaS's classic watchdog): its
                         probe passes without one, and none of its cells may count an instance; the
                         functions the manifest's spec runs so are known without it
                         (deploy/node/platform_functions.py headerless_in)
 --starved              only say (exit 0 or 1) whether the run failed for the hypervisor's steal alone (every
                         cell invalid for it and nothing else): deploy/node/smoke-run.sh asks it
  --resources FN         the run's timeline (timeline.json) sampled FN's instances: a sample with an instance
                         using memory, and one with CPU (OpenWhisk's action pods through platform.options.pods_namespace)
  --components NAME      the run's idle footprint (summary.json idle_footprint) holds the platform's component
                         NAME using memory (OpenWhisk's own pods through platform.options.pods_namespace)
  --faster A/B=X         every cell whose id contains A served at least X times the throughput of the
                         cell of the same repetition whose id contains B (Nuclio's workers: workers=4/
                         against workers=1/)

Exit 0 with one line saying what held, 1 with every problem on stderr."""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import platform_functions  # noqa: E402 (beside this file)


def pairs(values, conv=str):
    out = []
    for v in values or []:
        k, sep, x = v.rpartition("=")
        if not sep:
            raise SystemExit(f"check-run: {v!r}: want SUB=VALUE")
        out.append((k, conv(x)))
    return out


# load.Judge's steal reason as a cell says it ("invalid: " first; with several generators, after
# load.GeneratorReason's "generator N (host): ").
STEAL = re.compile(r"invalid: (generator \d+ \([^)]*\): )?second \d+: the hypervisor stole ")


def stolen_only(cell):
    """Whether the cell is invalid for the hypervisor's steal and nothing else."""
    reasons = [w for w in cell.get("warnings") or [] if w.startswith("invalid: ")]
    return not cell.get("valid") and bool(reasons) and all(STEAL.match(r) for r in reasons)


def starved(manifest, cells):
    """Whether the run failed only because the hypervisor's steal made every cell invalid."""
    return (manifest.get("status") == "failed" and (manifest.get("error") or "").startswith("nothing valid was measured")
            and bool(cells) and all(stolen_only(c) for c in cells))


def load_run(run):
    """The run directory's manifest and summary, or the reason they cannot be read."""
    try:
        return json.load(open(f"{run}/manifest.json")), json.load(open(f"{run}/summary.json")), None
    except (OSError, ValueError) as e:
        return None, None, f"unreadable run directory: {e}"


def check(run, failed_max=None, cold_verified=None, data_path=(), no_data_path=(), instances=(), probe=None, resets=(), cold_kinds=(),
          headerless=(), faster=()):
    """Returns the problems of the run directory run (empty: it measured what it claims)."""
    problems = []
    manifest, summary, err = load_run(run)
    if err:
        return [err]
    # The functions that run where no reply can name its instance, from the spec as run (OpenFaaS's forking
    # watchdogs, Nuclio's shell runtime), beside those named by hand.
    ran = manifest.get("spec") or {}
    headerless = set(headerless) | set(platform_functions.headerless_in(ran.get("functions") or [], (ran.get("platform") or {}).get("name")))
    cells = summary.get("cells") or []
    is_starved = starved(manifest, cells)
    if is_starved:
        print(f"check-run: note: the hypervisor's steal made every cell of {len(cells)} invalid: the rest is checked all the same",
              file=sys.stderr)
    elif manifest.get("status") != "complete":
        problems.append(f"run status {manifest.get('status')!r}: {manifest.get('error', '')}")
    if not cells:
        problems.append("no cell was measured")
    if probe is None:
        # Kinds that measure first requests are not probed (a probe would warm them).
        probe = ((manifest.get("spec") or {}).get("kind") or "sweep") not in ("coldstart", "autoscale")
    if probe:
        fns = {c["function"] for c in cells} | {f.get("name") for f in (manifest.get("spec") or {}).get("functions") or []
                                                if f.get("measured", True) and f.get("name")}
        probes = {p["function"]: p for p in manifest.get("probes") or []}
        for fn in sorted(fns):
            p = probes.get(fn)
            if p is None:
                problems.append(f"{fn}: never probed before its first cell")
            elif p.get("error") or p.get("status") != 200 or not (p.get("instance") or fn in headerless):
                problems.append(f"{fn}: its probe got {p.get('status')} from {p.get('instance')!r}: {p.get('error', '')}")
    if cells and not any(c.get("valid") for c in cells) and not is_starved:
        problems.append(f"no cell of {len(cells)} is valid")
    cold_total = 0
    kinds = {}
    coldrate_steps = whole = 0
    for c in cells:
        cid, req = c["id"], c["requests"]
        x = c.get("expect") or {}
        declared = x.get("rule", "").startswith("every request answered")
        if req["succeeded"] <= 0 and not declared:
            problems.append(f"{cid}: no successful request ({req['total']} sent; errors {c.get('errors')})")
        elif failed_max is not None and req["failed"] > failed_max * req["total"]:
            problems.append(f"{cid}: {req['failed']} of {req['total']} failed, over {100 * failed_max:g} % (errors {c.get('errors')})")
        if not x.get("held") and not (c.get("capacity") and c["capacity"].get("phase") != "validate") and not c.get("coldrate"):
            problems.append(f"{cid}: expectation {x or 'missing'}")
        if not c.get("valid"):
            print(f"check-run: note: {cid} is not valid: {c.get('warnings')}", file=sys.stderr)
        # A platform that goes on running invocations after their replies (OpenWhisk) is drained after each
        # cell (platform.Drainer): a drain that failed or ran out of time is a problem of the run.
        for w in c.get("warnings") or []:
            if w.startswith("not drained: "):
                problems.append(f"{cid}: {w}")
        cold = c.get("cold")
        if cold is not None and cold.get("cold_share") is None:
            cold_total += cold.get("verified", 0)
            for k, n in (cold.get("kinds") or {}).items():
                kinds[k] = kinds.get(k, 0) + n
            if cold.get("verified", 0) != cold.get("iterations", -1) or cold.get("iterations", 0) == 0:
                problems.append(f"{cid}: {cold.get('verified')} of {cold.get('iterations')} cold starts verified")
        cr = c.get("coldrate")
        if cr is not None:
            coldrate_steps += 1
            whole += cr.get("cold") == cr.get("calls") and not cr.get("not_sent")
            if cr.get("cold") != req["succeeded"]:
                problems.append(f"{cid}: {cr.get('cold')} of {req['succeeded']} successful calls cold: each copy must meet no instance")
        for sub, text in data_path:
            if sub in cid and text not in c.get("data_path", "").split(" at the start; ")[-1]:
                problems.append(f"{cid}: data path {c.get('data_path')!r}, want {text!r}")
        for sub, text in no_data_path:
            if sub in cid and text in c.get("data_path", "").split(" at the start; ")[-1]:
                problems.append(f"{cid}: data path {c.get('data_path')!r}, must not say {text!r}")
        if c["function"] in headerless and c.get("instances"):
            problems.append(f"{cid}: instances {c['instances']}, but {c['function']}'s replies cannot name one")
        for sub, n in instances:
            if sub not in cid:
                continue
            inst = c.get("instances") or {}
            ok = sum(inst.values())
            shares = sorted((v / ok for v in inst.values()), reverse=True) if ok else []
            if len(shares) < n or shares[n - 1] < 0.05:
                problems.append(f"{cid}: successes over instances {inst}, want {n} or more with 5 % each")
    for level, n in resets:
        rs = [r for r in manifest.get("resets") or [] if r.get("level") == level]
        if len(rs) != n or any(not r.get("what") for r in rs):
            problems.append(f"resets at level {level}: {rs}, want {n}, each saying what it reset")
    for pair, x in faster:
        a, sep, b = pair.partition("/")
        if not sep:
            problems.append(f"--faster {pair!r}: want A/B=X")
            continue
        fast = [c for c in cells if a in c["id"]]
        if not fast:
            problems.append(f"no cell's id contains {a!r} (--faster {pair}={x})")
        for c in fast:
            base = [o for o in cells if b in o["id"] and o.get("repetition") == c.get("repetition") and o["id"] != c["id"]]
            if len(base) != 1:
                problems.append(f"{c['id']}: {len(base)} cells of its repetition contain {b!r}, want one")
            elif (c.get("throughput_rps") or 0) < x * (base[0].get("throughput_rps") or 0) or not base[0].get("throughput_rps"):
                problems.append(f"{c['id']}: {c.get('throughput_rps')} req/s, want at least {x} × {base[0]['id']}'s {base[0].get('throughput_rps')}")
    if coldrate_steps and not whole:
        problems.append(f"no coldrate step of {coldrate_steps} called each of its copies once, cold")
    if cold_verified is not None and cold_total < cold_verified:
        problems.append(f"{cold_total} verified cold starts in all, want at least {cold_verified}")
    for kind, n in cold_kinds:
        if kinds.get(kind, 0) < n:
            problems.append(f"{kinds.get(kind, 0)} verified cold starts of kind {kind} (kinds {kinds}), want at least {n}")
    return problems


def resource_problems(run, functions):
    """What the run's timeline lacks of each function's per-instance CPU and memory."""
    if not functions:
        return []
    try:
        tl = json.loads((pathlib.Path(run) / "timeline.json").read_text())
    except (OSError, ValueError) as e:
        return [f"timeline.json: {e}"]
    out = []
    for fn in functions:
        mine = [s for s in tl.get("samples") or [] if s.get("function") == fn]
        insts = [i for s in mine for i in s.get("instances") or []]
        if not any((i.get("memory_mib") or 0) > 0 for i in insts):
            out.append(f"timeline: no sample of {fn} has an instance using memory ({len(mine)} samples, {len(insts)} instance samples): "
                       "its containers' resources were not sampled")
        elif not any((s.get("cpu_cores") or 0) > 0 for s in mine):
            out.append(f"timeline: no sample of {fn} has CPU used ({len(mine)} samples)")
    return out


def component_problems(run, names):
    """What the run's idle footprint lacks of each named platform component."""
    if not names:
        return []
    try:
        fp = json.loads((pathlib.Path(run) / "summary.json").read_text()).get("idle_footprint")
    except (OSError, ValueError) as e:
        return [f"summary.json: {e}"]
    if not fp:
        return [f"summary.json: no idle_footprint: the platform's components ({', '.join(names)}) were not sampled"]
    have = {c.get("component"): c for c in fp.get("components") or []}
    return [f"idle_footprint: no component {n} using memory (components: {', '.join(sorted(map(str, have))) or 'none'})"
            for n in names if (have.get(n) or {}).get("memory_mib", 0) <= 0]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--failed-max", type=float)
    ap.add_argument("--cold-verified", type=int)
    ap.add_argument("--data-path", action="append")
    ap.add_argument("--no-data-path", action="append")
    ap.add_argument("--instances", action="append")
    ap.add_argument("--resets", action="append")
    ap.add_argument("--cold-kind", action="append")
    ap.add_argument("--no-probe", action="store_true")
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--starved", action="store_true")
    ap.add_argument("--headerless", action="append", default=[])
    ap.add_argument("--faster", action="append")
    ap.add_argument("--resources", action="append")
    ap.add_argument("--components", action="append")
    a = ap.parse_args(argv)
    if a.starved:
        manifest, summary, err = load_run(a.run)
        if err:
            print(f"check-run: {err}", file=sys.stderr)
            return 1
        return 0 if starved(manifest, summary.get("cells") or []) else 1
    problems = check(a.run, a.failed_max, a.cold_verified, pairs(a.data_path), pairs(a.no_data_path),
                     pairs(a.instances, int), False if a.no_probe else (True if a.probe else None),
                     pairs(a.resets, int), pairs(a.cold_kind, int), a.headerless, pairs(a.faster, float))
    problems += resource_problems(a.run, a.resources)
    problems += component_problems(a.run, a.components)
    for p in problems:
        print("check-run:", p, file=sys.stderr)
    summary = json.load(open(f"{a.run}/summary.json")) if not problems else {"cells": []}
    cells = summary.get("cells", [])
    print(f"check-run: {a.run}: " + ("FAILED" if problems else
          f"ok: {len(cells)} cells, {sum(c['requests']['succeeded'] for c in cells)} successful requests"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
