"""Deterministic mode (`lp run --seed N`, what `lp test` uses) against the normal scheduler on
one domain, on the bench/lp programs: wall time of each run minus an empty program's, best of
--repeat runs, and the ratio; then how long a program that sleeps ten minutes takes under --seed.
Prints figures; never fails on speed.

    python bench/lp/deterministic.py [--only NAME ...] [--repeat R] [--seed N]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = ["ping_pong", "ring", "counting", "skynet", "fib"]


def wall(args, repeat):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "lp", "run", "--no-check", *args], capture_output=True)
        t = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"{' '.join(args)} failed: {r.stderr.decode()[-500:]}")
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=PROGRAMS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args()
    empty = str(HERE / "empty.lp")
    base_normal = wall(["--domains", "1", empty], a.repeat)
    base_det = wall(["--seed", a.seed, empty], a.repeat)
    print(f"{'program':<10} {'1 domain s':>11} {'--seed s':>9} {'det/normal speed':>17}")
    for name in a.only:
        f = str(HERE / f"{name}.lp")
        normal = wall(["--domains", "1", f], a.repeat) - base_normal
        det = wall(["--seed", a.seed, f], a.repeat) - base_det
        print(f"{name:<10} {normal:>11.2f} {det:>9.2f} {normal / det:>17.2f}")
    slept = wall(["--seed", a.seed, str(HERE / "sleep_10min.lp")], a.repeat) - base_det
    print(f"sleep_10min.lp under --seed: {slept:.2f} s beyond an empty program (10 minutes of virtual time)")


if __name__ == "__main__":
    main()
