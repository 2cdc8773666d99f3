"""Tests of deploy/knative/conformance_results.py on -test.v output shaped as Knative's suites print it
(parallel tests interleaved, subtests' verdicts indented, skips with their reason)."""

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import conformance_results as cr  # noqa: E402

LOG = """=== RUN   TestA
=== PAUSE TestA
=== RUN   TestB
=== PAUSE TestB
=== CONT  TestA
    a_test.go:10: making a service
=== CONT  TestB
    b_test.go:20: Skipping for local docker repo
--- SKIP: TestB (0.00s)
=== RUN   TestA/sub
    a_test.go:30: got 503, want 200
    a_test.go:31: second line
--- FAIL: TestA (2.50s)
    --- FAIL: TestA/sub (1.25s)
=== RUN   TestC
--- PASS: TestC (0.10s)
FAIL
"""


def test_parse_attributes_reasons_to_interleaved_tests():
    got = cr.parse(LOG.splitlines(True))
    assert got == [
        ("TestB", "SKIP", 0.0, "Skipping for local docker repo"),
        ("TestA", "FAIL", 2.5, "making a service"),
        ("TestA/sub", "FAIL", 1.25, "got 503, want 200"),
        ("TestC", "PASS", 0.1, ""),
    ]


def run(tmp_path, log, known, code):
    (tmp_path / "log").write_text(log)
    (tmp_path / "known").write_text(known)
    p = subprocess.run([sys.executable, cr.__file__, "s", str(tmp_path / "log"), str(tmp_path / "known"),
                        str(tmp_path / "out.tsv"), str(code), "7"], capture_output=True, text=True)
    return p.returncode, p.stdout.strip().split("\t"), p.stderr, (tmp_path / "out.tsv").read_text()


def test_an_unknown_failure_fails(tmp_path):
    code, summary, err, _ = run(tmp_path, LOG, "", 1)
    assert code == 1 and summary == ["s", "1", "2", "0", "1", "7", "1"]
    assert "TestA/sub failed and is not in the known list" in err


def test_known_failures_are_reported_not_counted(tmp_path):
    code, summary, err, tsv = run(tmp_path, LOG, "s\tTestA\twhy A\ns\tTestA/sub\twhy sub\nother\tTestC\tx\n", 1)
    assert code == 0, err
    assert summary == ["s", "1", "0", "2", "1", "7", "1"]
    assert "TestA/sub\tFAIL (known)\t1.25\twhy sub\n" in tsv


def test_a_known_failure_that_passes_fails(tmp_path):
    code, _, err, _ = run(tmp_path, LOG, "s\tTestA\ta\ns\tTestA/sub\tb\ns\tTestC\tc\n", 1)
    assert code == 1 and "TestC is listed as known to fail, but passed" in err


def test_a_non_zero_exit_without_a_failing_test_fails(tmp_path):
    code, _, err, _ = run(tmp_path, "=== RUN   TestC\n--- PASS: TestC (0.10s)\npanic: boom\n", "", 2)
    assert code == 1 and "exited 2 with no failing test" in err


def test_nothing_run_fails(tmp_path):
    code, _, err, _ = run(tmp_path, "flag provided but not defined: -x\n", "", 0)
    assert code == 1 and "no test ran" in err


def test_a_bad_known_line_names_the_file_and_line(tmp_path):
    (tmp_path / "known").write_text("# comment\ns\tonly two\n")
    with pytest.raises(ValueError, match="known:2"):
        cr.known_failures(str(tmp_path / "known"), "s")


def test_a_flaky_test_may_pass_or_fail(tmp_path):
    known = "s\tTestA\tflaky: sometimes\ns\tTestA/sub\tflaky: sometimes\ns\tTestC\tflaky: sometimes\n"
    code, summary, err, _ = run(tmp_path, LOG, known, 1)
    assert code == 0, err
    assert summary == ["s", "1", "0", "2", "1", "7", "1"]
