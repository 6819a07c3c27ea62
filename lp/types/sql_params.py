"""SQL parameters in the checker (docs/durable.md): `storage execute: sql with: { 'a'. 1. nil }`.

A statement's parameters mix kinds of value, which an Array literal cannot (its elements have
one type). When the receiver is a `Storage`, a literal parameter array is typed element by
element instead: each must be nil, an Integer, a Float, a String or a ByteArray (or Dynamic),
and the array is then an `Array[Dynamic]`, what the signature takes. `transaction:`'s literal
`{ sql -> { ... }. ... }` is typed the same way. Any other receiver is typed as usual.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.terms import DYN, TCon, TVar, prune

SQL_VALUES = ("UndefinedObject", "Integer", "Float", "String", "ByteArray")
ARRAYS = (A.BraceArray, A.LitArray)


def _params(ck, items, scope, cx, sel):
    """Type a literal parameter array's elements one by one: Array[Dynamic]."""
    for item in items:
        t = prune(ck.infer(item, scope, cx))
        if t is DYN or type(t) is TVar or (type(t) is TCon and t.name in SQL_VALUES):
            continue
        clash = ck.unify(TCon("String"), t)
        if clash:
            ck.clash_error(clash, item.span, "This SQL parameter", f"`{sel}` needs",
                           hint="a SQL parameter is nil, an Integer, a Float, a String or a ByteArray")
    return TCon("Array", (DYN,))


def _statement(ck, item, scope, cx, sel):
    """`sql -> { ... }` in a literal transaction: Association[String, Array[Dynamic]]."""
    if type(item) is A.Send and item.selector == "->" and type(item.args[0]) in ARRAYS:
        k = ck.infer(item.receiver, scope, cx)
        t = TCon("Association", (k, _params(ck, item.args[0].items, scope, cx, sel)))
        ck.types[id(item)] = (item, t)
        return t
    return ck.infer(item, scope, cx)


def form(ck, n, scope, cx, discard):
    recv = n.receiver
    if type(recv) is A.Name and recv.name == "super":
        return None
    arg = n.args[-1]
    if type(arg) not in ARRAYS:
        return None
    rt = ck.infer(recv, scope, cx)
    r = prune(rt)
    sel = n.selector
    ats = [ck.block_arg(a, scope, cx, False) for a in n.args[:-1]]
    if type(r) is TCon and r.name == "Storage":
        if sel == "transaction:":
            elem = ck.fresh()
            for item in arg.items:
                ck.unify(elem, _statement(ck, item, scope, cx, sel))
            last = TCon("Array", (elem,))
        else:
            last = _params(ck, arg.items, scope, cx, sel)
        ck.types[id(arg)] = (arg, last)
    else:
        last = ck.block_arg(arg, scope, cx, False)
    return ck.send(rt, sel, ats + [last], n, cx.actor, discard, arg_nodes=n.args)


def register(parts):
    for sel in ("execute:with:", "query:with:", "transaction:"):
        parts.forms[sel] = form
