"""Parser throughput: lines per second on a generated 20,000-line LP program.

    python bench/parse_speed.py [--lines N]

Prints the rate of `parse_text` (lexing, LALR parsing and AST construction)
and, in the same run, the rate of Python's own `ast.parse` on a Python
program of the same line count as a baseline ratio. Never fails on speed.
"""
from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lp.syntax.parser import parse_text  # noqa: E402

CHUNK = """\
Object subclass: #Point{i} fields: (x y).
Point{i} >> + other = Point{i} fields: {{ x: self x + other x. y: self y + other y }}.
Point{i} class >> origin = Point{i} fields: {{ x: 0. y: 0 }}.
Counter{i} class >> run: me count: n =
    me receive: {{
        Inc -> [:msg | Counter{i} run: me count: n + 1].
        Get -> [:msg |
            msg reply ! n.
            Counter{i} run: me count: n
        ]
    }}.
total{i} := #(1 2 3 4) inject: 0 into: [:a :b | a + (b * 2) - 1].
'line {i}' displayNl; printNl.
(total{i} > 10) ifTrue: [Log info: 'big'] ifFalse: [Log warn: 'small'].
"""

PY_CHUNK = """\
class Point{i}:
    def __add__(self, other):
        return Point{i}(self.x + other.x, self.y + other.y)
    @classmethod
    def origin(cls):
        return cls(0, 0)
def run{i}(me, n):
    msg = me.receive()
    if isinstance(msg, Inc):
        return run{i}(me, n + 1)
    msg.reply.send(n)
    return run{i}(me, n)
total{i} = sum((b * 2) - 1 for b in [1, 2, 3, 4])
print('line {i}')
"""


def generate(template: str, lines: int) -> str:
    per = template.count("\n")
    return "".join(template.format(i=i) for i in range(lines // per + 1))


def rate(fn, text: str, repeat: int) -> float:
    n = text.count("\n")
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t0)
    return n / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    lp_src = generate(CHUNK, a.lines)
    py_src = generate(PY_CHUNK, a.lines)
    lp_rate = rate(lambda t: parse_text(t, "bench.lp"), lp_src, a.repeat)
    py_rate = rate(ast.parse, py_src, a.repeat)
    print(f"LP parser:         {lp_src.count(chr(10)):>7} lines  {lp_rate:>10,.0f} lines/s  (target >= 20,000)")
    print(f"Python ast.parse:  {py_src.count(chr(10)):>7} lines  {py_rate:>10,.0f} lines/s")
    print(f"ratio LP / CPython parser: {lp_rate / py_rate:.3f}")


if __name__ == "__main__":
    main()
