"""How checking time grows along a chain of dependent definitions (hostile report 2, finding 37).

Run: python bench/check_chain.py [N ...]. For each N it checks a program of N one-line class
methods each calling the next (`U class >> m0: x = U m1: x + 1.` ...) and one of N top-level
blocks each calling the previous, and one of N methods calling each other in a cycle (one
recursive group: `U class >> m0: x = x > 0 ifTrue: [U m1: x - 1] ifFalse: [x].` ... back to m0),
and prints the CPU time and its ratio to the first N.
Linear growth gives a ratio of N / N0. Before instantiation copied deferred sends lazily it was
quadratic: each scheme carries the sends of the rest of the chain, copied at every call. The
cycle was quadratic too (5,000 methods: 165 s): binding one method's argument variable to the
next one's walked all the deferred sends gathered so far, though no level changed.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lp.syntax.parser import parse_text  # noqa: E402
from lp.types import check_program  # noqa: E402


def method_chain(n: int) -> str:
    lines = ["Object subclass: #U."]
    lines += [f"U class >> m{i}: x = U m{i + 1}: x + 1." for i in range(n)]
    lines += [f"U class >> m{n}: x = x.", "(U m0: 0) printNl."]
    return "\n".join(lines) + "\n"


def block_chain(n: int) -> str:
    lines = ["b0 := [:x | x]."]
    lines += [f"b{i} := [:x | b{i - 1} value: x + 1]." for i in range(1, n)]
    lines += [f"(b{n - 1} value: 0) printNl."]
    return "\n".join(lines) + "\n"


def method_cycle(n: int) -> str:
    lines = ["Object subclass: #U."]
    lines += [f"U class >> m{i}: x = x > 0 ifTrue: [U m{(i + 1) % n}: x - 1] ifFalse: [x]." for i in range(n)]
    lines += ["(U m0: 10) printNl."]
    return "\n".join(lines) + "\n"


def cpu_check(src: str) -> float:
    prog = parse_text(src, "chain.lp")
    t0 = time.process_time()
    result = check_program(prog)
    took = time.process_time() - t0
    if result.diagnostics:
        sys.exit(f"unexpected diagnostics: {result.diagnostics[0].message}")
    return took


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100, 200, 400]
    for name, make in (("methods", method_chain), ("blocks", block_chain), ("cycle", method_cycle)):
        base = None
        for n in sizes:
            t = cpu_check(make(n))
            base = base or t
            print(f"{name:7} chain of {n:5}: {t:6.2f} s CPU  (x{t / base:5.1f} the first; linear would be x{n / sizes[0]:.0f})")


if __name__ == "__main__":
    main()
