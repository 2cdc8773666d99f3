"""deploy/node/events.py: a run's events (by their last time, either kind of event) and the pods that restarted."""
import json

import pytest

import events


def ev(name, reason, last=None, event_time=None, count=None, msg="m"):
    e = {"involvedObject": {"kind": "Pod", "name": name, "namespace": "kubeless"}, "type": "Warning", "reason": reason, "message": msg}
    if last:
        e["lastTimestamp"] = last
    if event_time:
        e["eventTime"] = event_time
    if count:
        e["count"] = count
    return e


def test_only_the_runs_events_oldest_first():
    items = [ev("b", "Unhealthy", last="2026-12-02T01:00:05Z", count=7, msg="Liveness probe failed:\n  timeout"),
             ev("a", "Killing", last="2026-12-02T00:59:00Z"),  # before the run
             ev("c", "Scheduled", event_time="2026-12-02T01:00:01.123456Z")]  # the scheduler's: eventTime only
    lines = events.event_lines({"items": items}, "2026-12-02T01:00:00Z")
    assert lines == ["2026-12-02T01:00:01Z kubeless Pod/c Warning Scheduled x1: m",
                     "2026-12-02T01:00:05Z kubeless Pod/b Warning Unhealthy x7: Liveness probe failed: timeout"]


def test_restarted_pods_say_how_their_last_run_ended():
    pods = {"items": [
        {"metadata": {"namespace": "default", "name": "fn-1"}, "status": {"containerStatuses": [
            {"name": "fn", "restartCount": 2, "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "T"}}},
            {"name": "sidecar", "restartCount": 0}]}},
        {"metadata": {"namespace": "default", "name": "fn-2"}, "status": {"containerStatuses": [{"name": "fn", "restartCount": 0}]}}]}
    assert events.restart_lines(pods) == ["default/fn-1 container fn: 2 restarts; the last run ended OOMKilled (exit 137) at T"]


def test_kills_are_read_from_the_events_even_when_the_pods_are_gone():
    items = [ev("fn-1", "Killing", last="2026-12-02T01:00:05Z", count=2, msg="Container fn failed liveness probe, will be restarted"),
             ev("fn-1", "Killing", last="2026-12-02T01:02:00Z", msg="Container fn failed liveness probe, will be restarted"),
             ev("fn-2", "Killing", last="2026-12-02T01:03:00Z", msg="Stopping container fn"),  # a deletion: not counted
             ev("fn-3", "OOMKilling", event_time="2026-12-02T01:01:00.5Z", msg="Memory cgroup out of memory"),
             ev("fn-4", "Killing", last="2026-12-02T00:59:00Z", msg="Container fn failed liveness probe, will be restarted")]  # before
    assert events.killed_lines({"items": items}, "2026-12-02T01:00:00Z") == [
        "kubeless/fn-1 Killing x3 from 2026-12-02T01:00:05Z to 2026-12-02T01:02:00Z: Container fn failed liveness probe, will be restarted",
        "kubeless/fn-3 OOMKilling x1 from 2026-12-02T01:01:00Z to 2026-12-02T01:01:00Z: Memory cgroup out of memory"]


def test_main_writes_both_parts_and_names_a_bad_since(tmp_path, capsys):
    e, p = tmp_path / "e.json", tmp_path / "p.json"
    e.write_text(json.dumps({"items": [ev("b", "BackOff", last="2026-12-02T01:00:05Z")]}))
    p.write_text(json.dumps({"items": []}))
    assert events.main(["--since", "2026-12-02T01:00:00Z", str(e), str(p)]) == 0
    out = capsys.readouterr().out
    assert "# the cluster's events since 2026-12-02T01:00:00Z (1)" in out and "Pod/b Warning BackOff" in out
    assert "# containers ended against their will, from the events (their pods may be gone): 0 pods\n(none)" in out
    assert out.rstrip().endswith("# pods whose containers restarted (0)\n(none)")
    with pytest.raises(SystemExit) as x:
        events.main(["--since", "yesterday", str(e), str(p)])
    assert x.value.code == 2 and "--since 'yesterday'" in capsys.readouterr().err
    p.write_text("not json")
    assert events.main(["--since", "2026-12-02T01:00:00Z", str(e), str(p)]) == 1
