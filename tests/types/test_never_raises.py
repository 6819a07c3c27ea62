"""Generated programs get a result or a diagnostic from the checker, never a Python exception."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from lp.syntax import ast as A
from lp.types import check_program
from tests.syntax.strategies import programs

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs)
def test_generated_programs_never_raise(program):
    result = check_program(program)
    for d in result.diagnostics:
        assert d.title != "internal checker error", (d.message, d.span)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs, programs)
def test_generated_programs_with_imports_never_raise(program, imported):
    result = check_program(program, [imported])
    for d in result.diagnostics:
        assert d.title != "internal checker error", (d.message, d.span)


def test_mutated_corpus_programs_never_raise():
    """Swap words between the corpus programs at random: whatever parses must check without a crash."""
    import random
    from pathlib import Path

    from lp.diagnostics import LPError
    from lp.syntax.parser import parse_text

    here = Path(__file__).parent
    texts = [p.read_text() for d in ("well_typed", "ill_typed") for p in sorted((here / d).glob("*.lp"))]
    words = sorted({w for t in texts for w in t.replace(".", " . ").split()})
    rng = random.Random(5)
    checked = 0
    for i in range(1000):
        toks = rng.choice(texts).split(" ")
        for _ in range(rng.randint(1, 3)):
            toks[rng.randrange(len(toks))] = rng.choice(words)
        src = " ".join(toks)
        try:
            program = parse_text(src, f"mutant{i}.lp")
        except LPError:
            continue
        checked += 1
        result = check_program(program)
        for d in result.diagnostics:
            assert d.title != "internal checker error", (src, d.message)
    assert checked > 50
