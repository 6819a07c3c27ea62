"""SQL parameters in the checker (docs/durable.md): `storage execute: sql with: { 'a'. 1. nil }`.

A statement's parameters mix kinds of value, which an Array literal cannot (its elements have
one type). When the receiver is a `Storage`, a literal parameter array is typed element by
element instead: each must be nil, an Integer, a Float, a String or a ByteArray (or Dynamic),
and the array is then an `Array[Dynamic]`, what the signature takes. A receiver not known yet is
a `Storage` when no other class has the selector (the checker's rule for any such selector). `transaction:`'s literal
`{ sql -> { ... }. ... }` (parsed as a dispatch table) is typed the same way. Any other receiver is typed as usual.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import problems as P
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
            ck.report(P.Mismatch("sql parameter", (sel,), clash, item.span, TCon("String"), t))
    return TCon("Array", (DYN,))


def _statement(ck, key, value, scope, cx, sel):
    """`sql -> { ... }` in a literal transaction: Association[String, Array[Dynamic]]."""
    k = ck.infer(key, scope, cx)
    v = _params(ck, value.items, scope, cx, sel) if type(value) in ARRAYS else ck.infer(value, scope, cx)
    if type(value) in ARRAYS:
        ck.types[id(value)] = (value, v)
    return TCon("Association", (k, v))


def form(ck, n, scope, cx, discard):
    recv = n.receiver
    if type(recv) is A.Name and recv.name == "super":
        return None
    arg = n.args[-1]
    sel = n.selector
    if type(arg) not in ARRAYS and not (sel == "transaction:" and type(arg) is A.DispatchTable):
        return None
    rt = ck.infer(recv, scope, cx)
    r = prune(rt)
    if type(r) is TVar and set(ck.owners.get(sel) or ()) == {"Storage"}:
        ck.unify(r, TCon("Storage"))   # as for any selector one class alone has
        r = prune(rt)
    ats = [ck.block_arg(a, scope, cx, False) for a in n.args[:-1]]
    if type(r) is TCon and r.name == "Storage":
        if sel == "transaction:":
            elem = ck.fresh()
            pairs = [(e.key, e.handler) for e in arg.entries] if type(arg) is A.DispatchTable else \
                [(i.receiver, i.args[0]) if type(i) is A.Send and i.selector == "->" else (None, i) for i in arg.items]
            for key, value in pairs:
                ck.unify(elem, ck.infer(value, scope, cx) if key is None else _statement(ck, key, value, scope, cx, sel))
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
