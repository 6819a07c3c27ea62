"""Selective receive with many unrelated messages waiting: the cost of one receive
or one ask:/await as the number of waiting messages grows. Prints, never asserts.

    python bench/selective_receive.py [--waiting N [N ...]] [--asks K] [--receives K] [--domains D]

`await` scans only the messages that arrived after it started (a mailbox mark,
as Erlang's receive after make_ref()), so its cost does not depend on the
waiting messages. A `receive:` table scans the whole mailbox from the oldest
message each time, so K receives over N waiting messages cost K x N.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

PROGRAM = """
Object subclass: #Noise fields: (n).
Object subclass: #Q fields: (reply).
Object subclass: #Serve.
Serve class >> loop: x = x receive: {{
    Q -> [:q | q reply ! 1. Serve loop: x] .
    Actor -> [:a | a ! #pong. Serve loop: x] }}.
me := Actor self.
1 to: {waiting} do: [:i | me ! (Noise fields: {{ n: i }})].
me ! #flush.
me receive: {{ #flush -> [:f | nil] }}.
w := Actor spawn: [:x | Serve loop: x].
t0 := Actor millisecondClock.
1 to: {asks} do: [:i | (w ask: (Q new)) await].
t1 := Actor millisecondClock.
1 to: {receives} do: [:i | w ! me. me receive: {{ #pong -> [:p | p] }}].
t2 := Actor millisecondClock.
(t1 - t0) printNl.
(t2 - t1) printNl.
me receive: {{ Noise -> [:x | x] }} after: 0 do: [nil].
"""


def run(waiting, asks, receives, domains):
    with tempfile.NamedTemporaryFile("w", suffix=".lp", delete=False) as f:
        f.write(PROGRAM.format(waiting=waiting, asks=asks, receives=receives))
    try:
        r = subprocess.run([sys.executable, "-m", "lp", "run", "--quiet", "--domains", str(domains), f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        sys.exit(r.stderr)
    ask_ms, recv_ms = (int(x) for x in r.stdout.split())
    return ask_ms, recv_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waiting", type=int, nargs="+", default=[0, 10_000, 50_000, 200_000])
    ap.add_argument("--asks", type=int, default=1000)
    ap.add_argument("--receives", type=int, default=100)
    ap.add_argument("--domains", type=int, default=1)
    a = ap.parse_args()
    print(f"{'waiting':>9} | {a.asks} ask/await: total, per call | {a.receives} receive: total, per call")
    for n in a.waiting:
        ask_ms, recv_ms = run(n, a.asks, a.receives, a.domains)
        print(f"{n:>9} | {ask_ms:>8} ms {ask_ms * 1000 / a.asks:>9.1f} us"
              f" | {recv_ms:>8} ms {recv_ms * 1000 / a.receives:>9.1f} us")


if __name__ == "__main__":
    main()
