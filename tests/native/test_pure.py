"""Which methods get a fast copy (compiler/pure.py, docs/native.md "Pure Integer methods"): asserted
here, so a change that stops recognising them, or starts taking a method with an effect, fails.
What the copies answer is compared with `lp run` by tests/native/programs/pure_integer_methods.lp
and tests/native/actor_programs/pure_in_actors.lp."""
from __future__ import annotations

import re
from pathlib import Path

from tests.native.harness import build, interpret, native

PROGRAM = """
Integer >> fib = self < 2 ifTrue: [self] ifFalse: [(self - 1) fib + (self - 2) fib].
Integer >> down = self = 0 ifTrue: [0] ifFalse: [1 + (self - 1) down].
Integer >> viaFib = (self > 3 and: [self fib > 2]) ifTrue: [(self fib) * 2] ifFalse: [-1].
Integer >> noisy = (self printNl. self + 1).
Integer >> callsNoisy = self noisy + 1.
Integer >> half = self // 2.
Integer >> asF = (self * 2) asFloat truncated.
Integer >> early = self < 0 ifTrue: [^0] ifFalse: [self + 1].
Integer >> inner = (self < 0 ifTrue: [^0] ifFalse: [5]) + self.
Object subclass: #Point2 fields: (x).
Point2 >> sum = self x + 1.
-3 early printNl. -3 inner printNl. 30 fib printNl. 5 down printNl. 6 viaFib printNl. 3 callsNoisy printNl. 7 half printNl. 2 asF printNl.
(Point2 fields: { x: 1 }) sum printNl.
"""


def test_pure_methods_get_a_fast_copy_and_others_do_not(tmp_path):
    src = tmp_path / "p.lp"
    src.write_text(PROGRAM)
    out = tmp_path / "p"
    b = build(src, out, "-O0", "--emit-llvm")
    assert b.status == 0, b.stderr.decode()
    ll = Path(str(out) + ".ll").read_text()
    fast = set(re.findall(r'define internal fastcc \{ i64, i64 \} @"lp\.fast\.([^".]+)"', ll))
    # `inner`'s `^` leaves the method from inside a value: not in the pure subset
    assert fast == {"Integer >> fib", "Integer >> down", "Integer >> viaFib", "Integer >> early"}
    assert all(f'@"lp.fast.Integer >> fib.nest{k}"' in ll for k in range(1, 7))
    assert '@"lp.fast.Integer >> fib.nest7"' not in ll


# A self-send reaches the nest (levels 1..6, which count frames but do not check them) only
# when its deepest frame is within --stack-limit. Started j frames deeper, the deepest frame of
# `k fib` (and of zig:, whose tail self-send keeps its frame) falls at every level of the nest for
# some (j, k) just past the limit: the binary must stop where `lp run` stops, with the same error.
BOUNDARY = """
Integer >> fib = self < 2 ifTrue: [self] ifFalse: [(self - 1) fib + (self - 2) fib].
Integer >> zig: n = n < 1
    ifTrue: [self]
    ifFalse: [(self zig: n - 1) < 0 ifTrue: [0] ifFalse: [self + 1 zig: n - 2]].
Object subclass: #M.
M class >> show: aBlock = ([aBlock value printString] on: Error do: [:e | e messageText]) displayNl.
M class >> at: j do: aBlock = j = 0 ifTrue: [aBlock value] ifFalse: [(M at: j - 1 do: aBlock) + 0].
0 to: 13 do: [:j | 10 to: 16 do: [:k | M show: [M at: j do: [k fib]]. M show: [M at: j do: [0 zig: k]]]].
"""


def test_the_nest_stops_at_the_stack_limit_where_lp_run_does(tmp_path):
    src = tmp_path / "boundary.lp"
    src.write_text(BOUNDARY)
    out = tmp_path / "boundary"
    assert build(src, out).status == 0
    for limit in ("24", "26"):
        want = interpret(src, "--stack-limit", limit)
        got = native(out, tmp_path, "--stack-limit", limit)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), limit
        lines = want.stdout.decode().splitlines()
        assert "987" in lines and any("stack overflow" in x for x in lines)   # both sides of it
