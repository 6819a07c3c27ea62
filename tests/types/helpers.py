"""Shared helpers for the checker tests: parse + check (with stdlib/core.lp loaded, as `lp` does) + render."""
from __future__ import annotations

from functools import lru_cache

from lp.core_helpers import privatise
from lp.diagnostics import SourceMap, render_all
from lp.syntax.parser import parse_text
from lp.types import check_program
from tests.conftest import ROOT

CORE = ROOT / "stdlib" / "core.lp"


@lru_cache(maxsize=1)
def core_module():
    if not CORE.exists():
        return None
    return privatise(parse_text(CORE.read_text(), "stdlib/core.lp"))


def check_source(src: str, name: str = "test.lp", imports=(), with_core: bool = True):
    program = parse_text(src, name)
    mods = list(imports)
    core = core_module() if with_core else None
    if core is not None:
        mods.insert(0, core)
    result = check_program(program, mods)
    sources = SourceMap()
    sources.add(name, src)
    return result, render_all(result.diagnostics, sources)
