"""Ill-typed programs, each compared with the exact diagnostics `lp check` renders for it.

`ill_typed/NAME.lp` is a program with one mistake (or one root cause); the
checker must report exactly the diagnostics in `ill_typed/NAME.expected`.
Set LP_UPDATE_SNAPSHOTS=1 to rewrite the .expected files after a deliberate change.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.types.helpers import check_source

CASES = Path(__file__).with_name("ill_typed")
NAMES = sorted(p.stem for p in CASES.glob("*.lp"))


@pytest.mark.parametrize("name", NAMES)
def test_rendered_type_errors(name):
    src = (CASES / f"{name}.lp").read_text()
    result, text = check_source(src, f"{name}.lp")
    assert result.diagnostics, f"{name}.lp type-checked, but it should not"
    assert all(d.title != "internal checker error" for d in result.diagnostics), text
    expected = CASES / f"{name}.expected"
    if os.environ.get("LP_UPDATE_SNAPSHOTS"):
        expected.write_text(text)
    assert expected.exists(), f"{expected.name} is missing: review the output and write it with LP_UPDATE_SNAPSHOTS=1"
    assert text == expected.read_text()


def test_enough_cases():
    assert len(NAMES) >= 30
