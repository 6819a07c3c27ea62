"""How fast the type checker is: check a generated 5,000-line program and print the time.

Run: python bench/check_speed.py [LINES]. Target: under 2 s for 5,000 lines.
The program mixes classes with fields, instance and class-side methods,
arithmetic, blocks and collections, and actors with typed receives and ask:.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lp.syntax.parser import parse_text  # noqa: E402
from lp.types import check_program  # noqa: E402


def unit(i: int) -> list[str]:
    """About 25 lines exercising most of the checker, with names unique to unit i."""
    return [
        f"Object subclass: #P{i} fields: (x y).",
        f"Object subclass: #Inc{i}.",
        f"Object subclass: #Get{i} fields: (reply).",
        f"Object subclass: #Svc{i}.",
        f"P{i} >> + other = P{i} fields: {{ x: self x + other x. y: self y + other y }}.",
        f"P{i} >> norm{i} = (self x * self x + (self y * self y)) sqrt.",
        f"P{i} class >> origin = P{i} fields: {{ x: 0. y: 0 }}.",
        f"Svc{i} class >> run: me count: n =",
        f"    me receive: {{",
        f"        Inc{i} -> [:m | Svc{i} run: me count: n + 1].",
        f"        Get{i} -> [:m | m reply ! n. Svc{i} run: me count: n]",
        f"    }}.",
        f"Svc{i} class >> twice: b at: v = b value: (b value: v).",
        f"p{i} := (P{i} fields: {{ x: {i}. y: 2 }}) + P{i} origin.",
        f"n{i} := p{i} norm{i} + 1.",
        f"s{i} := #(1 2 3) inject: 0 into: [:a :b | a + b].",
        f"t{i} := (Svc{i} twice: [:k | k * 2] at: 3) + (Svc{i} twice: [:k | k , '!'] at: 'a') size.",
        f"c{i} := Actor spawn: [:me | Svc{i} run: me count: 0].",
        f"c{i} ! Inc{i} new.",
        f"f{i} := c{i} ask: (Get{i} fields: {{}}).",
        f"r{i} := f{i} await + s{i}.",
        f"w{i} := (p{i} with: {{ x: 5 }}) x > 3",
        f"    ifTrue: ['big' , r{i} printString]",
        f"    ifFalse: ['small'].",
        f"d{i} := (Dictionary new at: #k put: n{i}) at: #k ifAbsent: [0.0].",
    ]


def program(lines: int) -> str:
    out: list[str] = []
    i = 0
    while len(out) < lines:
        out.extend(unit(i))
        i += 1
    return "\n".join(out) + "\n"


def main() -> None:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    src = program(lines)
    n = src.count("\n")
    t0 = time.perf_counter()
    prog = parse_text(src, "bench.lp")
    t1, c1 = time.perf_counter(), time.process_time()
    result = check_program(prog)
    t2, c2 = time.perf_counter(), time.process_time()
    if result.diagnostics:
        print(f"unexpected diagnostics: {len(result.diagnostics)}; first: {result.diagnostics[0].message}")
        sys.exit(1)
    print(f"checked {n} lines in {t2 - t1:.2f} s ({n / (t2 - t1):,.0f} lines/s), {c2 - c1:.2f} s of CPU (the wall "
          f"time on a loaded machine is longer); parse took {t1 - t0:.2f} s")


if __name__ == "__main__":
    main()
