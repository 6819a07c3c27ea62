"""`lp fmt` prints every literal as its author wrote it: radix, exponent, negative and float forms,
symbols with or without quotes, bare words and nested arrays in literal arrays."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lp.syntax.format import format_program
from lp.syntax.parser import parse_text

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@st.composite
def radix_literals(draw):
    radix = draw(st.integers(2, 36))
    digits = draw(st.text(st.sampled_from(DIGITS[:radix]), min_size=1, max_size=8))
    return f"{radix}r{digits}"


digits = st.from_regex(r"[0-9]{1,6}", fullmatch=True)
exponent_ints = st.builds(lambda m, e: f"{m}e{e}", digits.filter(lambda d: len(d) <= 3), st.integers(0, 12))
floats = st.one_of(
    st.builds(lambda a, b: f"{a}.{b}", digits, digits),
    st.builds(lambda a, b, e: f"{a}.{b}e{e}", digits, digits, st.integers(-300, 300)),
    st.builds(lambda a, e: f"{a}e-{e}", digits, st.integers(1, 300)),
)
unsigned = st.one_of(digits, radix_literals(), exponent_ints, floats)
numbers = st.builds(lambda neg, n: ("-" if neg else "") + n, st.booleans(), unsigned)


def layout_with(a: str, b: str) -> str:
    """A canonically laid out program using the two literals in every position a literal can take."""
    return (f"x := {a}.\n"
            f"y := {a} + {b}.\n"
            f"z := #({a} {b} ({b})).\n"
            f"w := p at: {a} put: {b}.\n"
            f"{a} printNl.\n")


@settings(max_examples=300, deadline=None)
@given(numbers, numbers)
def test_numbers_keep_their_spelling(a, b):
    src = layout_with(a, b)
    assert format_program(parse_text(src, "n.lp")) == src


@pytest.mark.parametrize("literal", ["16rFF", "2r1010", "1e6", "-16r1F", "36rZZ", "007", "1.50", "1.5e3",
                                     "2.5e-3", "1e-2", "-0", "-0.0", "9223372036854775807"])
def test_reported_spellings_survive(literal):
    src = f"x := {literal}.\n"
    assert format_program(parse_text(src, "n.lp")) == src


@pytest.mark.parametrize("src", [
    "x := #'sym'.\n", "x := #sym.\n", "x := #at:put:.\n", "x := #(foo #foo at:put: #'a b' $a 'x' true).\n",
    "x := #((1 2) #(3 4) ()).\n",
])
def test_symbols_and_literal_arrays_keep_their_spelling(src):
    assert format_program(parse_text(src, "s.lp")) == src
