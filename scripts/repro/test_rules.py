"""The registered rules: quotes are the seeds', runs were made under the rules as they are now, and the
verdicts in docs/reproductions.md are the ones the rules compute from the committed runs."""
import datetime
import json
import math
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest
import yaml

import rules

DOC = rules.load()


def make_run(tmp_path, name, cells, labels=None, platform="local", commit="abc1234", spec_file="examples/x.yaml"):
    d = tmp_path / name
    d.mkdir()
    spec = {"name": name, "platform": {"name": platform}, "labels": labels or {}}
    (d / "manifest.json").write_text(json.dumps({"run_id": name, "spec": spec, "spec_file": spec_file,
                                                  "status": "complete",
                                                  "fingerprint": {"faasbench": {"commit": commit}}}))
    out = []
    for key, reps in cells.items():
        for rep, fig in enumerate(reps, 1):
            out.append({"key": key, "repetition": rep, **fig})
    (d / "summary.json").write_text(json.dumps({"cells": out}))
    return rules.Run(d)


RULE = {"id": "t-workers", "figures": {"w1": {"cell": "f/workers=1", "metric": "throughput_rps"},
                                      "w4": {"cell": "f/workers=4", "metric": "throughput_rps"}},
        "checks": [{"name": "x4 / x1 >= 2", "every": "w4 / w1 >= 2"}]}


def test_every_repetition_means_every_one(tmp_path):
    # The issue's own example: 1.43 / 1.47 / 1.30 against a rule of 2 in every repetition, and one
    # repetition of three failing a rule the other two pass.
    run = make_run(tmp_path, "a", {"f/workers=1": [{"throughput_rps": 100}] * 3,
                                   "f/workers=4": [{"throughput_rps": v} for v in (143, 147, 130)]})
    assert rules.judge(RULE, {"*": run})[0] == "does not reproduce"
    run = make_run(tmp_path, "b", {"f/workers=1": [{"throughput_rps": 100}] * 3,
                                   "f/workers=4": [{"throughput_rps": v} for v in (250, 190, 300)]})
    word, res = rules.judge(RULE, {"*": run})
    assert word == "does not reproduce" and res[0][2] == "2.5 / 1.9 / 3 ✗"


def test_median_ranges_for_and_partly(tmp_path):
    cells = {f"g/c={c}": [{"throughput_rps": v, "latency_ms": {"p99": 10 * c}} for v in vals]
             for c, vals in ((1, (10, 11, 12)), (8, (20, 21, 40)))}
    cells.update({f"d/c={c}": [{"throughput_rps": v} for v in vals] for c, vals in ((1, (13, 14, 15)), (8, (30, 31, 32)))})
    run = make_run(tmp_path, "r", cells)
    rule = {"id": "t", "figures": {"gw": {"cell": "g/c={c}", "metric": "throughput_rps"},
                                   "dc": {"cell": "d/c={c}", "metric": "throughput_rps"},
                                   "p": {"cell": "g/c=8", "metric": "latency_ms.p99"}},
            "checks": [{"name": "disjoint", "ranges": "dc.lo > gw.hi", "for": {"c": [1, 8]}},
                       {"name": "medians", "median": "dc > gw", "for": {"c": [1, 8]}},
                       {"name": "p99", "every": "p == 80"}]}
    word, res = rules.judge(rule, {"*": run})
    assert [h for _, h, _ in res] == [False, True, True] and word == "partly"
    assert res[0][2].startswith("c=1: gw 11 [10–12]; dc 14 [13–15] ✓; c=8:")


def test_a_cross_platform_figure_reads_its_platforms_run(tmp_path):
    a = make_run(tmp_path, "nu", {"k": [{"throughput_rps": 9}] * 3}, platform="nuclio")
    b = make_run(tmp_path, "kn", {"k": [{"throughput_rps": 5}] * 3}, platform="knative")
    rule = {"id": "t", "figures": {"nu": {"platform": "nuclio", "cell": "k", "metric": "throughput_rps"},
                                   "kn": {"platform": "knative", "cell": "k", "metric": "throughput_rps"}},
            "checks": [{"ranges": "nu.lo > kn.hi"}]}
    assert rules.judge(rule, {"nuclio": a, "knative": b})[0] == "reproduces"
    assert rules.judge(rule, {"nuclio": b, "knative": a})[0] == "does not reproduce"


def test_bad_rules_are_errors_naming_the_rule(tmp_path):
    run = make_run(tmp_path, "r", {"f/workers=1": [{"throughput_rps": 1}]})
    with pytest.raises(rules.RuleError, match="t-workers: figure w4: run r has no cell f/workers=4"):
        rules.judge(RULE, {"*": run})
    for expr, msg in (("__import__('os')", "not allowed"), ("w1 ** 2 > 1", "not allowed"), ("w1 >", "invalid syntax"),
                      ("w1 > x", "unknown name x")):
        with pytest.raises(rules.RuleError, match=msg):
            rules.evaluate(expr, {"w1": 1.0})
    with pytest.raises(rules.RuleError, match="has no throughput_rps"):
        rules.metric({"key": "k"}, "throughput_rps", "t")
    with pytest.raises(rules.RuleError, match=r"cell k: latency_ms.p99 has no value \(null in the run\)"):
        rules.metric({"key": "k", "latency_ms": {"p99": None}}, "latency_ms.p99", "t")
    with pytest.raises(rules.NotHappened, match=r"no scale-up in the run \(scaling.first_scale_up_s null in repetition 2\)"):
        rules.metric({"key": "k", "repetition": 2, "scaling": {"first_scale_up_s": None}}, "scaling.first_scale_up_s", "t")


def test_a_figure_name_yaml_reads_as_a_boolean_or_a_check_of_an_unknown_figure_is_refused(tmp_path):
    head = "seeds: {'003': {file: x, sha256: y}}\nrules:\n  - {id: t, seed: '003', figure: f, quote: q, claim: c, spec: s, platforms: [local],\n"
    bad = tmp_path / "bool.yaml"
    bad.write_text(head + "     figures: {on: {cell: k, metric: m}}, checks: [{median: 'on > 1'}]}\n")
    with pytest.raises(rules.RuleError, match="t: figures: True is not a name"):
        rules.load(bad)
    bad.write_text(head + "     figures: {a: {cell: k, metric: m}}, checks: [{name: n, every: 'a > b'}]}\n")
    with pytest.raises(rules.RuleError, match="t: check 'n' reads b, which is not one of its figures"):
        rules.load(bad)
    bad.write_text(head + "     figures: {a: {cell: k, metric: m}}, checks: [{name: n, ranges: 'abs(a.lo) > 1'}]}\n")
    assert rules.load(bad)["rules"][0]["id"] == "t"


def test_a_run_without_a_figures_cell_is_not_judged(tmp_path):
    r = dict(RULE, figure="f", quote={"line": 1, "text": "q"}, claim="c", platforms=["nuclio"])
    part = make_run(tmp_path, "part", {"f/workers=1": [{"throughput_rps": 1}]}, platform="nuclio")
    rows = rules._rule_rows(r, [part], {})
    assert len(rows) == 1 and rows[0].endswith("| not judged | not judged |")
    assert "cannot be read: t-workers: figure w4: run part has no cell f/workers=4" in rows[0]
    whole = make_run(tmp_path, "whole", {"f/workers=1": [{"throughput_rps": 1}], "f/workers=4": [{"throughput_rps": 3}]}, platform="nuclio")
    assert rules._rule_rows(r, [whole], {})[0].endswith("| **reproduces** | measured |")


def test_a_rule_hash_changes_with_the_rule():
    r = DOC["rules"][0]
    assert rules.rule_hash(r) == rules.rule_hash(json.loads(json.dumps(r)))
    assert rules.rule_hash(r) != rules.rule_hash(dict(r, claim=r["claim"] + "."))


def test_a_run_under_a_changed_rule_is_a_problem(tmp_path):
    r = DOC["rules"][0]
    good = make_run(tmp_path, "g", {}, labels={"rule": r["id"], "rule_sha256": rules.rule_hash(r)})
    good.spec_file = r["spec"]
    stale = make_run(tmp_path, "s", {}, labels={"rule": r["id"], "rule_sha256": "0" * 64})
    unknown = make_run(tmp_path, "u", {}, labels={"rule": "no-such-rule"})
    dirty = make_run(tmp_path, "d", {}, labels={"rule": r["id"], "rule_sha256": rules.rule_hash(r)}, commit="abc1234-dirty")
    dirty.spec_file = r["spec"]
    got = rules.hash_problems(DOC, [good, stale, unknown, dirty])
    assert len(got) == 3 and "redo the run" in got[0] and "not registered" in got[1] and "uncommitted changes" in got[2]


def test_quotes_are_the_seeds():
    if not rules.seeds_dir().is_dir():
        pytest.skip(f"{rules.seeds_dir()} is not here")
    assert rules.quote_problems(DOC) == []


def test_a_quote_not_in_the_seed_is_found(tmp_path):
    if not rules.seeds_dir().is_dir():
        pytest.skip(f"{rules.seeds_dir()} is not here")
    doc = json.loads(json.dumps(DOC))
    doc["rules"][0]["quote"] = {"line": 1, "text": "a figure of ~3400 RPS"}
    assert len(rules.quote_problems(doc)) == 1


def test_every_run_under_a_rule_was_made_under_it_as_it_is():
    assert rules.hash_problems(DOC, rules.registered_runs()) == []


def test_each_rule_was_committed_before_its_runs():
    """The rules file at the commit a run recorded holds the rule as it is now, and that commit is older than
    the run's start: the rule was registered (committed) before the run, not written after it."""
    if shutil.which("git") is None or not (rules.ROOT / ".git").exists():
        pytest.skip("no git history here")
    for run in rules.registered_runs():
        at = run.labels.get("rules_commit", "")
        assert re.fullmatch(r"[0-9a-f]{40}", at), f"{run.run_id}: no rules_commit label"
        if _git("cat-file", "-e", f"{at}^{{commit}}").returncode != 0:
            pytest.skip(f"commit {at[:12]} is not in this clone's history")
        shown = _git("show", f"{at}:docs/reproductions/rules.yaml")
        assert shown.returncode == 0, f"{run.run_id}: no rules file at commit {at[:12]}: the rule was not registered before the run"
        then = {r["id"]: r for r in yaml.safe_load(shown.stdout)["rules"]}
        for rid, sha in run.rules:
            assert rid in then, f"{run.run_id}: rule {rid} was not in the rules file at {at[:12]}"
            assert rules.rule_hash(then[rid]) == sha, run.run_id
        start = run.manifest.get("start", "")
        assert start, f"{run.run_id}: its manifest records no start"
        started = datetime.datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp()
        assert int(_git("show", "-s", "--format=%ct", at).stdout.strip()) <= started, \
            f"{run.run_id}: started before its rules commit {at[:12]}"


def test_the_verdicts_in_the_doc_are_the_computed_ones():
    text = rules.DOC.read_text()
    assert rules.doc_with_section(text, rules.section(DOC, rules.registered_runs())) == text, \
        "run python3 scripts/repro/rules.py write"


def test_no_verdict_is_written_by_hand():
    """Outside the generated section the page states no verdict in bold: the rules decide them."""
    text = rules.DOC.read_text()
    a, rest = text.split(rules.BEGIN, 1)
    _, b = rest.split(rules.END, 1)
    hand = re.findall(r"\*\*(reproduces|does not[^*]*|partly|cannot be measured)\*\*", a + b)
    assert hand == []


def test_metric_paths_lists_and_aggregates():
    cell = {"key": "k", "instances": {"a": 30, "b": 10}, "scaling": {"samples": [{"cpu": 1.0}, {"cpu": 3.0}, {"cpu": None}]}}
    assert rules.metric(cell, "instances", "t") == 30
    assert [rules.metric(cell, "instances|" + a, "t") for a in ("min", "sum", "count")] == [10, 40, 2]
    steps = {"key": "k", "scaling": {"load_s": 3, "samples": [{"t": t, "desired": d} for t, d in enumerate([1, 1, 2, 4, 2])]}}
    assert rules.metric(steps, "scaling.samples.*.desired|distinct", "t") == 3
    assert rules.metric(steps, "scaling.samples.*.desired|distinct", "t", where="t <= load_s") == 3
    assert rules.metric(steps, "scaling.samples.*.desired|distinct", "t", where="t < load_s") == 2
    assert rules.metric(cell, "scaling.samples.*.cpu|mean", "t") == 2.0
    assert rules.metric(cell, "scaling.samples.*.cpu|cv", "t") == 0.5
    with pytest.raises(rules.RuleError, match="gives 2 values"):
        rules.metric(cell, "scaling.samples.*.cpu", "t")
    with pytest.raises(rules.RuleError, match="not one of"):
        rules.metric(cell, "instances|median", "t")


def test_a_run_under_a_rule_carries_its_labels_and_the_rules_overrides():
    import run
    r = next(x for x in DOC["rules"] if x.get("set"))
    cmd = run.command([r], "/tmp/x", "bin/faasbench", ["--no-pin"], "c" * 40)
    assert cmd[:3] == ["bin/faasbench", "run", str(rules.ROOT / r["spec"])]
    sets = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--set"]
    assert sets[:3] == [f'labels.rule="{r["id"]}"', f'labels.rule_sha256="{rules.rule_hash(r)}"', f'labels.rules_commit="{"c" * 40}"']
    assert sets[3:] == r["set"] and cmd[-1] == "--no-pin"


def test_one_run_answers_several_rules_of_the_same_spec_and_settings(tmp_path):
    import run
    same = [r for r in DOC["rules"] if r["spec"] == "examples/003-hello-concurrency.yaml" and not r.get("set")][:2]
    assert len(same) == 2
    picked, err = run.pick(DOC, ",".join(r["id"] for r in same))
    assert err is None and picked == same
    cmd = run.command(picked, "/r", "b", [], "c" * 40)
    sets = [a for i, a in enumerate(cmd) if i and cmd[i - 1] == "--set"]
    assert sets[0] == f'labels.rule="{same[0]["id"]},{same[1]["id"]}"'
    assert sets[1] == f'labels.rule_sha256="{rules.rule_hash(same[0])},{rules.rule_hash(same[1])}"'
    other = next(r for r in DOC["rules"] if r["spec"] != same[0]["spec"])
    _, err = run.pick(DOC, f"{same[0]['id']},{other['id']}")
    assert err and other["id"] in err and "same spec and settings" in err
    _, err = run.pick(DOC, f"{same[0]['id']},no-such")
    assert err and "no-such" in err
    many = [r["id"] for r in DOC["rules"] if r["spec"] == "examples/003-hello-concurrency.yaml" and not r.get("set")]
    if len(many) >= 4:
        _, err = run.pick(DOC, ",".join(many[:4]))
        assert err and "at most 3" in err
    # Judged under each rule; a rule changed since makes that rule's entry stale, not the other's.
    good = make_run(tmp_path, "two", {}, labels={"rule": f"{same[0]['id']},{same[1]['id']}",
                                                 "rule_sha256": f"{rules.rule_hash(same[0])},{'0' * 64}"},
                    spec_file=same[0]["spec"])
    assert good.rules == [(same[0]["id"], rules.rule_hash(same[0])), (same[1]["id"], "0" * 64)]
    probs = rules.hash_problems(DOC, [good])
    assert len(probs) == 1 and same[1]["id"] in probs[0] and "redo the run" in probs[0]
    assert rules.runs_by_rule([good]) == {same[0]["id"]: [good], same[1]["id"]: [good]}


def test_sets_prints_the_spec_and_the_labels(capsys):
    import run
    if shutil.which("git") is None or not (rules.ROOT / ".git").exists():
        pytest.skip("no git history here")
    r = DOC["rules"][0]
    code = run.main([r["id"], "--sets"])
    out = capsys.readouterr().out.splitlines()
    if code == 2:  # the rules file has uncommitted changes here: refused, as it should be
        return
    assert code == 0 and out[0] == r["spec"] and out[1] == f'labels.rule="{r["id"]}"'
    assert run.main(["no-such-rule", "--sets"]) == 2


def test_keep_takes_what_the_verdicts_read_and_refuses_an_unregistered_run(tmp_path):
    import keep
    run = make_run(tmp_path, "r", {"k": [{"throughput_rps": 1}]}, labels={"rule": "x"})
    (run.dir / "summary.md").write_text("s")
    (run.dir / "report.html").write_text("big")
    (run.dir / "records").mkdir()
    (run.dir / "records" / "k_r1.parquet").write_text("big")
    for sub, name in (("hlog", "k_r1.hlog"), ("windows", "k_r1.json")):
        (run.dir / sub).mkdir()
        (run.dir / sub / name).write_text(sub)
    (run.dir / "hlog" / "elsewhere.hlog").symlink_to(tmp_path / "outside")
    out = keep.keep(tmp_path / "ev", run.dir)
    assert sorted(p.name for p in out.iterdir()) == ["hlog", "manifest.json", "summary.json.gz", "summary.md", "windows"]
    assert [p.name for p in (out / "hlog").iterdir()] == ["k_r1.hlog"] and (out / "windows" / "k_r1.json").read_text() == "windows"
    assert rules.Run(out).cells()["k"][1]["throughput_rps"] == 1
    bare = make_run(tmp_path, "b", {})
    with pytest.raises(SystemExit, match="not made under a registered rule"):
        keep.keep(tmp_path / "ev", bare.dir)


def test_a_check_reads_only_the_figures_it_names(tmp_path):
    # "gw" is inside "gw50": a check on gw50 must not read gw, whose cell needs a {b} it does not give.
    run = make_run(tmp_path, "r", {"f/gw=50": [{"throughput_rps": 2}] * 3, "f/srv=50": [{"throughput_rps": 1}] * 3})
    rule = {"id": "t", "figures": {"gw": {"cell": "f/gw={b}", "metric": "throughput_rps"},
                                   "gw50": {"cell": "f/gw=50", "metric": "throughput_rps"},
                                   "srv50": {"cell": "f/srv=50", "metric": "throughput_rps"}},
            "checks": [{"median": "gw50 > srv50"}]}
    assert rules.judge(rule, {"*": run})[0] == "reproduces"
    rule["checks"] = [{"median": "gw > srv50"}]
    with pytest.raises(rules.RuleError, match=r"figure gw: its cell f/gw=\{b\} needs \{b\}"):
        rules.judge(rule, {"*": run})


# --- verdict classes, amendments, append-only --------------------------------------------------------------

SCALE = {"id": "t-scale", "figure": "f", "quote": {"line": 1, "text": "q"}, "claim": "c", "platforms": ["openfaas"],
         "figures": {"first": {"cell": "f/autoscale", "metric": "scaling.first_scale_up_s"},
                     "top": {"cell": "f/autoscale", "metric": "scaling.max_replicas"},
                     "step": {"cell": "f/autoscale", "metric": "scaling.samples.*.desired|min", "where": "desired > 1"}},
         "checks": [{"name": "up soon", "every": "first < 15"}, {"name": "several", "every": "top >= 1"},
                    {"name": "a step", "every": "step >= 2"}]}


def test_a_scale_up_that_never_came_is_a_failure_not_a_gap(tmp_path):
    """A null first scale-up, or no sample above one replica, means the scale-up did not happen: the check
    fails (it is a result), where before the row said "not judged"."""
    flat = {"f/autoscale": [{"scaling": {"first_scale_up_s": None, "max_replicas": 1,
                                         "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 1}]}}] * 3}
    word, res = rules.judge(SCALE, {"*": make_run(tmp_path, "flat", flat, platform="openfaas")})
    assert word == "partly" and [h for _, h, _ in res] == [False, True, False]
    assert res[0][2] == "did not happen: no scale-up in the run (scaling.first_scale_up_s null in repetition 1) ✗"
    assert res[2][2].startswith("did not happen: no sample where desired > 1")
    row = rules._rule_rows(SCALE, [make_run(tmp_path, "flat2", flat, platform="openfaas")], {})[0]
    assert row.endswith("| **partly** | did not happen |")
    up = {"f/autoscale": [{"scaling": {"first_scale_up_s": 4, "max_replicas": 3,
                                       "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    assert rules._rule_rows(SCALE, [make_run(tmp_path, "up", up, platform="openfaas")], {})[0].endswith("| **reproduces** | measured |")
    # No samples at all is not "did not happen": nothing was sampled.
    with pytest.raises(rules.RuleError, match="has no values") as e:
        rules.metric({"key": "k", "scaling": {"samples": []}}, "scaling.samples.*.desired|min", "t", "desired > 1")
    assert not isinstance(e.value, rules.NotHappened)


def test_design_notes_class_the_verdicts_of_their_platforms(tmp_path):
    doc = {"rules": [dict(SCALE, platforms=["local", "openfaas"])]}
    notes = tmp_path / "designs.yaml"
    notes.write_text("notes:\n"
                     "  - {rule: t-scale, platforms: [local], class: by construction, why: 'step_percent: 20'}\n"
                     "  - {rule: t-scale, class: design differs, why: 'a 6 s window, the study 10 s'}\n")
    d = rules.load_designs(doc, notes)
    assert rules.design_class(d, "t-scale", ["local"]) == "by construction: step_percent: 20; design differs: a 6 s window, the study 10 s"
    assert rules.design_class(d, "t-scale", ["openfaas"]) == "design differs: a 6 s window, the study 10 s"
    up = {"f/autoscale": [{"scaling": {"first_scale_up_s": 4, "max_replicas": 3,
                                       "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    rows = rules._rule_rows(doc["rules"][0], [make_run(tmp_path, "l", up), make_run(tmp_path, "o", up, platform="openfaas")], d)
    assert rows[0].endswith("| **reproduces** | by construction: step_percent: 20; design differs: a 6 s window, the study 10 s |")
    assert rows[1].endswith("| **reproduces** | design differs: a 6 s window, the study 10 s |")
    for bad, msg in (("{rule: nope, class: by construction, why: x}", "rule 'nope' is not registered"),
                     ("{rule: t-scale, class: lucky, why: x}", "class 'lucky' is not one of"),
                     ("{rule: t-scale, class: design differs, why: ''}", "why is empty"),
                     ("{rule: t-scale, platforms: [knative], class: design differs, why: x}", "platforms .* are not among")):
        notes.write_text(f"notes:\n  - {bad}\n")
        with pytest.raises(rules.RuleError, match=msg):
            rules.load_designs(doc, notes)


def test_the_design_notes_load():
    d = rules.load_designs(DOC)
    assert d and all(c in rules.DESIGN_CLASSES for notes in d.values() for _, c, _ in notes)


def test_an_amendment_follows_its_rule_labelled_post_hoc(tmp_path):
    head = "seeds: {'003': {file: x, sha256: y}}\nrules:\n"
    rule = "  - {{id: {id}, seed: '003', figure: f, quote: q, claim: c, spec: s, platforms: [local],{extra}\n     figures: {{a: {{cell: k, metric: m}}}}, checks: [{{every: 'a > 1'}}]}}\n"
    f = tmp_path / "rules.yaml"
    f.write_text(head + rule.format(id="a", extra="") + rule.format(id="b", extra="") + rule.format(id="a2", extra=" amends: a,"))
    doc = rules.load(f)
    assert [r["id"] for r in rules.in_table_order(doc["rules"])] == ["a", "a2", "b"]
    row = rules._rule_rows(dict(doc["rules"][2], quote={"line": 1, "text": "q"}), [], {})[0]
    assert row.startswith("| `a2` post hoc amendment of `a`: f |")
    for extra, msg in ((" amends: zz,", "amends 'zz', which is not a rule registered before it"),
                       (" amends: c,", "amends 'c', which is not a rule registered before it")):
        f.write_text(head + rule.format(id="a", extra="") + rule.format(id="c", extra=extra))
        with pytest.raises(rules.RuleError, match=msg):
            rules.load(f)


def _git(*args):
    return subprocess.run(["git", "-C", str(rules.ROOT), *args], capture_output=True, text=True)


def _history_or_skip():
    if shutil.which("git") is None or not (rules.ROOT / ".git").exists():
        pytest.skip("no git history here")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        pytest.skip("a shallow clone: the rules file's history is not here")


def first_registered(path="docs/reproductions/rules.yaml"):
    """rule id -> (commit, hash) of the first version of the rules file that holds it and loads (a version
    that does not load could not have a run made under it: scripts/repro/run.py loads the file first)."""
    log = _git("log", "--reverse", "--format=%H", "--", path).stdout.split()
    first = {}
    for c in log:
        text = _git("show", f"{c}:{path}").stdout
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as tmp:
            tmp.write(text)
            tmp.flush()
            try:
                doc = rules.load(tmp.name)
                hashes = {r["id"]: rules.rule_hash(r) for r in doc["rules"]}
            except (rules.RuleError, TypeError, yaml.YAMLError):
                continue
        for rid, h in hashes.items():
            first.setdefault(rid, (c, h))
    return first


def test_registered_rules_are_never_edited():
    """Append-only: every rule is as it was first committed. A change is a new rule with amends:."""
    _history_or_skip()
    first = first_registered()
    changed = [f"{r['id']} (first registered in {first[r['id']][0][:12]})" for r in DOC["rules"]
               if r["id"] in first and rules.rule_hash(r) != first[r["id"]][1]]
    assert changed == [], "registered rules edited; restore them and add an amendment (amends: ID) instead: " + ", ".join(changed)



def test_the_counts_take_each_rules_latest_run_per_platform(tmp_path):
    """The counts table: a rule's latest run on each platform counts once (an earlier failing run does not), a
    platform with no run counts as not yet judged, and a judged verdict counts under each of its classes."""
    rule = dict(SCALE, id="t-count", platforms=["local", "openfaas", "nuclio"])
    doc = {"rules": [rule]}
    up = {"f/autoscale": [{"scaling": {"first_scale_up_s": 4, "max_replicas": 3,
                                       "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    slow = {"f/autoscale": [{"scaling": {"first_scale_up_s": 40, "max_replicas": 3,
                                         "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    labels = {"faasbench.dev/rule": "t-count"}
    runs = [make_run(tmp_path, "a-local", up, labels), make_run(tmp_path, "b-openfaas-old", slow, labels, platform="openfaas"),
            make_run(tmp_path, "c-openfaas-new", up, labels, platform="openfaas")]
    for run in runs:
        run.rules = [("t-count", rules.rule_hash(rule))]
    designs = {"t-count": [(["local"], "by construction", "x"), (None, "design differs", "y")]}
    c = rules.counts(doc, runs, designs)
    assert c["local"]["reproduces"] == 1 and c["local"]["by construction"] == 1 and c["local"]["design differs"] == 1
    assert c["openfaas"]["reproduces"] == 1 and c["openfaas"]["partly"] == 0 and c["openfaas"]["design differs"] == 1
    assert c["openfaas"]["measured"] == 0 and c["nuclio"]["not yet judged"] == 1 and c["nuclio"]["design differs"] == 0
    table = rules.counts_table(c)
    assert "| local | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 |" in table


def test_a_rule_not_measurable_on_a_platform_is_said_so_and_never_judged_there(tmp_path):
    """A design note "not measurable here" (one OpenWhisk invoker where the rule counts invokers): the platform's
    row says why instead of "not yet judged", counts under its own column, and a run made there anyway is listed
    but not judged; the note must name its platforms."""
    rule = dict(SCALE, id="t-nm", platforms=["local", "openwhisk"])
    doc = {"rules": [rule]}
    notes = tmp_path / "designs.yaml"
    notes.write_text("notes:\n  - {rule: t-nm, platforms: [openwhisk], class: not measurable here, why: 'one invoker'}\n")
    d = rules.load_designs(doc, notes)
    assert rules.not_measurable(d, "t-nm", "openwhisk") == "one invoker" and rules.not_measurable(d, "t-nm", "local") == ""
    assert rules.design_class(d, "t-nm", ["openwhisk"]) == ""
    up = {"f/autoscale": [{"scaling": {"first_scale_up_s": 4, "max_replicas": 3,
                                       "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    rows = rules._rule_rows(rule, [make_run(tmp_path, "l", up)], d)
    assert rows[0].endswith("| **reproduces** | measured |")
    assert rows[1].endswith("| openwhisk | no run under this rule | not measurable here: one invoker | not measurable here |  |")
    labels = {"faasbench.dev/rule": "t-nm"}
    runs = [make_run(tmp_path, "a", up, labels), make_run(tmp_path, "b", up, labels, platform="openwhisk")]
    rows = rules._rule_rows(rule, runs, d)
    assert "not measurable here (docs/reproductions/designs.yaml), so not read: one invoker | not judged | not judged |" in rows[1]
    for run in runs:
        run.rules = [("t-nm", rules.rule_hash(rule))]
    c = rules.counts(doc, runs[:1], d)
    assert c["openwhisk"]["not measurable here"] == 1 and c["openwhisk"]["not yet judged"] == 0
    assert c["local"]["reproduces"] == 1
    for bad in ("{rule: t-nm, class: not measurable here, why: x}", "{rule: t-nm, platforms: [], class: not measurable here, why: x}"):
        notes.write_text(f"notes:\n  - {bad}\n")
        with pytest.raises(rules.RuleError, match="names the platforms it is about"):
            rules.load_designs(doc, notes)


# Known answers the operator sweep (make mutate-py) found unpinned: each seen failing on its mutant by hand.

def test_a_run_names_its_rules_with_fewer_hashes(tmp_path):
    r = make_run(tmp_path, "two-rules", {}, labels={"rule": "a,b", "rule_sha256": "x"})
    assert r.rules == [("a", "x"), ("b", "")]


def test_a_where_sees_numbers_only():
    c = {"key": "k", "samples": [{"ok": True, "n": 1, "name": "x"}, {"ok": False, "n": 2, "name": "y"}]}
    assert rules.metric(c, "samples.*.n|sum", "r", where="n >= 2") == 2
    for where in ("ok == 1", "name == 1"):  # a boolean or a string is no number to compare
        with pytest.raises(rules.RuleError, match="unknown name"):
            rules.metric(c, "samples.*.n|sum", "r", where=where)


@pytest.mark.parametrize("cell", [{"key": "k", "a": {"b": [1, 2]}}, {"key": "k", "a": float("nan")}])
def test_a_list_or_nan_is_no_value(cell):
    with pytest.raises(rules.RuleError, match="has no value"):
        rules.metric(cell, "a.b" if isinstance(cell["a"], dict) else "a", "r")


def test_fmt_writes_a_thousand_whole():
    assert [rules._fmt(v) for v in (999.4, 1000, 1234.5, 0.01234)] == ["999", "1000", "1234", "0.0123"]


def test_amendments_follow_their_rule_in_order():
    rs = [{"id": "a"}, {"id": "b"}, {"id": "a2", "amends": "a"}, {"id": "b2", "amends": "b"}, {"id": "a3", "amends": "a"}]
    assert [r["id"] for r in rules.in_table_order(rs)] == ["a", "a2", "a3", "b", "b2"]


def test_a_doc_needs_both_markers():
    for text in (rules.BEGIN + "\nonly the beginning\n", "only the end\n" + rules.END):
        with pytest.raises(rules.RuleError, match="markers"):
            rules.doc_with_section(text, "x")


# Campaigns (issue 62): a comparison is judged from one campaign's runs only.

CMP = {"id": "t-cmp", "platforms": ["nuclio", "knative"],
       "figures": {"nu": {"platform": "nuclio", "cell": "k", "metric": "throughput_rps"},
                   "kn": {"platform": "knative", "cell": "k", "metric": "throughput_rps"}},
       "checks": [{"name": "Nuclio ahead", "every": "nu > kn"}]}


def camp_run(tmp_path, name, platform, vals, rnd=None, campaign="20261201T180000Z", commit="abc1234"):
    labels = {"rule": "t-cmp"}
    if rnd is not None:
        labels.update(campaign=campaign, campaign_round=str(rnd))
    return make_run(tmp_path, name, {"k": [{"throughput_rps": v} for v in vals]}, labels, platform=platform, commit=commit)


def test_a_campaigns_rounds_are_one_runs_repetitions_paired_by_round(tmp_path):
    # Rounds in the platforms' rotated order: round 2 ran Knative first.
    runs = [camp_run(tmp_path, "r1-nuclio", "nuclio", [9], 1), camp_run(tmp_path, "r1-knative", "knative", [5], 1),
            camp_run(tmp_path, "r2-knative", "knative", [2], 2), camp_run(tmp_path, "r2-nuclio", "nuclio", [3], 2),
            camp_run(tmp_path, "r3-nuclio", "nuclio", [10], 3), camp_run(tmp_path, "r3-knative", "knative", [11], 3)]
    us = rules.units(runs)
    assert [type(u).__name__ for u in us] == ["CampaignRun", "CampaignRun"]
    nu = next(u for u in us if u.platform == "nuclio")
    assert sorted(nu.cells()["k"]) == [101, 201, 301] and len(nu.runs) == 3
    word, res = rules.judge(CMP, {u.platform: u for u in us})
    # Paired by round: 9 > 5, 3 > 2, then 10 > 11 fails.
    assert word == "does not reproduce" and res[0][2] == "9 vs 5 / 3 vs 2 / 10 vs 11 ✗"


def test_a_comparison_is_judged_from_its_latest_whole_campaign_only(tmp_path):
    old = [camp_run(tmp_path, f"a{k}-{p}", p, [v], k, campaign="20261130T100000Z")
           for k in (1, 2) for p, v in (("nuclio", 1), ("knative", 9))]
    new = [camp_run(tmp_path, f"b{k}-{p}", p, [v], k, campaign="20261201T100000Z")
           for k in (1, 2) for p, v in (("nuclio", 9), ("knative", 1))]
    # A later campaign that ran Nuclio alone, and a separate later run: neither decides the comparison.
    lone = [camp_run(tmp_path, "c1-nuclio", "nuclio", [0], 1, campaign="20261202T100000Z"),
            camp_run(tmp_path, "d-knative", "knative", [100, 100, 100])]
    rows = rules._rows(CMP, old + new + lone, {})
    assert len(rows) == 1
    plat, cell, read, word, cls = rows[0]
    assert cell == "campaign 20261201T100000Z (abc1234): nuclio 2 rounds, knative 2 rounds"
    assert word == "**reproduces**" and cls == "measured" and read == "Nuclio ahead: 9 vs 1 / 9 vs 1 ✓"


def test_separate_runs_are_read_but_not_judged(tmp_path):
    runs = [camp_run(tmp_path, "seed-20261127T100000-nu", "nuclio", [9, 9, 9]),
            camp_run(tmp_path, "seed-20261129T100000-kn", "knative", [1, 1, 1], commit="def5678"),
            camp_run(tmp_path, "seed-20261130T100000-nu", "nuclio", [2, 2, 2]),
            camp_run(tmp_path, "seed-20261126T100000-nu", "nuclio", [0], 1)]  # an earlier campaign of Nuclio alone
    (plat, cell, read, word, cls), = rules._rows(CMP, runs, {})
    assert word == "not judged" and cls == "not judged"
    assert read.startswith("not a verdict: separate runs (2026-11-29, 2026-11-30; abc1234, def5678), no campaign ran nuclio, knative together")
    assert read.endswith("they read: Nuclio ahead: 2 vs 1 / 2 vs 1 / 2 vs 1 ✓")
    assert rules.counts({"rules": [CMP]}, runs, {})["across platforms"]["not judged"] == 1


def test_a_one_platform_rule_judges_a_campaigns_rounds_as_one_run(tmp_path):
    rule = {"id": "t-cmp", "platforms": ["local", "knative"], "figures": {"t": {"cell": "k", "metric": "throughput_rps"}},
            "checks": [{"name": "t", "every": "t > 1"}]}
    runs = [camp_run(tmp_path, f"r{k}", "knative", [v], k) for k, v in ((1, 3), (2, 4), (3, 5))]
    rows = rules._rows(rule, runs, {})
    assert [r[0] for r in rows] == ["local", "knative"]
    assert rows[1][1] == "campaign 20261201T180000Z: knative in rounds 1, 2, 3 (abc1234)" and rows[1][2] == "t: 3 / 4 / 5 ✓"


def test_a_campaign_is_one_binary_and_each_platform_once_a_round(tmp_path):
    runs = [camp_run(tmp_path, "a", "nuclio", [1], 1), camp_run(tmp_path, "b", "nuclio", [1], 1),
            camp_run(tmp_path, "c", "knative", [1], 2, commit="def5678"), camp_run(tmp_path, "d", "knative", [1], 0)]
    got = rules.campaign_problems(runs)
    assert got == ["b: campaign 20261201T180000Z round 1 on nuclio again (also a)",
                   "d: campaign 20261201T180000Z without a round (labels.campaign_round)",
                   "campaign 20261201T180000Z: runs of commits abc1234, def5678: a campaign is one binary"]
    assert rules.campaign_problems(runs[:1]) == []


def test_a_figure_over_a_zero_one_is_infinite_and_zero_over_zero_is_not_judged():
    """`http / fork >= 10` means http >= 10 × fork: a forking mode that served nothing in a repetition meets it
    (issue 62: OpenFaaS's Fig 4 was "not judged" for it); 0 / 0 says nothing and stays unreadable."""
    assert rules.evaluate("http / fork >= 10", {"http": 384.8, "fork": 0.0}) is True
    assert rules.evaluate("fork / http < 0.1", {"http": 384.8, "fork": 0.0}) is True
    assert rules.evaluate("-a / b < 0", {"a": 2, "b": 0}) is True
    with pytest.raises(rules.RuleError, match="a figure it divides by is 0"):
        rules.evaluate("a / b > 1", {"a": 0, "b": 0})
    assert rules._fmt(math.inf) == "inf"


def test_a_withdrawn_run_is_listed_read_by_no_check_and_counted_nowhere(tmp_path):
    """A run with withdrawn.txt (seed 004's memory quotas measured beside a backlog) is a row saying why, not
    judged; the counts take the rule's run before it, or count the rule as not yet judged without one (an earlier
    run's verdict is never replaced by a withdrawn one's)."""
    rule = dict(SCALE, id="t-wd", platforms=["openwhisk", "nuclio"])
    doc = {"rules": [rule]}
    up = {"f/autoscale": [{"scaling": {"first_scale_up_s": 4, "max_replicas": 3,
                                       "samples": [{"t": 0, "desired": 1}, {"t": 2, "desired": 3}]}}] * 3}
    runs = [make_run(tmp_path, "a-ow", up, platform="openwhisk"), make_run(tmp_path, "b-ow", up, platform="openwhisk"),
            make_run(tmp_path, "c-nu", up, platform="nuclio")]
    for name in ("b-ow", "c-nu"):
        (tmp_path / name / rules.WITHDRAWN).write_text("the cells before\nleft a backlog\n")
    runs = [rules.Run(tmp_path / r.dir.name) for r in runs]
    for run in runs:
        run.rules = [("t-wd", rules.rule_hash(rule))]
    rows = rules._rows(rule, runs, {})
    assert rows[1] == ("openwhisk", "b-ow (abc1234), withdrawn", "withdrawn (withdrawn.txt): the cells before left a backlog",
                       "not judged", "not judged"), rows
    assert rows[0][3] == "**reproduces**" and rows[2][1].endswith(", withdrawn")
    c = rules.counts(doc, runs, {})
    assert c["openwhisk"]["reproduces"] == 1 and c["openwhisk"]["not judged"] == 0
    assert c["nuclio"]["not yet judged"] == 1 and sum(c["nuclio"][v] for v in rules.VERDICTS) == 1


def test_a_repetition_the_run_marked_invalid_is_left_out_and_said(tmp_path):
    # The steal (or the generator's lag) marks a cell valid: false: its repetition is read by no check, and said
    # beside the detail with the run's reason; here it is the one that would fail the rule.
    bad = {"throughput_rps": 100, "valid": False, "warnings": ["invalid: second 2: the hypervisor stole 5.4% of CPU time (threshold 5.0%)"]}
    run = make_run(tmp_path, "a", {"f/workers=1": [{"throughput_rps": 100}, {"throughput_rps": 100}, bad],
                                   "f/workers=4": [{"throughput_rps": 250}, {"throughput_rps": 260, "valid": True}, {"throughput_rps": 120}]})
    word, res = rules.judge(RULE, {"*": run})
    assert word == "reproduces", res
    assert res[0][2] == ("2.5 / 2.6 ✓ (left out, the run marked them invalid: f/workers=1 r3 "
                         "(second 2: the hypervisor stole 5.4% of CPU time (threshold 5.0%)))"), res
    # median: and ranges: read the valid repetitions only as well
    med = dict(RULE, checks=[{"name": "m", "median": "w4 / w1 >= 2"}, {"name": "r", "ranges": "w4.lo > w1.hi"}])
    word, res = rules.judge(med, {"*": run})
    assert word == "reproduces" and res[1][2].startswith("w1 100 [100–100]; w4 255 [250–260] ✓"), res
    ok = make_run(tmp_path, "b", {"f/workers=1": [{"throughput_rps": 100}] * 3, "f/workers=4": [{"throughput_rps": 250}] * 3})
    assert rules.judge(RULE, {"*": ok})[1][0][2] == "2.5 / 2.5 / 2.5 ✓"
    # An invalid cell whose figure is null (no request succeeded: no latency) is left out too, not unreadable;
    # the same null in a valid cell still is.
    lat = dict(RULE, figures={"w1": {"cell": "f/workers=1", "metric": "latency_ms.p50"}, "w4": {"cell": "f/workers=4", "metric": "latency_ms.p50"}},
               checks=[{"name": "p50", "every": "w1 >= w4"}])
    run = make_run(tmp_path, "c", {"f/workers=1": [{"latency_ms": {"p50": 2}}] * 2 + [{"latency_ms": {"p50": None}, "valid": False, "warnings": ["no request succeeded", "1 of 1 requests failed (100.00%)"]}],
                                   "f/workers=4": [{"latency_ms": {"p50": 1}}] * 3})
    assert rules.judge(lat, {"*": run})[1][0][2] == "2 vs 1 / 2 vs 1 ✓ (left out, the run marked them invalid: f/workers=1 r3 (no request succeeded))"
    run = make_run(tmp_path, "d", {"f/workers=1": [{"latency_ms": {"p50": 2}}] * 2 + [{"latency_ms": {"p50": None}}],
                                   "f/workers=4": [{"latency_ms": {"p50": 1}}] * 3})
    with pytest.raises(rules.RuleError, match="has no value"):
        rules.judge(lat, {"*": run})


def test_a_check_with_half_its_repetitions_invalid_is_not_judged(tmp_path):
    # Two repetitions of three left out (each figure's cell invalid in a different one): one valid is too few.
    run = make_run(tmp_path, "a", {"f/workers=1": [{"throughput_rps": 100}, {"throughput_rps": 100, "valid": False}, {"throughput_rps": 100}],
                                   "f/workers=4": [{"throughput_rps": 250, "valid": False}, {"throughput_rps": 250}, {"throughput_rps": 250}]})
    with pytest.raises(rules.RuleError, match=r"1 of 3 repetitions valid, too few to judge \(invalid: f/workers=4 r1, f/workers=1 r2\)"):
        rules.judge(RULE, {"*": run})
    r = dict(RULE, seed=3, claim="x", study={"line": 1, "quote": "q"})
    assert rules._judged(r, {"*": run}, {}, ["local"])[1:] == ("not judged", "not judged")
    one = make_run(tmp_path, "b", {"f/workers=1": [{"throughput_rps": 100}], "f/workers=4": [{"throughput_rps": 250, "valid": False}]})
    with pytest.raises(rules.RuleError, match="0 of 1 repetitions valid"):
        rules.judge(RULE, {"*": one})
