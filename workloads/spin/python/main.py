"""spin: keeps a core busy for ?ms=N milliseconds of wall time (default 10) and touches ?mb=M MB of memory
(default 0, every page written), then answers: the function a trace replay gives each traced
function (In-Vitro's trace function), its execution time and memory from the trace's row."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

MAX_MS = 600_000
MAX_MB = 4096


def param(req: fbrt.Request, name: str, default: int, limit: int) -> int:
    v = req.query.get(name, "")
    if v == "":
        return default
    if not v.isdigit() or int(v) > limit:
        raise ValueError(f"{name}={v!r}: want 0..{limit}")
    return int(v)


def handle(req: fbrt.Request) -> bytes:
    ms = param(req, "ms", 10, MAX_MS)
    mb = param(req, "mb", 0, MAX_MB)
    mem = bytearray(mb << 20)  # CPython zero-fills it (memset): every page is written, so resident
    end = time.perf_counter() + ms / 1000
    x = 1
    while time.perf_counter() < end:
        for _ in range(1000):
            x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
    del mem
    return f"spun {ms} ms, touched {mb} MB".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
