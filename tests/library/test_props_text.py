"""String, Symbol and Character selectors against Python's str."""
from __future__ import annotations

import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.library.helpers import answers
from tests.library.model import INT_MAX, INT_MIN, Ch, Sym, err, p, p_str, p_sym

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
ALPHABET = "abcAB xyz'\n1-é+:"
texts = st.text(alphabet=ALPHABET, max_size=8)
chars = st.sampled_from(list(ALPHABET))


def quoted(s: str) -> str:
    return p_str(s if len(s) <= 40 else s[:37] + "...")


def as_integer(s: str) -> str:
    t = s   # no white space around the digits (library.md: anything else raises)
    if not re.fullmatch(r"[+-]?[0-9]+", t):
        return err(f"{quoted(s)} is not an integer")
    v = int(t)
    return str(v) if INT_MIN <= v <= INT_MAX else err(f"{quoted(t)} does not fit in 64 bits")


def copy_from(s, i, j):
    if i < 1 or j > len(s) or i > j + 1:
        return err(f"copyFrom: {i} to: {j} is out of bounds for size {len(s)}")
    return p(s[i - 1:j])


def substrings_by(s: str, seps: str):
    return [x for x in re.split("[" + re.escape(seps) + "]", s) if x] if seps else ([s] if s else [])


def cases(s: str, t: str, c: str, i: int, j: int):
    """(LP expression, expected answer) pairs for one drawn string s, other string t, character c."""
    S, T, C = p_str(s), p_str(t), "$" + c
    out = [
        (f"{S} size", str(len(s))), (f"{S} reversed", p(s[::-1])), (f"{S} asUppercase", p(s.upper())),
        (f"{S} asLowercase", p(s.lower())), (f"{S} , {T}", p(s + t)),
        (f"{S} includesSubstring: {T}", p(t in s)), (f"{S} startsWith: {T}", p(s.startswith(t))),
        (f"{S} endsWith: {T}", p(s.endswith(t))), (f"{S} indexOf: {C}", str(s.find(c) + 1)),
        (f"{S} occurrencesOf: {C}", str(s.count(c))), (f"{S} includes: {C}", p(c in s)),
        (f"{S} copyFrom: {i} to: {j}", copy_from(s, i, j)),
        (f"{S} substrings", p(s.split())), (f"{S} substrings: {T}", p(substrings_by(s, t))),
        (f"{S} trim", p(s.strip())), (f"{S} displayString", p(s)), (f"{S} printString size", str(len(p_str(s)))),
        (f"{S} asSymbol", p_sym(s)), (f"{S} asSymbol displayString", p(s)), (f"{S} asInteger", as_integer(s)),
        (f"{S} asArray", p([Ch(x) for x in s])), (f"{S} lines", p(s.splitlines())),
        (f"{S} isEmpty", p(not s)), (f"{S} = {T}", p(s == t)), (f"{S} < {T}", p(s < t)),
        (f"{T} join: {{ {S}. {S} }}", p(t.join([s, s]))),
        (f"{S} at: {i}", p(Ch(s[i - 1])) if 1 <= i <= len(s) else err(f"index {i} is out of bounds: the size is {len(s)}")),
        (f"{S} first", p(Ch(s[0])) if s else err("#first of an empty String")),
        (f"{C} value", str(ord(c))), (f"{C} printString", p("$" + c)), (f"{C} displayString", p(c)),
        (f"{C} isVowel", p(c.lower() in "aeiou")), (f"{C} isLetter", p(c.isalpha())), (f"{C} isDigit", p(c.isdigit())),
        (f"{C} asUppercase", p(Ch(c.upper() if len(c.upper()) == 1 else c))),
        (f"{S} asSymbol == {T} asSymbol", p(s == t)), (f"({S} , ':') asSymbol numArgs", str((s + ':').count(':'))),
    ]
    if t:
        out += [(f"{S} splitOn: {T}", p(s.split(t))), (f"{S} copyReplaceAll: {T} with: 'Q'", p(s.replace(t, "Q")))]
    return out


@SETTINGS
@given(st.lists(st.tuples(texts, texts, chars, st.integers(0, 9), st.integers(-1, 9)), min_size=6, max_size=6))
def test_string_symbol_and_character_selectors(draws):
    pairs = [pc for d in draws for pc in cases(*d)]
    got = answers([e for e, _ in pairs])
    assert dict(zip([e for e, _ in pairs], got)) == dict(pairs)


@SETTINGS
@given(st.lists(st.one_of(st.integers(INT_MIN, INT_MAX).map(str), st.text(alphabet="0123456789+- _x", max_size=22)),
                min_size=40, max_size=40))
def test_as_integer_and_as_number(strings):
    got = answers([f"{p_str(s)} asInteger" for s in strings])
    assert got == [as_integer(s) for s in strings]


@SETTINGS
@given(st.lists(st.text(alphabet="abz_:+-' 1", min_size=1, max_size=6), min_size=40, max_size=40))
def test_symbol_print_string(names):
    assert answers([f"{p_sym(n)}" for n in names]) == [p(Sym(n)) for n in names]
