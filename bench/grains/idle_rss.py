"""Idle deactivation and memory: N ids touched once (one increment each) with a 1 s idle timeout;
the LP process's RSS before, with every id active, after they have all deactivated, and after
reading every state back (each must be 1).

    python bench/grains/idle_rss.py [--ids 20000] [--domains 2]

The default in-memory store keeps every state (a small JSON text per id), so the floor after
deactivation is the baseline plus the store's map; the owners' actors and states are what goes.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: {{ n: self n + 1 }}.
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    options: (GrainOptions default with: {{ idle: 1000 }}).
main := Actor self.
'baseline' displayNl.
Actor sleep: 500.
1 to: 10 do: [:w | Actor spawn: [:me |
    w to: {ids} by: 10 do: [:i | (counters id: i printString) increment].
    main ! #done]].
10 timesRepeat: [main receive: {{ #done -> [:m | nil] }}].
'active' displayNl.
Actor sleep: 4000.
'idle' displayNl.
Actor sleep: 500.
bad := (1 to: {ids}) inject: 0 into: [:acc :i | (counters id: i printString) n = 1 ifTrue: [acc] ifFalse: [acc + 1]].
('reloaded ' , bad printString , ' wrong') displayNl.
Actor sleep: 500.
"""


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ids", type=int, default=20000)
    ap.add_argument("--domains", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "idle.lp"
        f.write_text(PROGRAM.format(ids=a.ids))
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        p = subprocess.Popen([sys.executable, "-m", "lp", "run", "--domains", str(a.domains), str(f)],
                             stdout=subprocess.PIPE, text=True, env=env)
        for line in p.stdout:
            print(f"{line.strip():<22} RSS {rss_mb(p.pid):7.1f} MB", flush=True)
        p.wait()


if __name__ == "__main__":
    main()
