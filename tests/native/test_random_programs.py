"""Random well-typed programs (Integer, Float and Boolean expressions with inlined and
non-inlined control) run by `lp run` and as a binary: the outputs must be identical.
Each expression is printed through `Error try:onError:`, so overflow and division by
zero are compared too."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.native.harness import build, interpret, native

SMALL = st.integers(-20, 20).map(str)
EDGE = st.sampled_from(["9223372036854775807", "-9223372036854775807", "4611686018427387904", "0", "1", "-1"])
FLOATS = st.sampled_from(["0.5", "2.25", "-1.5", "1.0e10", "3.0", "0.1"])


def ints(depth: int):
    leaf = st.one_of(SMALL, EDGE, st.just("x"), st.just("y"))
    if depth == 0:
        return leaf
    sub = ints(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "\\\\", "max:", "min:", "rem:"]), sub)
          .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(bools(depth - 1), sub, sub).map(lambda t: f"({t[0]} ifTrue: [{t[1]}] ifFalse: [{t[2]}])"),
        st.tuples(sub, st.sampled_from(["abs", "negated", "squared"])).map(lambda t: f"({t[0]} {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"([:a :b | a - b] value: {t[0]} value: {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"(T twice: {t[0]} plus: {t[1]})"),
    )


def bools(depth: int):
    leaf = st.sampled_from(["true", "false"])
    if depth == 0:
        return leaf
    sub = ints(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["<", ">", "<=", ">=", "=", "~="]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(bools(depth - 1), st.sampled_from(["and:", "or:"]), bools(depth - 1))
          .map(lambda t: f"({t[0]} {t[1]} [{t[2]}])"),
        bools(depth - 1).map(lambda b: f"{b} not"),
    )


def floats(depth: int):
    leaf = st.one_of(FLOATS, SMALL.map(lambda s: f"{s} asFloat"))
    if depth == 0:
        return leaf
    sub = floats(depth - 1)
    return st.one_of(leaf, st.tuples(sub, st.sampled_from(["+", "-", "*", "/"]), sub)
                     .map(lambda t: f"({t[0]} {t[1]} {t[2]})"))


def program(exprs) -> str:
    lines = ["Object subclass: #T.", "T class >> twice: a plus: b = a * 2 + b.", "x := 7.", "y := -3."]
    for e in exprs:
        lines.append(f"(Error try: [{e} printString] onError: [:e | e message]) displayNl.")
    return "\n".join(lines) + "\n"


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(ints(3), bools(3), floats(2)), min_size=10, max_size=25))
def test_random_expressions_agree(tmp_path_factory, exprs):
    d = tmp_path_factory.mktemp("rand")
    src = d / "r.lp"
    src.write_text(program(exprs))
    want = interpret(src)
    assert want.status == 0, want.stderr.decode()
    b = build(src, d / "r")
    assert b.status == 0, b.stderr.decode()
    got = native(d / "r", d)
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
