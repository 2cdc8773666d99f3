"""Tests of means.py on summaries with a known answer."""
import json
import math

import means


def cell(fn, payload, mean, geo, harm, reps=1):
    return {"function": fn, "replicas": 1, "repetition": reps,
            "params": [{"name": "replicas", "value": "1"}, {"name": "payload_size", "value": str(payload)}],
            "success_latency_ms": {"count": 2, "mean": mean, "geo_mean": geo, "harm_mean": harm}}


def test_means_of_a_two_valued_cell(tmp_path, capsys):
    # Latencies 1 ms and 4 ms with a 1 MiB payload: per-request MiB/s 1000 and 250, so
    # Mean 625, Gmean 500, Hmean 400; the latency's means: 2.5 (arithmetic), 2 (geometric), 1.6 (harmonic).
    s = {"cells": [cell("reverse-go", 2**20, 2.5, 2.0, 1.6), cell("reverse-go", 2**20, 2.5, 2.0, 1.6, reps=2),
                   cell("reverse-cpp", 2**20, 1.0, 1.0, 1.0)]}
    p = tmp_path / "summary.json"
    p.write_text(json.dumps(s))
    assert means.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| reverse-go"))
    cols = [c.strip() for c in row.strip("|").split("|")]
    assert [float(x) for x in cols[3:6]] == [625, 500, 400]
    assert math.isclose(float(cols[6]), 0.8) and math.isclose(float(cols[7]), 0.64)
    assert "reverse-go: 1 of 1 payloads with a mean below 90 %" in out
    assert "reverse-cpp: 0 of 1 payloads" in out


def test_no_arguments_is_a_usage_error():
    assert means.main([]) == 2
