"""Deterministic mode (`lp run --seed N`, what `lp test` uses) against the normal scheduler on
one domain, on the bench/lp programs: wall time of each run minus an empty program's, best of
--repeat runs, and the ratio; then how long a program that sleeps ten minutes takes under --seed.
--native compares a built binary's `--seed N` with its `--domains 1` instead.
Prints figures; never fails on speed.

    python bench/lp/deterministic.py [--only NAME ...] [--repeat R] [--seed N] [--native]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = ["ping_pong", "ring", "counting", "skynet", "fib"]


def wall(cmd, repeat):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True)
        t = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed: {r.stderr.decode()[-500:]}")
        best = t if best is None else min(best, t)
    return best


def interpreted(name):
    """The command that runs bench/lp/NAME.lp with extra arguments on the interpreter."""
    return lambda *args: [sys.executable, "-m", "lp", "run", "--no-check", *args, str(HERE / f"{name}.lp")]


def built(name, out_dir):
    """NAME.lp built with `lp build`; the command that runs the binary with extra arguments."""
    exe = Path(out_dir) / name
    r = subprocess.run([sys.executable, "-m", "lp", "build", str(HERE / f"{name}.lp"), "-o", str(exe)],
                       capture_output=True)
    if r.returncode != 0:
        sys.exit(f"lp build {name}.lp failed: {r.stderr.decode()[-500:]}")
    return lambda *args: [str(exe), *args]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=PROGRAMS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--native", action="store_true", help="built binaries instead of the interpreter")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out_dir:
        command = (lambda name: built(name, out_dir)) if a.native else interpreted
        empty = command("empty")
        base_normal = wall(empty("--domains", "1"), a.repeat)
        base_det = wall(empty("--seed", a.seed), a.repeat)
        print(f"{'program':<10} {'1 domain s':>11} {'--seed s':>9} {'det/normal speed':>17}")
        for name in a.only:
            run = command(name)
            normal = wall(run("--domains", "1"), a.repeat) - base_normal
            det = wall(run("--seed", a.seed), a.repeat) - base_det
            print(f"{name:<10} {normal:>11.2f} {det:>9.2f} {normal / det:>17.2f}")
        slept = wall(command("sleep_10min")("--seed", a.seed), a.repeat) - base_det
        print(f"sleep_10min.lp under --seed: {slept:.2f} s beyond an empty program (10 minutes of virtual time)")


if __name__ == "__main__":
    main()
