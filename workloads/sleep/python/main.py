"""sleep: waits ?ms=N milliseconds (default 100), then answers (seed 003's queueing and autoscaling)."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

MAX_MS = 600_000


def handle(req: fbrt.Request) -> bytes:
    ms = int(req.query.get("ms", "100"))
    if not 0 <= ms <= MAX_MS:
        raise ValueError(f"ms={ms}: want 0..{MAX_MS}")
    time.sleep(ms / 1000)
    return f"slept {ms} ms".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
