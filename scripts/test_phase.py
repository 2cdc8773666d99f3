"""scripts/phase.sh: the phase's time and exit, and on an interrupt (a TERM to the process group, as Ctrl-C or
deploy/node/campaign.sh's stop sends one) it waits for its command to finish what it does on the signal and passes
on its exit, so that a caller's clean-up never runs under a command still at work."""
import os
import pathlib
import signal
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PHASE = str(ROOT / "scripts" / "phase.sh")


def own_phases(tmp_path):
    """An environment whose phase file is the test's own: under make test, FB_PHASES is the run's table, and these
    phases were written into it (CI's table showed 'a phase (exit 3)' and 'run (exit 143)' among make test's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("FB_PHASES", "FB_PHASE_DEPTH")}
    env["FB_PHASES"] = str(tmp_path / "phases.tsv")
    return env


def test_the_phase_prints_its_time_and_passes_on_the_exit(tmp_path):
    env = own_phases(tmp_path)
    r = subprocess.run([PHASE, "a phase", "sh", "-c", "exit 3"], capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 3
    assert r.stdout.splitlines()[0] == "==> a phase" and "==> a phase: " in r.stdout and "(exit 3)" in r.stdout
    name, secs, rc, depth, _ = (tmp_path / "phases.tsv").read_text().rstrip("\n").split("\t")
    assert (name, rc, depth) == ("a phase", "3", "0") and float(secs) >= 0
    table = subprocess.run([PHASE, "--table"], capture_output=True, text=True, timeout=30, env=env).stdout
    assert "a phase  (exit 3)" in table and "sum of the top-level phases" in table


def test_an_interrupted_phase_waits_for_its_command_to_finish(tmp_path):
    done = tmp_path / "done"
    # The command, as faasbench does, takes a moment on TERM to keep what it has, then exits 143.
    cmd = f'trap "sleep 1; echo kept > {done}; exit 143" TERM; while :; do sleep 0.1; done'
    p = subprocess.Popen([PHASE, "run", "bash", "-c", cmd], stdout=subprocess.PIPE, text=True, start_new_session=True,
                         env=own_phases(tmp_path))
    time.sleep(1.0)
    os.killpg(p.pid, signal.SIGTERM)
    out, _ = p.communicate(timeout=30)
    # phase.sh ended after its command had kept its work, with its exit, and said so.
    assert done.read_text() == "kept\n"
    assert p.returncode == 143 and "==> run: " in out and "(exit 143)" in out
