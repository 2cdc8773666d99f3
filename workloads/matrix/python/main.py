"""matrix: multiply two seeded n x n matrices (seed 004); ?ram=K holds K more numbers meanwhile."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))

import fbrt  # noqa: E402

MAX_N = 2000
MAX_RAM = 100_000_000


def cell(i: int, j: int, which: int) -> int:
    """A deterministic small integer: the same matrices in every language."""
    return (i * 31 + j * 17 + which * 7) % 10


def handle(req: fbrt.Request) -> bytes:
    n = int(req.query.get("n", "50"))
    ram = int(req.query.get("ram", "0"))
    if not 1 <= n <= MAX_N or not 0 <= ram <= MAX_RAM:
        raise ValueError(f"n={n} ram={ram}: want 1..{MAX_N} and 0..{MAX_RAM}")
    held = [0] * ram  # the RAM loader: kept alive until the answer is ready
    a = [[cell(i, j, 0) for j in range(n)] for i in range(n)]
    b = [[cell(i, j, 1) for j in range(n)] for i in range(n)]
    bt = list(zip(*b))
    total = 0
    for row in a:
        for col in bt:
            total += sum(x * y for x, y in zip(row, col))
    return f"{total} {len(held)}".encode()


if __name__ == "__main__":
    fbrt.serve(handle)
