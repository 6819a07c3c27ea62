"""Generated programs get a result or a diagnostic from the checker, never a Python exception."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from lp.syntax import ast as A
from lp.types import check_program
from tests.syntax.strategies import programs


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs)
def test_generated_programs_never_raise(program):
    result = check_program(program)
    for d in result.diagnostics:
        assert d.title != "internal checker error", (d.message, d.span)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs, programs)
def test_generated_programs_with_imports_never_raise(program, imported):
    result = check_program(program, [imported])
    for d in result.diagnostics:
        assert d.title != "internal checker error", (d.message, d.span)
