"""Integer and Float selectors against Python: overflow errors, floored // and \\\\, truncated rem:."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.library.helpers import answers
from tests.library.model import INT_MAX, INT_MIN, err, int_checked, overflow, p_float

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
ints = st.one_of(st.integers(-50, 50), st.integers(INT_MIN, INT_MAX),
                 st.sampled_from([INT_MIN, INT_MAX, INT_MIN + 1, INT_MAX - 1, 0, 1, -1, 1 << 32, -(1 << 31)]))
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)


def int_model(a: int, op: str, b: int) -> str:
    if op in ("+", "-", "*"):
        r = {"+": a + b, "-": a - b, "*": a * b}[op]
        return int_checked(r, a, op, b)
    if op in ("//", "\\\\", "rem:") and b == 0:
        return err("division by zero")
    if op == "//":
        return int_checked(a // b, a, op, b)
    if op == "\\\\":
        return str(a % b)
    if op == "rem:":
        r = abs(a) % abs(b)
        return str(r if a >= 0 else -r)
    if op == "max:":
        return str(max(a, b))
    if op == "min:":
        return str(min(a, b))
    if op == "<":
        return str(a < b).lower()
    if op == "=":
        return str(a == b).lower()
    if op == "gcd:":
        return int_checked(math.gcd(a, b), a, op, b)
    if op in ("bitAnd:", "bitOr:", "bitXor:"):
        return str({"bitAnd:": a & b, "bitOr:": a | b, "bitXor:": a ^ b}[op])
    raise AssertionError(op)


OPS = ["+", "-", "*", "//", "\\\\", "rem:", "max:", "min:", "<", "=", "gcd:", "bitAnd:", "bitOr:", "bitXor:"]


@SETTINGS
@given(st.lists(st.tuples(ints, st.sampled_from(OPS), ints), min_size=40, max_size=40))
@example([(INT_MAX, "rem:", 10), (-INT_MAX, "rem:", 10), (INT_MIN, "//", -1), (INT_MIN, "gcd:", 0),
          (-7, "//", 2), (-7, "\\\\", 2), (7, "rem:", -2)])
def test_integer_binary_selectors(cases):
    exprs = [f"({a}) {op} ({b})" for a, op, b in cases]
    assert answers(exprs) == [int_model(a, op, b) for a, op, b in cases]


def unary_model(a: int, sel: str) -> str:
    if sel == "abs":
        return int_checked(abs(a), "abs", "of", a)
    if sel == "negated":
        return int_checked(-a, 0, "-", a)
    if sel == "squared":
        return int_checked(a * a, a, "*", a)
    if sel == "even":
        return str(a % 2 == 0).lower()
    if sel == "sign":
        return str((a > 0) - (a < 0))
    if sel == "printString":
        return "'" + str(a) + "'"
    if sel == "asFloat":
        return p_float(float(a))
    if sel == "asString asInteger":
        return str(a)
    raise AssertionError(sel)


@SETTINGS
@given(st.lists(st.tuples(ints, st.sampled_from(["abs", "negated", "squared", "even", "sign", "printString",
                                                  "asFloat", "asString asInteger"])), min_size=40, max_size=40))
def test_integer_unary_selectors(cases):
    exprs = [f"({a}) {sel}" for a, sel in cases]
    assert answers(exprs) == [unary_model(a, sel) for a, sel in cases]


def shift_model(a: int, b: int) -> str:
    if b < 0:
        return str(a >> min(-b, 64))
    if a == 0:
        return "0"
    if b >= 64:
        return overflow(a, "bitShift:", b)
    return int_checked(a << b, a, "bitShift:", b)


def power_model(a: int, b: int) -> str:
    if b < 0:
        return err(f"{a} raisedTo: {b}: an Integer power needs an exponent >= 0 (use asFloat for a fraction)")
    if a in (0, 1, -1) or b <= 64:
        return int_checked(a ** b, a, "raisedTo:", b)
    return overflow(a, "raisedTo:", b)


@SETTINGS
@given(st.lists(st.tuples(ints, st.one_of(st.integers(-70, 70), ints)), min_size=30, max_size=30),
       st.lists(st.tuples(st.integers(-20, 20), st.integers(-3, 70)), min_size=30, max_size=30))
@example([(1, 10_000_000_000), (-1, -10_000_000_000), (3, 61)], [(2, 62), (-2, 63), (2, -1)])
def test_bit_shift_and_raised_to(shifts, powers):
    exprs = [f"({a}) bitShift: ({b})" for a, b in shifts] + [f"({a}) raisedTo: ({b})" for a, b in powers]
    want = [shift_model(a, b) for a, b in shifts] + [power_model(a, b) for a, b in powers]
    assert answers(exprs) == want


def float_model(a, op: str, b) -> str:
    if op in ("/", "//", "\\\\") and b == 0:
        return err("division by zero")
    r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
         "//": lambda: a // b, "\\\\": lambda: a % b, "<": lambda: a < b, "max:": lambda: max(a, b)}[op]()
    if type(r) is bool:
        return str(r).lower()
    if op == "max:":
        return p_float(r) if type(r) is float else str(r)
    if math.isinf(r):
        return err(f"float overflow: {p_float(a) if type(a) is float else a} {op} "
                   f"{p_float(b) if type(b) is float else b} is too large")
    return p_float(float(r))


@SETTINGS
@given(st.lists(st.tuples(st.one_of(floats, st.integers(-1000, 1000)), st.sampled_from(
    ["+", "-", "*", "/", "//", "\\\\", "<", "max:"]), floats), min_size=40, max_size=40))
def test_float_arithmetic_and_mixing(cases):
    exprs = [f"({p_float(a) if type(a) is float else a}) {op} ({p_float(b)})" for a, op, b in cases]
    assert answers(exprs) == [float_model(a, op, b) for a, op, b in cases]


@SETTINGS
@given(st.lists(floats, min_size=40, max_size=40))
def test_float_print_string_reads_back_and_conversions(xs):
    exprs = [f"({p_float(x)}) printString" for x in xs] + [f"({p_float(x)}) truncated" for x in xs]
    got = answers(exprs)
    for x, text in zip(xs, got[:len(xs)]):
        assert float(text.strip("'")) == x
    for x, text in zip(xs, got[len(xs):]):
        t = math.trunc(x)
        assert text == (str(t) if INT_MIN <= t <= INT_MAX else
                        overflow(p_float(x), "as", "Integer"))
