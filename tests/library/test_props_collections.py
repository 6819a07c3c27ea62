"""Array, Dictionary, Interval, Maybe and Association selectors, and printString/displayString of
nested values, against Python lists, dicts and ranges."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.library.helpers import answers
from tests.library.model import Ch, Sym, err, p, src

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
small = st.integers(-5, 9)
arrays = st.lists(small, max_size=7)


def array_cases(a: list, b: list, x: int, i: int):
    A, B = src(a), src(b)
    bounds = err(f"index {i} is out of bounds: the size is {len(a)}")
    inside = 1 <= i <= len(a)
    empty = err("#first of an empty Array")
    out = [
        (f"{A} size", p(len(a))), (f"{A} reversed", p(a[::-1])), (f"{A} includes: {x}", p(x in a)),
        (f"{A} indexOf: {x}", p(a.index(x) + 1 if x in a else 0)), (f"{A} occurrencesOf: {x}", p(a.count(x))),
        (f"{A} at: {i}", p(a[i - 1]) if inside else bounds),
        (f"{A} at: {i} put: {x}", p(a[:i - 1] + [x] + a[i:]) if inside else
         err(f"index {i} is out of bounds: the size is {len(a)}")),
        (f"{A} copyWith: {x}", p(a + [x])), (f"{A} , {B}", p(a + b)), (f"{A} isEmpty", p(not a)),
        (f"{A} first", p(a[0]) if a else empty), (f"{A} last", p(a[-1]) if a else err("#last of an empty Array")),
        (f"{A} collect: [:e | e * 2]", p([e * 2 for e in a])), (f"{A} select: [:e | e even]", p([e for e in a if e % 2 == 0])),
        (f"{A} reject: [:e | e even]", p([e for e in a if e % 2])),
        (f"{A} inject: 0 into: [:s :e | s + e]", p(sum(a))), (f"{A} sum", p(sum(a))),
        (f"{A} sort: [:m :n | m <= n]", p(sorted(a))), (f"{A} sort: [:m :n | m >= n]", p(sorted(a, reverse=True))),
        (f"{A} asSortedArray", p(sorted(a))), (f"{A} max", p(max(a)) if a else empty),
        (f"{A} min", p(min(a)) if a else empty), (f"{A} allSatisfy: [:e | e > 0]", p(all(e > 0 for e in a))),
        (f"{A} anySatisfy: [:e | e > 0]", p(any(e > 0 for e in a))), (f"{A} count: [:e | e > 0]", p(sum(e > 0 for e in a))),
        (f"{A} detect: [:e | e > {x}] ifNone: [99]", p(next((e for e in a if e > x), 99))),
        (f"{A} with: {B} collect: [:m :n | m - n]", p([m - n for m, n in zip(a, b)]) if len(a) == len(b) else
         err(f"with:collect: needs Arrays of one size, not {len(a)} and {len(b)}")),
        (f"{A} copyWithout: {x}", p([e for e in a if e != x])), (f"{A} = {B}", p(a == b)),
        (f"{A} copyFrom: 2 to: {i}", p(a[1:i]) if 2 <= i + 1 and i <= len(a) else
         err(f"copyFrom: 2 to: {i} is out of bounds for size {len(a)}")),
        (f"{A} collectWithIndex: [:e :k | e * k]", p([e * k for k, e in enumerate(a, 1)])),
    ]
    return out


@SETTINGS
@given(st.lists(st.tuples(arrays, arrays, small, st.integers(-1, 8)), min_size=6, max_size=6))
def test_array_selectors(draws):
    pairs = [pc for d in draws for pc in array_cases(*d)]
    got = answers([e for e, _ in pairs])
    assert dict(zip([e for e, _ in pairs], got)) == dict(pairs)


keys = st.one_of(st.integers(0, 6), st.sampled_from([Sym("a"), Sym("b"), "a", "b"]))
ops = st.lists(st.one_of(st.tuples(st.just("put"), keys, small), st.tuples(st.just("remove"), keys)), max_size=12)


def _mk(k):
    """Model key: #a and 'a' are different LP keys although Sym('a') == 'a' in Python."""
    return (type(k).__name__, k)


def _p_dict(entries) -> str:
    return "Dictionary(" + ", ".join(f"{p(k)} -> {p(v)}" for k, v in entries) + ")"


def dict_cases(steps, probe):
    expr, model = "Dictionary new", {}
    for step in steps:
        if step[0] == "put":
            expr = f"({expr} at: {src(step[1])} put: {src(step[2])})"
            model[_mk(step[1])] = (model.get(_mk(step[1]), (step[1],))[0], step[2])
        else:
            expr = f"({expr} removeKey: {src(step[1])})"
            model.pop(_mk(step[1]), None)
    entries = list(model.values())
    vals = [v for _, v in entries]
    P, found = src(probe), model.get(_mk(probe))
    return [
        (expr, _p_dict(entries)), (f"{expr} keys", p([k for k, _ in entries])), (f"{expr} values", p(vals)),
        (f"{expr} size", p(len(entries))), (f"{expr} includesKey: {P}", p(found is not None)),
        (f"{expr} at: {P}", p(found[1]) if found else err(f"key not found: {p(probe)}")),
        (f"{expr} at: {P} ifAbsent: [42]", p(found[1] if found else 42)),
        (f"{expr} collect: [:v | v * 10]", _p_dict([(k, v * 10) for k, v in entries])),
        (f"{expr} select: [:v | v > 0]", _p_dict([(k, v) for k, v in entries if v > 0])),
        (f"{expr} inject: 0 into: [:s :v | s + v]", p(sum(vals))),
        (f"{expr} isEmpty", p(not entries)), (f"{expr} includes: 3", p(3 in vals)),
        (f"{expr} associations", "#(" + " ".join(f"{p(k)} -> {p(v)}" for k, v in entries) + ")"),
    ]


@SETTINGS
@given(st.lists(st.tuples(ops, keys), min_size=8, max_size=8))
def test_dictionary_selectors_keep_insertion_order(draws):
    pairs = [pc for d in draws for pc in dict_cases(*d)]
    got = answers([e for e, _ in pairs])
    assert dict(zip([e for e, _ in pairs], got)) == dict(pairs)


def interval_cases(a, b, step, x):
    r = list(range(a, b + (1 if step > 0 else -1), step))
    I = f"({a} to: {b} by: {step})"
    return [
        (f"{I} asArray", p(r)), (f"{I} size", p(len(r))), (f"{I} includes: {x}", p(x in r)),
        (f"{I} sum", p(sum(r))), (f"{I} collect: [:i | i * i]", p([i * i for i in r])),
        (f"{I} select: [:i | i even]", p([i for i in r if i % 2 == 0])),
        (f"{I} inject: 0 into: [:s :i | s - i]", p(-sum(r))), (f"{I} reversed asArray", p(r[::-1])),
        (f"{I} first", p(r[0]) if r else err("#first of an empty Interval")),
        (f"{I} last", p(r[-1]) if r else err("#last of an empty Interval")),
        (f"{I} isEmpty", p(not r)), (f"{a} to: {b} collect: [:i | i]", p(list(range(a, b + 1)))),
        (f"(Dictionary new at: (0 to: -1) put: 1) includesKey: {I}", p(not r)),
        (f"{I} hash = (0 to: -1) hash", p(True)) if not r else (f"{I} = (0 to: -1)", p(False)),
    ]


@SETTINGS
@given(st.lists(st.tuples(st.integers(-8, 8), st.integers(-8, 8), st.sampled_from([1, 2, 3, -1, -2]),
                          st.integers(-9, 9)), min_size=8, max_size=8))
def test_interval_selectors(draws):
    pairs = [pc for d in draws for pc in interval_cases(*d)]
    got = answers([e for e, _ in pairs])
    assert dict(zip([e for e, _ in pairs], got)) == dict(pairs)


scalars = st.one_of(small, st.text(alphabet="ab'c ", max_size=4), st.sampled_from([Sym("x"), Sym("at:put:"), Sym("a b")]),
                    st.sampled_from([Ch("a"), Ch("'"), Ch(" ")]), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=8)


def display(v) -> str:
    if isinstance(v, Sym) or isinstance(v, Ch):
        return str(v)
    if isinstance(v, str):
        return v
    return p(v)


@SETTINGS
@given(st.lists(st.tuples(values, values), min_size=25, max_size=25))
def test_print_and_display_strings(draws):
    exprs, want = [], []
    for v, w in draws:
        V, W = src(v), src(w)
        exprs += [V, f"{V} displayString", f"{V} -> {W}", f"Maybe some: {V}", f"(Maybe some: {V}) valueOr: 0",
                  f"Maybe none valueOr: {V}", f"({V} -> {W}) key", f"({V} -> {W}) value",
                  f"(Dictionary new at: 1 put: {V}) printString", f"{V} = {V}"]
        want += [p(v), p(display(v)), f"{p(v)} -> {p(w)}", f"Maybe some: {p(v)}", p(v), p(v), p(v), p(w),
                 p(f"Dictionary(1 -> {p(v)})"), p(True)]
    assert answers(exprs) == want
