"""Where a binary's turns end (docs/native.md "Preemption"): a frame whose entry spends the turn's
last reduction yields through its `.yield` function and is called again, starting the new turn
having spent nothing. Three actors on one domain print 9,000 lines as they recurse; the lengths of
each actor's runs of lines are pinned, so a turn one reduction longer or shorter after such a yield
prints another order (a `.yield` that left the count at 0 instead of -1 changed the 9th run).
`lp run` counts a send that yields again in the next turn and ends some turns elsewhere, so this is
not compared with it (docs/native.md)."""
from __future__ import annotations

import itertools

from tests.native.harness import ROOT, build, native

PROGRAM = ROOT / "tests/native/turns/three_printers.lp"
RUNS = ("1:363 3:363 1:363 2:363 3:363 1:364 2:363 3:364 1:364 2:364 3:364 1:364 2:364 3:364 1:363 "
        "2:364 3:363 1:364 2:363 3:364 1:364 2:364 3:364 1:91 2:364 3:91 2:91 done:1")


def test_turns_end_where_they_did(tmp_path):
    binary = tmp_path / "three_printers"
    assert build(PROGRAM, binary).status == 0
    for _ in range(2):
        r = native(binary, tmp_path, "--domains", "1")
        assert r.status == 0, r.stderr.decode()
        firsts = [line.split()[0] for line in r.stdout.decode().splitlines()]
        runs = " ".join(f"{who}:{len(list(g))}" for who, g in itertools.groupby(firsts))
        assert runs == RUNS
