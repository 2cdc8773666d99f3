"""prime: by trial division, the n-th prime (kind=nth, seed 004), or the largest prime <= n found as
seed 002 did, testing every number from 2 to n in turn (kind=scan: the cost grows with n), or by
searching down from n (kind=largest: the first prime found ends it)."""

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
    kind = req.query.get("kind", "nth")
    if kind not in ("nth", "largest", "scan"):
        raise ValueError(f"kind={kind}: want nth, largest or scan")
    if kind == "scan":
        largest = 0
        for k in range(2, n + 1):
            if is_prime(k):
                largest = k
        return str(largest).encode()
    if kind == "largest":
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
