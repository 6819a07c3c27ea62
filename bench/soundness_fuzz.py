"""Longer soundness fuzzing run: python bench/soundness_fuzz.py [PROGRAMS] [SEED].

Prints every accepted program that fails at run time with a type error, and counts.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.soundness.gen import Gen  # noqa: E402
from tests.soundness.runner import outcome  # noqa: E402


def main(n: int, seed: int) -> int:
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    start = time.time()
    for _ in range(n):
        src = Gen(lambda options: rng.choice(list(options))).program()
        kind, detail = outcome(src)
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "unsound":
            print(f"==== accepted, then failed:\n{src}{detail}")
    print(f"seed {seed}: {counts} in {time.time() - start:.1f} s")
    return 1 if counts.get("unsound") else 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    sd = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 32)
    sys.exit(main(n, sd))
