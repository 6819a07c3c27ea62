"""`lp fmt` keeps every comment where it was (method bodies, blocks, arrays, braces, between
statements and keyword parts), and formatting commented code is idempotent."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lp.syntax.format import format_program
from lp.syntax.parser import parse_text
from tests.conftest import EXAMPLES, ROOT
from tests.syntax.comment_tools import boundaries, insert_comments, placement
from tests.syntax.strategies import programs

CORPUS = sorted(EXAMPLES.glob("*.lp")) + sorted((ROOT / "stdlib").glob("*.lp")) \
    + sorted((ROOT / "tests" / "seeds" / "snippets").glob("*.lp"))


def assert_kept(commented: str) -> str:
    prog = parse_text(commented, "c.lp")
    out = format_program(prog)
    again = parse_text(out, "c.lp")
    assert again == prog
    assert [c.text for c in again.comments] == [c.text for c in prog.comments]
    assert placement(again) == placement(prog), out
    assert format_program(again) == out
    return out


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_a_comment_between_every_two_tokens_stays(path):
    src = path.read_text()
    at = boundaries(src)
    assert_kept(insert_comments(src, at, [f"c{i}" for i in range(len(at))]))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_multiline_comments_stay(path):
    src = path.read_text()
    at = boundaries(src)[::3]
    assert_kept(insert_comments(src, at, [f"c{i}\n   more" for i in range(len(at))]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs, st.data())
def test_comments_anywhere_in_generated_programs(program, data):
    src = format_program(program)
    at = boundaries(src)
    chosen = data.draw(st.lists(st.sampled_from(at), min_size=1, max_size=8))
    texts = data.draw(st.lists(st.sampled_from(["c", "two\nlines", " spaced "]), min_size=len(chosen),
                               max_size=len(chosen)))
    assert_kept(insert_comments(src, chosen, texts))


@pytest.mark.parametrize("src", [
    # inside a method body (a sequence, and a single expression)
    'Point >> norm = (\n    "squares" a := self x * self x.\n    a sqrt "root"\n).\n',
    'Point >> norm = self x "the x" + self y.\n',
    'Counter class >> run: me count: n =\n    me receive: {\n        "one" Inc -> [:m | m].\n'
    '        Get -> [:m | m "last"].\n        Stop -> [:m | "a long comment that does not fit"]\n    }.\n',
    # between statements, at the end of a block, in an empty block
    'x := [:a |\n    a foo. "after foo"\n    "before bar" a bar\n    "closing"\n].\n',
    'x := ["nothing"].\n',
    'x := [:a | "nothing"].\n',
    # between keyword parts, before operators and unary selectors
    'x := a at: 1 "the key" put: 2.\n',
    'x := a "before plus" + b.\n',
    'x := a "before foo" foo.\n',
    # arrays, braces, records, cascades, patterns
    'x := #(1 "one" 2 "end").\n',
    'x := { 1. "two" 2 "end" }.\n',
    'x := { a: 1. "b" b: 2 "end" }.\n',
    'x := Transcript show: 1; "then" cr.\n',
    'Point >> at: i put: "the value" v = v.\n',
])
def test_comments_in_place(src):
    assert format_program(parse_text(src, "c.lp")) == src


def test_lp_fmt_keeps_the_reported_case(tmp_path, lp):
    f = tmp_path / "r.lp"
    src = ('Object subclass: #M.\n\nM class >> masks = (\n    "in the body" a := 16rFF.\n'
           '    b := 2r1010. "bits"\n    a + b + 1e6\n).\n')
    f.write_text(src)
    r = lp("fmt", str(f))
    assert (r.returncode, r.stdout.decode()) == (0, src)
