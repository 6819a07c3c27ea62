"""Durable-grain alarms, interpreted: N grains set an alarm each (20 callers), due over N/1000
seconds; prints alarms set/s, and alarms delivered/s once they are due (each delivery a call of
the grain's `alarm`, the grains still active), for one `alarmsAtOnce` setting.

    python bench/durable/alarms_bench.py [--n 10000] [--at-once 16] [--domains 2] [--memory]

--memory puts the data directory in /dev/shm (no fsync cost). Each figure is timed inside the
LP program (Actor millisecondClock).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
Import module: #Durable.
Object subclass: #Room fields: (fired).
Room >> at: t = (Grain alarm setAt: t. nil).
Room >> alarm = nil.
Room class >> settle: alarms = ((alarms query: 'SELECT count(*) AS n FROM alarms') rows first at: 'n') = 0
    ifTrue: [nil] ifFalse: [Actor sleep: 20. Room settle: alarms].
rooms := Grain for: Room initial: (Room fields: {{ fired: 0 }}) dir: '{dir}'
    options: (GrainOptions default with: {{ idle: 600000. alarmsAtOnce: {at_once} }}).
n := {n}.
main := Actor self.
c := Actor millisecondClock.
t0 := Actor unixMillis + 3600000.
1 to: 20 do: [:k | Actor spawn: [:me |
    k to: n by: 20 do: [:i | (rooms id: i printString) at: t0 + i].
    main ! k]].
1 to: 20 do: [:k | main receive: {{ Integer -> [:x | x] }}].
('alarms set/s ' , (n * 1000 // (Actor millisecondClock - c max: 1)) printString) displayNl.
c := Actor millisecondClock.
1 to: 20 do: [:k | Actor spawn: [:me |
    k to: n by: 20 do: [:i | (rooms id: i printString) at: 0].
    main ! k]].
1 to: 20 do: [:k | main receive: {{ Integer -> [:x | x] }}].
Room settle: (Storage at: '{dir}/alarms.sqlite').
('alarms set again and delivered/s ' , (n * 1000 // (Actor millisecondClock - c max: 1)) printString) displayNl.
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--at-once", type=int, default=16)
    ap.add_argument("--domains", type=int, default=2)
    ap.add_argument("--memory", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir="/dev/shm" if a.memory else None) as d:
        f = Path(d) / "bench.lp"
        f.write_text(PROGRAM.format(dir=d + "/data", n=a.n, at_once=a.at_once))
        r = subprocess.run([sys.executable, "-m", "lp", "run", "--domains", str(a.domains), str(f)],
                           capture_output=True, text=True, cwd=ROOT)
        sys.stdout.write(r.stdout + r.stderr)


if __name__ == "__main__":
    main()
