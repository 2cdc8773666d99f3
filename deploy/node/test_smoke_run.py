"""deploy/node/smoke-run.sh: faasbench's exit 3 is forgiven when the hypervisor's steal alone made every cell invalid
(check-run --starved), and only then; other exits pass through. A stand-in for deploy/node/exec.sh writes the run
directory faasbench would have and exits as it would."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
STOLE = "invalid: second 0: the hypervisor stole 14.9% of CPU time (threshold 5.0%)"


def stand_in(tmp_path, code, reasons):
    """A stand-in exec that writes one run under --results whose cells are invalid for reasons, exit code."""
    manifest = {"status": "failed" if code == 3 else "complete", "error": "nothing valid was measured: no cell of 1 is valid" if code == 3 else ""}
    summary = {"cells": [{"id": "hello-go/c=1/r=1", "valid": not reasons, "warnings": reasons}]}
    script = tmp_path / "exec.sh"
    script.write_text(f"""#!/usr/bin/env bash
[ "$1 $2 $3" = "bin/faasbench run spec.yaml" ] || {{ echo "stand-in: called with $*" >&2; exit 99; }}
while [ $# -gt 0 ]; do [ "$1" = --results ] && results=$2; shift; done
mkdir -p "$results/r1"
echo '{json.dumps(manifest)}' > "$results/r1/manifest.json"
echo '{json.dumps(summary)}' > "$results/r1/summary.json"
exit {code}
""")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("code,reasons,want", [
    (3, [STOLE], 0),
    (3, [STOLE, "invalid: generator lag p99 40ms exceeds 10ms: requests were sent late"], 3),
    (3, ["invalid: the generator sent 10 of 20 scheduled requests"], 3),
    (1, [], 1),
    (0, [], 0),
])
def test_steal_alone_is_forgiven(tmp_path, code, reasons, want):
    env = dict(os.environ, FB_NODE_EXEC=stand_in(tmp_path, code, reasons))
    r = subprocess.run([str(ROOT / "deploy/node/smoke-run.sh"), "spec.yaml", "--set", "x=1", "--results", str(tmp_path / "runs")],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == want, r.stderr
    assert ("hypervisor's steal made every cell invalid" in r.stderr) == (code == 3 and want == 0), r.stderr


def test_no_results_is_refused(tmp_path):
    env = dict(os.environ, FB_NODE_EXEC=stand_in(tmp_path, 0, []))
    r = subprocess.run([str(ROOT / "deploy/node/smoke-run.sh"), "spec.yaml"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2 and "no --results DIR" in r.stderr
