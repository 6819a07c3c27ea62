"""The long runs of issue 15's Show list (docs/testing.md), too slow for CI: `lp test --seeds
10000` on the bank example finds the race, its printed reproduce command prints the same
report byte for byte ten times in a row, the fixed bank passes 10,000 seeds, and the
supervision tree keeps its invariants under `--faults` for 1,000 seeds. Prints what each run
found and its wall time; exits 1 if a promise does not hold.

    python bench/lp/test_seeds.py [--seeds 10000] [--tree-seeds 1000]
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EX = "examples/testing/"


def lp_test(*args):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "lp", "test", *args], cwd=ROOT, capture_output=True)
    return r.returncode, r.stdout.decode(), time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10000)
    ap.add_argument("--tree-seeds", type=int, default=1000)
    a = ap.parse_args()
    ok = True

    code, out, t = lp_test(EX + "bank_test.lp", "--seeds", str(a.seeds))
    seed = out.split("(seed ")[1].split(")")[0] if code == 1 else None
    print(f"bank_test.lp --seeds {a.seeds}: exit {code}, first failing seed {seed}, {t:.1f} s")
    ok &= code == 1
    if seed:
        cmd = shlex.split(out.split("reproduce: ")[1].split("\n")[0])[2:]
        report = out[out.index("\nFAIL"):]
        replays = []
        for _ in range(10):
            c, again, t = lp_test(*cmd)
            replays.append((c, again[again.index("\nFAIL"):] if "\nFAIL" in again else again))
        same = sum(r == (1, report) for r in replays)
        print(f"reproduce command ({' '.join(cmd)}): {same}/10 byte-identical reports")
        ok &= same == 10

    code, out, t = lp_test(EX + "fixed_bank_test.lp", "--seeds", str(a.seeds))
    print(f"fixed_bank_test.lp --seeds {a.seeds}: exit {code} ({out.strip().splitlines()[-1]}), {t:.1f} s "
          f"({t / a.seeds * 1000:.1f} ms a seed)")
    ok &= code == 0

    code, out, t = lp_test(EX + "supervisor_test.lp", "--faults", "--seeds", str(a.tree_seeds))
    print(f"supervisor_test.lp --faults --seeds {a.tree_seeds}: exit {code} ({out.strip().splitlines()[-1]}), "
          f"{t:.1f} s")
    if code:
        print(out)
    ok &= code == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
