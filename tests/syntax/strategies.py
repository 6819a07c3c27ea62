"""Hypothesis strategies that generate well-formed LP ASTs (without spans).

The generated trees are ones the parser can produce: for example no
single-expression Sequence (the parser turns `(e)` into `e`) and no brace array
made only of associations (that is a DispatchTable).
"""
from __future__ import annotations

from hypothesis import strategies as st

from lp.syntax import ast as A

RESERVED = {"self", "super", "nil", "true", "false", "Import"}
lower = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,6}", fullmatch=True).filter(lambda s: s not in RESERVED)
upper = st.from_regex(r"[A-Z][a-zA-Z0-9]{0,6}", fullmatch=True).filter(lambda s: s not in RESERVED)
keyword = lower.map(lambda s: s + ":").filter(lambda k: k not in ("subclass:", "fields:"))
binops = st.sampled_from(["+", "-", "*", "/", "//", "\\\\", "<", "<=", ">=", "=", "~=", "==", ",", "->", "!", "@", "&"])
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)
text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)
chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
symbol_names = st.one_of(lower, upper, st.lists(keyword, min_size=1, max_size=3).map("".join),
                         binops, text.filter(bool))

literal = st.one_of(
    ints.map(A.IntLit), floats.map(A.FloatLit), text.map(A.StrLit), chars.map(A.CharLit),
    symbol_names.map(A.SymLit),
)


def lit_array_items():
    leaf = st.one_of(literal, st.sampled_from(["true", "false", "nil"]).map(A.Name))
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=3).map(lambda xs: A.LitArray(tuple(xs))),
                        max_leaves=6)


lit_array = st.lists(lit_array_items(), max_size=4).map(lambda xs: A.LitArray(tuple(xs)))
names = st.one_of(lower, upper, st.sampled_from(["self", "super", "nil", "true", "false"])).map(A.Name)


def _params(min_size=0, max_size=3):
    return st.lists(lower, min_size=min_size, max_size=max_size, unique=True).map(
        lambda ps: tuple(A.Param(p) for p in ps))


def _build_expressions():
    e = st.deferred(lambda: expr)
    stmt = st.one_of(e, st.builds(A.Assign, lower, e), st.builds(A.Return, e))
    body = st.lists(stmt, max_size=3).map(tuple)
    keyword_sel = st.lists(keyword, min_size=1, max_size=3)
    three = st.lists(e, min_size=3, max_size=3)
    kw = st.builds(lambda r, sels, args: A.Send(r, "".join(sels), tuple(args[:len(sels)])), e, keyword_sel, three)
    unary_msg = lower.map(lambda s: A.Message(s, ()))
    binary_msg = st.builds(lambda op, a: A.Message(op, (a,)), binops, e)
    keyword_msg = st.builds(lambda sels, args: A.Message("".join(sels), tuple(args[:len(sels)])), keyword_sel, three)
    first_msg = st.one_of(unary_msg, binary_msg, keyword_msg).map(lambda m: (m,))
    part = st.one_of(
        st.builds(lambda u, b, k: tuple(u + b + k), st.lists(unary_msg, min_size=1, max_size=2),
                  st.lists(binary_msg, max_size=2), st.lists(keyword_msg, max_size=1)),
        st.builds(lambda b, k: tuple(b + k), st.lists(binary_msg, min_size=1, max_size=2),
                  st.lists(keyword_msg, max_size=1)),
        keyword_msg.map(lambda m: (m,)),
    )
    cascade = st.builds(lambda r, f, rest: A.Cascade(r, (f, *rest)), e, first_msg, st.lists(part, min_size=1, max_size=2))
    seq = st.lists(stmt, min_size=1, max_size=3).filter(
        lambda b: len(b) > 1 or isinstance(b[0], (A.Assign, A.Return))).map(lambda b: A.Sequence(tuple(b)))
    brace = st.lists(e, max_size=3).filter(
        lambda xs: not xs or not all(isinstance(x, A.Send) and x.selector == "->" for x in xs)
    ).map(lambda xs: A.BraceArray(tuple(xs)))
    record = st.lists(st.tuples(lower, e), min_size=1, max_size=3, unique_by=lambda t: t[0]).map(
        lambda fs: A.Record(tuple(A.RecordField(n, v) for n, v in fs)))
    table = st.lists(st.builds(A.TableEntry, e, e), min_size=1, max_size=3).map(lambda es: A.DispatchTable(tuple(es)))
    leaf = st.one_of(literal, names, lit_array)
    compound = st.one_of(
        st.builds(lambda r, s: A.Send(r, s, ()), e, lower),
        st.builds(lambda r, op, a: A.Send(r, op, (a,)), e, binops, e),
        kw, cascade, seq, brace, record, table, st.builds(A.Block, _params(), body),
    )
    expr = st.one_of(leaf, leaf, leaf, compound)
    return expr


expressions = _build_expressions()


def top_items():
    e = expressions
    stmt = st.one_of(e, st.builds(A.Assign, lower, e))
    cls = st.builds(lambda n, s, fs, has: A.ClassDecl(n, s, tuple(fs), has or bool(fs)),
                    upper, upper, st.lists(lower, max_size=3, unique=True), st.booleans())

    def method(cls_name, side, kind, sels, params, body):
        if kind == "unary":
            return A.MethodDecl(cls_name, side, sels[0][:-1], (), body)
        if kind == "binary":
            return A.MethodDecl(cls_name, side, "+", params[:1], body)
        n = min(len(sels), len(params))
        return A.MethodDecl(cls_name, side, "".join(sels[:n]), params[:n], body)

    meth = st.builds(method, upper, st.booleans(), st.sampled_from(["unary", "binary", "keyword"]),
                     st.lists(keyword, min_size=1, max_size=3), _params(1, 3), e)
    imp = upper.map(A.Import)
    return st.one_of(stmt, cls, meth, imp)


programs = st.lists(top_items(), min_size=1, max_size=5).map(lambda xs: A.Program(tuple(xs)))
