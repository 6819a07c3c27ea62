"""Every class of syntax error, compared with its exact rendered diagnostic.

Each `error_cases/NAME.lp` holds a bad program and `NAME.expected` the exact
text `lp check` prints for it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from lp.diagnostics import LPError, SourceMap, render
from lp.syntax.parser import parse_text

CASES = Path(__file__).with_name("error_cases")
NAMES = sorted(p.stem for p in CASES.glob("*.lp"))


@pytest.mark.parametrize("name", NAMES)
def test_rendered_syntax_error(name):
    src = (CASES / f"{name}.lp").read_text()
    with pytest.raises(LPError) as info:
        parse_text(src, f"{name}.lp")
    sources = SourceMap()
    sources.add(f"{name}.lp", src)
    assert render(info.value.diagnostics[0], sources) == (CASES / f"{name}.expected").read_text()


def test_cli_prints_the_same_diagnostic_and_exits_1(lp):
    r = lp("check", "mismatched_closer.lp", cwd=CASES)
    assert r.returncode == 1
    assert r.stdout == b""
    assert r.stderr.decode() == (CASES / "mismatched_closer.expected").read_text()
