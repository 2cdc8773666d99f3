"""prime: the n-th prime (seed 004) or the largest prime <= n (seed 002), by trial division."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

MAX_N = 10_000_000


def is_prime(k: int) -> bool:
    if k < 2:
        return False
    d = 2
    while d * d <= k:
        if k % d == 0:
            return False
        d += 1
    return True


def handle(req: fbrt.Request) -> bytes:
    n = int(req.query.get("n", "100"))
    if not 1 <= n <= MAX_N:
        raise ValueError(f"n={n}: want 1..{MAX_N}")
    if req.query.get("kind", "nth") == "largest":
        k = n
        while k >= 2 and not is_prime(k):
            k -= 1
        return str(k if k >= 2 else 0).encode()
    count, k = 0, 1
    while count < n:
        k += 1
        if is_prime(k):
            count += 1
    return str(k).encode()


if __name__ == "__main__":
    fbrt.serve(handle)
