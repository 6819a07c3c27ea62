"""Crash the bank scenario of docs/reliable.md at every commit boundary in turn, then at random
points for many seeds, and check its invariants after each restart (tests/reliable/scenario.py).

    python bench/reliable/crash.py --points            # every commit boundary, one crash each
    python bench/reliable/crash.py --seeds 1000        # seeds 1..1000: random crashes, random schedules
    python bench/reliable/crash.py --seeds 100 --from 501 --jobs 2

A seed s runs the program in deterministic mode (`lp run --seed`), crashing it after a commit
chosen at random (one to three times in a row, each restart under its own schedule) and then
letting it finish. The data lives in /dev/shm when there is one (no fsync cost). Prints one line
per failing point or seed and the totals; exits 1 if an invariant broke.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.reliable.scenario import CRASHED, check, program, run  # noqa: E402

COMMITS = 110   # more than the scenario's commits: a crash point past its last commit never fires


def point(work: Path, n: int) -> tuple[bool, list[str]]:
    """Crash after commit n (real scheduler), restart, check."""
    data, prog = work / f"p{n}", work / f"p{n}.lp"
    prog.write_text(program(data))
    rc, out, err = run(prog, crash_after=n)
    if rc == 0:
        return False, check(data)
    if rc != CRASHED:
        return True, [f"exit {rc}: {err[-500:]}"]
    rc, out, err = run(prog)
    if rc != 0 or not out.endswith("DONE\n"):
        return True, [f"restart: exit {rc}: {err[-500:]}"]
    return True, check(data)


def seeded(work: Path, seed: int) -> tuple[int, list[str]]:
    """Seed s: 1 to 3 crashes at random commits, each run on its own deterministic schedule."""
    rng = random.Random(seed)
    data, prog = work / f"s{seed}", work / f"s{seed}.lp"
    prog.write_text(program(data))
    crashes = 0
    for k in range(rng.randint(1, 3)):
        rc, out, err = run(prog, crash_after=rng.randint(1, COMMITS), seed=seed * 10 + k)
        if rc == 0:
            return crashes, check(data)
        if rc != CRASHED:
            return crashes, [f"exit {rc}: {err[-500:]}"]
        crashes += 1
    rc, out, err = run(prog, seed=seed * 10 + 9)
    if rc != 0 or not out.endswith("DONE\n"):
        return crashes, [f"last run: exit {rc}: {err[-500:]}"]
    return crashes, check(data)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", action="store_true", help="crash at every commit boundary in turn")
    ap.add_argument("--seeds", type=int, default=0, help="how many seeds of random crashes")
    ap.add_argument("--from", dest="first", type=int, default=1, help="the first seed")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    shm = Path("/dev/shm")
    work = Path(tempfile.mkdtemp(prefix="lp-reliable-crash-", dir=shm if shm.is_dir() else None))
    bad = 0
    t0 = time.time()
    try:
        with ThreadPoolExecutor(a.jobs) as pool:
            if a.points:
                n, crashed = 1, 0
                while True:
                    batch = list(pool.map(lambda i: (i, *point(work, i)), range(n, n + a.jobs)))
                    for i, c, broken in batch:
                        crashed += c
                        if broken:
                            bad += 1
                            print(f"crash point {i}: {broken}", flush=True)
                    if not all(c for _, c, _ in batch):
                        break
                    n += a.jobs
                print(f"commit boundaries crashed at: {crashed}; broken: {bad}; {time.time() - t0:.0f} s", flush=True)
            if a.seeds:
                seeds = range(a.first, a.first + a.seeds)
                crashes = 0
                for s, (c, broken) in zip(seeds, pool.map(lambda s: seeded(work, s), seeds)):
                    crashes += c
                    if broken:
                        bad += 1
                        print(f"seed {s}: {broken}", flush=True)
                    if s % 50 == 0:
                        print(f"... seed {s}, {crashes} crashes, {bad} broken, {time.time() - t0:.0f} s", flush=True)
                print(f"seeds {a.first}..{a.first + a.seeds - 1}: {crashes} crashes and restarts; broken: {bad}; "
                      f"{time.time() - t0:.0f} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
