"""`lp fmt`: idempotent, AST-preserving, comment-keeping (property-tested)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lp.syntax.format import format_program
from lp.syntax.parser import parse_text
from tests.conftest import EXAMPLES
from tests.syntax.strategies import programs

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.lp")) + sorted((Path(__file__).parents[2] / "stdlib").glob("*.lp"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_generated_programs_round_trip(program):
    out = format_program(program)
    reparsed = parse_text(out, "gen.lp")
    assert reparsed == program
    assert format_program(reparsed) == out


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_round_trip(path):
    prog = parse_text(path.read_text(), str(path))
    out = format_program(prog)
    again = parse_text(out, str(path))
    assert again == prog
    assert format_program(again) == out
    assert [c.text for c in again.comments] == [c.text for c in prog.comments]


def test_examples_are_formatted():
    for path in EXAMPLE_FILES:
        assert format_program(parse_text(path.read_text(), str(path))) == path.read_text(), path


def test_comments_are_kept_in_place():
    src = ('"header"\n\nx := 1. "trailing"\n"before y"\ny := [:a |\n    "inside" a + 1.\n    a\n].\n'
           '"the end"\n')
    prog = parse_text(src, "c.lp")
    assert format_program(prog) == src


def test_canonical_layout():
    src = ("Object subclass: #Get fields: (reply). Counter class>>run: me count: n = me receive: "
           "{ Get -> [:m | m reply ! n. Counter run: me count: n] }. x:=#(1 $a foo) , {1. 2}")
    assert format_program(parse_text(src, "c.lp")) == (
        "Object subclass: #Get fields: (reply).\n"
        "\n"
        "Counter class >> run: me count: n =\n"
        "    me receive: {\n"
        "        Get -> [:m |\n"
        "            m reply ! n.\n"
        "            Counter run: me count: n\n"
        "        ]\n"
        "    }.\n"
        "\n"
        "x := #(1 $a foo) , { 1. 2 }.\n")   # literals keep their spelling


def test_fmt_command_modes(tmp_path, lp):
    f = tmp_path / "a.lp"
    f.write_text("x:=1.   y  :=  x+1")
    r = lp("fmt", str(f))
    assert (r.returncode, r.stdout) == (0, b"x := 1.\ny := x + 1.\n")
    r = lp("fmt", "--check", str(f))
    assert r.returncode == 1 and b"would be reformatted" in r.stderr
    assert lp("fmt", "--write", str(f)).returncode == 0
    assert f.read_text() == "x := 1.\ny := x + 1.\n"
    assert lp("fmt", "--check", str(f)).returncode == 0
    bad = tmp_path / "bad.lp"
    bad.write_text("x := (1")
    r = lp("fmt", "--write", str(bad))
    assert r.returncode == 1 and bad.read_text() == "x := (1"
