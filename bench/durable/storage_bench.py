"""Private SQLite stores, interpreted: requests/s of `execute:` (each a commit, fsync'd), of
`query:` (a read, rolled back), of 10-statement transactions, and durable-grain calls/s that
write to the grain's own store, against SqliteGrainStore-backed states.

    python bench/durable/storage_bench.py [--n 300] [--domains 2]

Each figure is timed inside the LP program (Actor millisecondClock), in a fresh temporary
directory; the machine's fsync speed dominates every writing figure.
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
Object subclass: #Bench.
Bench class >> ms: aBlock = (t := Actor millisecondClock. aBlock value. Actor millisecondClock - t max: 1).
Object subclass: #Journal fields: (n).
Journal >> add: k = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS t (k)'.
    Grain storage execute: 'INSERT INTO t VALUES (?)' with: {{ k }}.
    self with: {{ n: self n + 1 }}).
s := Storage at: '{dir}/s.sqlite'.
s execute: 'CREATE TABLE t (k INTEGER, v TEXT)'.
t := Bench ms: [1 to: {n} do: [:i | s execute: 'INSERT INTO t VALUES (?, ?)' with: {{ i. 'value' }}]].
('execute/s ' , ({n} * 1000 // t) printString) displayNl.
t := Bench ms: [1 to: {n} do: [:i | s query: 'SELECT v FROM t WHERE k = ?' with: {{ i }}]].
('query/s ' , ({n} * 1000 // t) printString) displayNl.
t := Bench ms: [1 to: {n} // 10 do: [:i |
    s transaction: ((1 to: 10) asArray collect: [:j | 'INSERT INTO t VALUES (?, ?)' -> {{ j. j }}])]].
('transactions of 10/s ' , ({n} // 10 * 1000 // t) printString) displayNl.
logs := Grain for: Journal initial: (Journal fields: {{ n: 0 }}) dir: '{dir}/grains'.
(logs id: 'warm') add: 0.
g := logs id: 'one'.
t := Bench ms: [1 to: {n} // 3 do: [:i | g add: i]].
('grain calls writing/s ' , ({n} // 3 * 1000 // t) printString) displayNl.
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--domains", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.lp"
        f.write_text(PROGRAM.format(dir=d, n=a.n))
        r = subprocess.run([sys.executable, "-m", "lp", "run", "--domains", str(a.domains), str(f)],
                           capture_output=True, text=True, cwd=ROOT)
        sys.stdout.write(r.stdout + r.stderr)


if __name__ == "__main__":
    main()
