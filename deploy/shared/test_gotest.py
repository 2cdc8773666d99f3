"""deploy/shared/gotest.sh: a real-tier Go test binary passes its phase only when a test ran and passed."""
import pathlib
import subprocess

SCRIPT = pathlib.Path(__file__).resolve().parent / "gotest.sh"


def run(output, code=0, args=("-test.v",)):
    fake = ["bash", "-c", f"printf '%s' \"$0\"; exit {code}", output]
    r = subprocess.run([str(SCRIPT), *fake, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def test_a_test_that_ran_and_passed_passes():
    code, out, _ = run("=== RUN   TestRealX\n--- PASS: TestRealX (1.00s)\nPASS\n")
    assert code == 0 and "--- PASS: TestRealX" in out


def test_a_filter_that_matches_nothing_fails():
    code, _, err = run("testing: warning: no tests to run\nPASS\n")
    assert code == 1 and "no test ran" in err


def test_no_pass_line_fails():
    code, _, err = run("PASS\n")
    assert code == 1 and "no test ran" in err


def test_a_failing_binary_keeps_its_exit_code():
    code, out, _ = run("--- FAIL: TestRealX (0.10s)\nFAIL\n", code=3)
    assert code == 3 and "--- FAIL" in out


def test_without_verbose_it_refuses():
    code, _, err = run("--- PASS: TestRealX\n", args=())
    assert code == 2 and "-test.v" in err
