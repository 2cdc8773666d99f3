"""spin in Python: it spins for at least the time asked, and the memory it is asked to touch becomes resident
(its peak RSS rises over the RSS before it by the memory touched; a zeroed bytearray alone would not raise it); bad parameters are function errors."""
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent

RUN = """
import importlib.util, sys, time
sys.path.insert(0, sys.argv[1] + "/../../runtime/python")
import fbrt
spec = importlib.util.spec_from_file_location("spin", sys.argv[1] + "/main.py")
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
import os
before = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024  # resident now, KiB
start = time.perf_counter()
out = mod.handle(fbrt.Request("GET", "/", {"ms": sys.argv[2], "mb": sys.argv[3]}, {}, b""))
took = time.perf_counter() - start
# The peak of this process image (VmHWM): ru_maxrss would carry the forking pytest's peak across exec.
peak = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1])
print(out.decode(), took, peak - before, sep="|")
"""


def run(ms, mb):
    out = subprocess.run([sys.executable, "-c", RUN, str(HERE / "python"), str(ms), str(mb)], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    answer, took, grew_kb = out.split("|")
    return answer, float(took), int(grew_kb)


def test_spins_and_touches_memory():
    answer, _, grew_kb = run(0, 64)
    assert answer == "spun 0 ms, touched 64 MB"
    # Against the same call with no memory: the interpreter's own peak before the call cancels out.
    answer0, _, grew0_kb = run(0, 0)
    assert answer0 == "spun 0 ms, touched 0 MB"
    assert grew_kb - grew0_kb >= 60 * 1024, f"peak RSS grew {grew_kb} KiB for 64 MB touched, {grew0_kb} KiB for none"
    answer, took, _ = run(300, 0)
    assert answer == "spun 300 ms, touched 0 MB" and took >= 0.3


@pytest.mark.parametrize("ms,mb", [("-1", "0"), ("x", "0"), ("0", "4097"), ("600001", "0")])
def test_bad_parameters_are_refused(ms, mb):
    sys.path.insert(0, str(HERE.parent / "runtime" / "python"))
    import importlib.util

    import fbrt
    spec = importlib.util.spec_from_file_location("spin_bad", HERE / "python" / "main.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(ValueError):
        mod.handle(fbrt.Request("GET", "/", {"ms": ms, "mb": mb}, {}, b""))
