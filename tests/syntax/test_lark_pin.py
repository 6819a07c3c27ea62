"""The parser reads Lark's private LALR table, so Lark is pinned exactly: any other version fails here."""
from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from types import SimpleNamespace

import pytest
from lark.parsers.lalr_analysis import Shift

from lp.syntax import parser
from tests.conftest import ROOT


def pinned_lark() -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if re.match(r"lark\b", d)]
    m = re.fullmatch(r"lark==([0-9.]+)", pin)
    assert m, f"Lark must be pinned to one exact version in pyproject.toml (lp uses its internals), not {pin!r}"
    return m.group(1)


def test_installed_lark_is_the_pinned_version():
    installed = version("lark")
    assert installed == pinned_lark(), (
        f"lark {installed} is installed but pyproject.toml pins lark=={pinned_lark()}: lp/syntax/parser.py "
        "reads Lark's private LALR table; check lark_internals() against the new version, then move the pin")


def test_the_internals_the_parser_uses_are_there():
    table, callbacks = parser.lark_internals(parser._lark)
    actions = [a for row in table.states.values() for a in row.values()]
    assert actions and all(len(a) == 2 for a in actions)
    reduces = [arg for action, arg in actions if action is not Shift]
    assert reduces and all(r in callbacks and r.origin.name and isinstance(r.expansion, (list, tuple))
                           for r in reduces)


def test_missing_internals_fail_with_a_clear_message():
    fake = SimpleNamespace(parser=SimpleNamespace(parser=SimpleNamespace()))
    with pytest.raises(RuntimeError, match="Lark internals .* pinned in pyproject.toml"):
        parser.lark_internals(fake)
