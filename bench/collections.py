"""Building collections one element at a time: Dictionary at:put:, Array collect:/select:, inject:into:.

Prints the time of each program at 10,000 and 100,000 elements and the ratio (linear is 10x).
Never asserts speed. Usage: python bench/collections.py [--sizes 10000 100000]
"""
from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lp.diagnostics import SourceMap  # noqa: E402
from lp.interp.interp import Interpreter  # noqa: E402
from lp.modules import Loader  # noqa: E402

PROGRAMS = {
    "Dictionary at:put:": """
Object subclass: #Fill.
Fill class >> into: d from: i to: n = i > n ifTrue: [d] ifFalse: [self into: (d at: i put: i) from: i + 1 to: n].
(Fill into: Dictionary new from: 1 to: {N}) size printNl.
""",
    "Array collect:": "((1 to: {N} collect: [:i | i]) collect: [:x | x + 1]) size printNl.\n",
    "Array select:": "((1 to: {N} collect: [:i | i]) select: [:x | x even]) size printNl.\n",
    "Dictionary keys inject:into:": """
d := (1 to: {N} collect: [:i | i]) inject: Dictionary new into: [:acc :i | acc at: i put: i].
(d keys inject: 0 into: [:s :k | s + (d at: k)]) printNl.
""",
}


def run(src: str) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.lp"
        f.write_text(src)
        sources = SourceMap()
        main, imports = Loader(sources).load_main(str(f))
        out = io.StringIO()
        interp = Interpreter(sources, out=out, err=io.StringIO())
        interp.load(imports + [main])
        t0 = time.perf_counter()
        interp.run_main(main, 1)
        return time.perf_counter() - t0, out.getvalue().strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs=2, default=[10_000, 100_000])
    args = ap.parse_args()
    small, large = args.sizes
    print(f"{'program':32} {small:>10} {large:>10}  ratio")
    for name, src in PROGRAMS.items():
        ts, a = run(src.replace("{N}", str(small)))
        tl, b = run(src.replace("{N}", str(large)))
        print(f"{name:32} {ts:9.3f}s {tl:9.3f}s  {tl / ts:5.1f}x   ({a} / {b})")


if __name__ == "__main__":
    main()
