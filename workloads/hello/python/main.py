"""hello: answers 4 bytes and does no work (seed 002's ping, seed 003's hello-world)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402


def handle(req: fbrt.Request) -> bytes:
    return b"pong"


if __name__ == "__main__":
    fbrt.serve(handle)
