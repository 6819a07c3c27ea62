"""Which user classes are generic: a field whose type no method fixes becomes a type parameter.

After the methods are inferred with one type per field, a field of a class that
inherits from `Object` directly and has no subclasses is generic when its type is
still an unconstrained variable: no method reads it as a particular class, so each
instance may hold its own type (`Box[Integer]`, `Box[String]`, a request class whose
`reply` answers different types on different servers); so is one whose type still
contains such a variable (`items` of type `Array[a]`). The checker then runs again
with those fields as parameters. Classes in a hierarchy keep one type per field
(subtyping between them stays nominal).
"""
from __future__ import annotations

from lp.types.terms import TCon, TVar, prune


def _open(t) -> bool:
    """Does t still contain a type variable, none of them waiting on a send (`Array[a]`, `a`)?"""
    found, constrained = [], []

    def walk(x):
        x = prune(x)
        if type(x) is TVar:
            (constrained if x.pending else found).append(x)
        elif type(x) is TCon:
            for a in x.args:
                walk(a)
    walk(t)
    return bool(found) and not constrained


def generic_fields(ck) -> dict[str, list[str]]:
    out = {}
    for info in ck.table.classes.values():
        if info.builtin or info.superclass != "Object" or info.subclasses:
            continue
        free = [f for f in info.fields if _open(info.field_types[f])]
        if free:
            out[info.name] = free
    return out
