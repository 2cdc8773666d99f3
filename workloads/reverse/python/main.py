"""reverse: answers the request body reversed (seed 000's byte-reversal function)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402


def handle(req: fbrt.Request) -> bytes:
    return req.body[::-1]


if __name__ == "__main__":
    fbrt.serve(handle)
