"""Shared helpers for the checker tests: parse + check + render."""
from __future__ import annotations

from lp.diagnostics import SourceMap, render_all
from lp.syntax.parser import parse_text
from lp.types import check_program


def check_source(src: str, name: str = "test.lp", imports=()):
    program = parse_text(src, name)
    result = check_program(program, list(imports))
    sources = SourceMap()
    sources.add(name, src)
    return result, render_all(result.diagnostics, sources)
