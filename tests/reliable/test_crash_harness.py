"""The crash harness of docs/reliable.md ("Crash tests") keeps working: two seeds of
bench/reliable/crash.py (the program checked once, each run a fork) crash the bank scenario and
find no broken invariant. The full sweeps are in bench/."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_two_seeds_of_the_crash_sweep_run_and_break_nothing():
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "reliable" / "crash.py"), "--seeds", "2", "--jobs", "1"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "seeds 1..2: " in r.stdout and "broken: 0" in r.stdout, r.stdout
