"""payload: receives a body, does nothing with it, says how many bytes came (seed 004)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402


def handle(req: fbrt.Request) -> bytes:
    return f"received {len(req.body)} bytes".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
