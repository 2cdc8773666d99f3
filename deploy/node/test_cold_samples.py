"""cold-samples.py pools the verified cold samples of several runs by kind and leaves the others out."""
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("cold_samples", ROOT / "deploy/node/cold-samples.py")
cold_samples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cold_samples)


def run(tmp_path, name, samples):
    d = tmp_path / name
    d.mkdir()
    (d / "summary.json").write_text(json.dumps({"cells": [{"id": "f/cold/r=1", "cold": {"samples": samples}}]}))
    return str(d)


def test_pools_verified_samples_by_kind(tmp_path, capsys):
    dirs = [run(tmp_path, f"r{i}", [{"verified": True, "kind": "specialisation", "latency_ms": float(v)}])
            for i, v in enumerate([100, 300, 200, 900, 400, 500, 600, 700, 800, 1000])]
    dirs.append(run(tmp_path, "bad", [{"verified": False, "kind": "", "latency_ms": 60000.0},
                                      {"verified": True, "kind": "pod", "latency_ms": 2000.0}]))
    kinds, unverified = cold_samples.pooled(dirs)
    assert unverified == 1 and sorted(kinds) == ["pod", "specialisation"] and len(kinds["specialisation"]) == 10
    assert cold_samples.rank(kinds["specialisation"], 0.5) == 500 and cold_samples.rank(kinds["specialisation"], 0.9) == 900
    assert cold_samples.main(dirs) == 0
    out = capsys.readouterr().out
    assert "| specialisation | 10 | 100.0 | 500.0 | 900.0 | 1000.0 |" in out and "1 unverified" in out


def test_no_verified_sample_fails(tmp_path):
    assert cold_samples.main([run(tmp_path, "r", [{"verified": False, "latency_ms": 1.0}])]) == 1
