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


@pytest.mark.parametrize("literal", ["1" + "0" * 4400, "1e" + "9" * 4301, "1.5e" + "9" * 4301, "2r" + "1" * 100_000,
                                     "36r" + "Z" * 5000, "1" * 5000 + "r1"])
def test_a_literal_of_thousands_of_digits_is_a_short_syntax_error(literal):
    # Python refuses to convert more than 4,300 digits: that was an internal error, and the
    # message quoted the whole literal
    with pytest.raises(LPError) as info:
        parse_text(f"{literal} printNl.", "big.lp")
    d = info.value.diagnostics[0]
    assert d.title == "syntax error" and len(d.message) < 200, d.message
