"""How fast `lp lsp` answers an edit: re-analyse a generated 2,000-line document after a one-line change.

Run: python bench/lsp_speed.py [LINES] [--repeat R]. Target: under 200 ms for 2,000 lines.
Prints the first (cold) analysis, then the best and median of R edits, each
changing one literal in the middle of the file (the time until its diagnostics
are ready, as the server computes them, without the JSON-RPC round trip).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from check_speed import program  # noqa: E402
from lp.lsp.workspace import Workspace  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lines", nargs="?", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sys.setrecursionlimit(20000)
    text = program(args.lines)
    lines = text.split("\n")
    uri = (ROOT / "bench" / "lsp_speed_document.lp").as_uri()
    ws = Workspace()
    t0 = time.perf_counter()
    first = ws.analyse(uri, text)
    cold = time.perf_counter() - t0
    if first.diagnostics:
        sys.exit(f"unexpected diagnostics: {first.diagnostics[0].message}")
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("n"))
    times = []
    for k in range(args.repeat):
        edited = list(lines)
        edited[target] = lines[target].replace("+ 1.", f"+ {k + 2}.")
        t0 = time.perf_counter()
        a = ws.analyse(uri, "\n".join(edited))
        times.append(time.perf_counter() - t0)
        assert not a.diagnostics, a.diagnostics[0].message
    print(f"{len(lines) - 1} lines: first analysis {cold * 1000:.0f} ms; after a one-line edit "
          f"best {min(times) * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms "
          f"({args.repeat} edits)")


if __name__ == "__main__":
    main()
