"""deploy/cgroup2/failed-steps.sh: a failed step in the cgroup v2 guest fails the phase, whatever its name."""
import pathlib
import subprocess

SCRIPT = pathlib.Path(__file__).resolve().parent / "failed-steps.sh"


def verdict(console):
    r = subprocess.run([str(SCRIPT)], input=console, capture_output=True, text=True)
    return r.returncode, r.stderr


def test_every_step_passed():
    assert verdict("FBGUEST rc cgroup 0 (12 s)\nFBGUEST rc local 0 (40 s)\nFBGUEST done in 60 s\n") == (0, "")


def test_a_failed_step_named_with_a_dash_or_a_digit_fails():
    # The check before this one matched only names of letters, so mount-9p failing passed the phase.
    code, err = verdict("FBGUEST rc mount-9p 1\nFBGUEST rc cgroup2 0 (3 s)\nFBGUEST rc local.test 2 (5 s)\nFBGUEST done\n")
    assert code == 1
    assert "mount-9p (exit 1)" in err and "local.test (exit 2)" in err and "cgroup2" not in err


def test_a_line_the_console_interleaved_still_counts():
    code, err = verdict("[   12.1] random: crng initFBGUEST rc leftovers 1\nFBGUEST done\n")
    assert code == 1 and "leftovers (exit 1)" in err


def test_no_step_reported_fails():
    code, err = verdict("FBGUEST kernel 6.12\nFBGUEST done\n")
    assert code == 1 and "no step reported" in err
