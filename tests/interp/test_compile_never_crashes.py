"""Loading and compiling any parseable program gives code or an LP diagnostic, never a Python exception."""
from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings

from lp.diagnostics import LPError
from lp.interp.interp import Interpreter
from lp.syntax.format import format_program
from lp.syntax.parser import parse_text
from tests.syntax.strategies import programs


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs)
def test_generated_programs_compile_or_diagnose(program):
    program = parse_text(format_program(program), "gen.lp")
    interp = Interpreter(None, out=io.StringIO())
    try:
        interp.load([program])
        interp.compiler.main(list(program.statements), program.span)
    except LPError as e:
        assert e.diagnostics[0].message
