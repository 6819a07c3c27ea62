"""Crash the bank scenario of docs/reliable.md at every commit boundary in turn, then at random
points for many seeds, and check its invariants after each restart (tests/reliable/scenario.py).

    python bench/reliable/crash.py --points            # every commit boundary, one crash each
    python bench/reliable/crash.py --seeds 1000        # seeds 1..1000: random crashes, random schedules
    python bench/reliable/crash.py --seeds 100 --from 501 --jobs 2

A seed s runs the program in deterministic mode (`lp run --seed`), crashing it after a commit
chosen at random (one to three times in a row, each restart under its own schedule) and then
letting it finish. The program is parsed and checked once, and each run is a fork of this
process (forked.py). The data lives in /dev/shm when there is one (no fsync cost). Prints one
line per failing point or seed and the totals; exits 1 if an invariant broke.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from forked import Prepared  # noqa: E402

from tests.reliable.scenario import CRASHED, check, program  # noqa: E402

COMMITS = 160   # more than the scenario's (about 140): a crash point past its last commit never fires


def point(prog: Prepared, work: Path, n: int) -> tuple[bool, list[str]]:
    """Crash after commit n (real scheduler, 2 domains), restart, check."""
    d = work / f"p{n}"
    rc, out, err = prog.run(d, crash_after=n, domains=2)
    if rc == 0:
        return False, check(d / "data")
    if rc != CRASHED:
        return True, [f"exit {rc}: {err[-500:]}"]
    rc, out, err = prog.run(d, domains=2)
    if rc != 0 or not out.endswith("DONE\n"):
        return True, [f"restart: exit {rc}: {err[-500:]}"]
    return True, check(d / "data")


def seeded(prog: Prepared, work: Path, seed: int) -> tuple[list[int], list[str]]:
    """Seed s: 1 to 3 crashes at random commits, each run on its own deterministic schedule.
    Answers the commits crashed after (counted from the start of each run) and what broke."""
    rng = random.Random(seed)
    d = work / f"s{seed}"
    crashed = []
    for k in range(rng.randint(1, 3)):
        n = rng.randint(1, COMMITS)
        rc, out, err = prog.run(d, crash_after=n, seed=seed * 10 + k)
        if rc == 0:
            return crashed, check(d / "data")
        if rc != CRASHED:
            return crashed, [f"exit {rc}: {err[-500:]}"]
        crashed.append(n)
    rc, out, err = prog.run(d, seed=seed * 10 + 9)
    if rc != 0 or not out.endswith("DONE\n"):
        return crashed, [f"last run: exit {rc}: {err[-500:]}"]
    return crashed, check(d / "data")


def in_workers(jobs: int, items: list, one) -> list:
    """[(item, one(item))] computed by `jobs` forked worker processes (each item by one of them,
    in turn), in the order of items. A worker is single-threaded, so it can fork its runs."""
    results, pids = {}, []
    for w in range(jobs):
        r, wr = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            with os.fdopen(wr, "w") as f:
                for i in items[w::jobs]:
                    f.write(json.dumps([i, one(i)]) + "\n")
                    f.flush()
            os._exit(0)
        os.close(wr)
        pids.append((pid, os.fdopen(r)))
    for pid, f in pids:
        for line in f:
            i, res = json.loads(line)
            results[i] = res
        os.waitpid(pid, 0)
    return [(i, results.get(i, (None, ["the worker died"]))) for i in items]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", action="store_true", help="crash at every commit boundary in turn")
    ap.add_argument("--seeds", type=int, default=0, help="how many seeds of random crashes")
    ap.add_argument("--from", dest="first", type=int, default=1, help="the first seed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=50, help="seeds per progress line")
    a = ap.parse_args()
    shm = Path("/dev/shm")
    work = Path(tempfile.mkdtemp(prefix="lp-reliable-crash-", dir=shm if shm.is_dir() else None))
    (work / "bank.lp").write_text(program("data"))
    t0 = time.time()
    prog = Prepared(work / "bank.lp")
    print(f"program parsed and checked once: {time.time() - t0:.1f} s", flush=True)
    bad = 0
    try:
        if a.points:
            n, crashed = 1, 0
            while True:
                batch = in_workers(a.jobs, list(range(n, n + a.jobs)), lambda i: point(prog, work, i))
                for i, (c, broken) in batch:
                    crashed += bool(c)
                    if broken:
                        bad += 1
                        print(f"crash point {i}: {broken}", flush=True)
                    shutil.rmtree(work / f"p{i}", ignore_errors=True)
                if not all(c for _, (c, _) in batch):
                    break
                n += a.jobs
            print(f"commit boundaries crashed at: {crashed}; broken: {bad}; {time.time() - t0:.0f} s", flush=True)
        if a.seeds:
            crashes, hit = 0, set()
            seeds = list(range(a.first, a.first + a.seeds))
            for k in range(0, len(seeds), a.batch):
                for s, (c, broken) in in_workers(a.jobs, seeds[k:k + a.batch], lambda s: seeded(prog, work, s)):
                    crashes += len(c or [])
                    hit.update(c or [])
                    if broken:
                        bad += 1
                        print(f"seed {s}: {broken}", flush=True)
                    else:
                        shutil.rmtree(work / f"s{s}", ignore_errors=True)
                print(f"... seed {seeds[min(k + a.batch, len(seeds)) - 1]}, {crashes} crashes, {bad} broken, "
                      f"{time.time() - t0:.0f} s", flush=True)
            print(f"seeds {a.first}..{a.first + a.seeds - 1}: {crashes} crashes and restarts, after {len(hit)} "
                  f"distinct commit numbers; broken: {bad}; "
                  f"{time.time() - t0:.0f} s", flush=True)
    finally:
        if not bad:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"the data of the broken ones is kept in {work}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
