"""Reliable calls/s between two grains on one node (docs/reliable.md), next to plain grain calls,
interpreted, so that the cost of durability shows.

    python bench/reliable/calls_bench.py [--n 200] [--dir /tmp]

Reliable: n root runs of grain Pinger/p, each making one reliable call to Ponger/q and ending
with its result (every call: the caller's commit, the callee's, two acknowledgements and the
result handler's commit). Plain: n calls of an in-memory grain, and of a SqliteGrainStore grain
whose state changes on each call (one commit). Timed inside the LP program.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
Import module: #Reliable.
ReliableHandler subclass: #Pinger.
ReliableHandler subclass: #Ponger.
Pinger >> go: run = Step none call: 'Ponger/q' op: #pong: input: run input then: #done: for: run ref.
Pinger >> done: call = Step none complete: call by with: call result.
Ponger >> pong: run = Step none complete: run ref with: run input.
Object subclass: #Counter fields: (n).
Counter >> add = self with: {{ n: self n + 1 }}.
Object subclass: #Bench.
Bench class >> ms: aBlock = (t := Actor millisecondClock. aBlock value. Actor millisecondClock - t max: 1).
n := {n}.
node := (((ReliableServers dir: '{dir}/rel') serve: Pinger new) serve: Ponger new) start.
node root: 'Pinger/p' op: #go: input: 'warm' id: 'warm'.
node when: 'Pinger/p' id: 'warm'.
ms := Bench ms: [
    1 to: n do: [:i | node root: 'Pinger/p' op: #go: input: i printString id: 'r' , i printString].
    1 to: n do: [:i | node when: 'Pinger/p' id: 'r' , i printString]].
('reliable ' , (n * 1000 // ms) printString) displayNl.
mem := (Grain for: Counter initial: (Counter fields: {{ n: 0 }})) id: 'c'.
mem add.
ms := Bench ms: [1 to: n do: [:i | mem add]].
('memory ' , (n * 1000 // ms) printString) displayNl.
sq := (Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: (SqliteGrainStore at: '{dir}/plain.sqlite')) id: 'c'.
sq add.
ms := Bench ms: [1 to: n do: [:i | sq add]].
('sqlite ' , (n * 1000 // ms) printString) displayNl.
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--dir", default=None, help="where the stores go (default: a temporary directory)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        prog = Path(d) / "bench.lp"
        prog.write_text(PROGRAM.format(n=a.n, dir=d))
        r = subprocess.run([sys.executable, "-m", "lp", "run", "--domains", "2", str(prog)], capture_output=True,
                           text=True, cwd=ROOT)
        if r.returncode:
            sys.exit(r.stderr)
        fig = dict(line.split() for line in r.stdout.split("\n") if line)
    rel, mem, sq = (int(fig[k]) for k in ("reliable", "memory", "sqlite"))
    print(f"{'calls/s, ' + str(a.n) + ' calls':<40} {'per second':>10}")
    print(f"{'plain grain call, in-memory state':<40} {mem:>10}")
    print(f"{'plain grain call, SqliteGrainStore':<40} {sq:>10}")
    print(f"{'reliable call (root run + one call)':<40} {rel:>10}")
    print(f"reliable / SqliteGrainStore: {rel / max(sq, 1):.2f}; reliable / in-memory: {rel / max(mem, 1):.3f}")


if __name__ == "__main__":
    main()
