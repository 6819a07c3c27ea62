"""The type oracle (`LP_TYPE_ORACLE=1 lp run`): every send the checker typed with a class is
checked, as the program runs, to answer an instance of that class.

The native compiler trusts those types (a `floor` on what the checker calls an Integer compiles to
nothing), so a type the checker got wrong is a soundness bug even when `lp run` goes on without an
error. The oracle makes such a bug an error at the send, for the soundness fuzzer
(tests/soundness) and for anyone chasing a difference between the two modes.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.terms import TCon, prune

SELECTOR = " typeOracle:"   # a space: no LP source can name it

# Types a value of another class may have, by design (docs/types.md "Known limits"): a single-branch
# conditional is typed nil but answers its block's value when taken; `Class` is any class; a
# `Number` is an Integer or a Float, checked as such below.
_UNCHECKED = {"UndefinedObject", "Class", "Method", "Object"}


def expectations(types: dict) -> dict:
    """id(send node) -> (class name, class side) for every send the checker typed with a class."""
    out = {}
    for key, (node, t) in types.items():
        if type(node) is not A.Send:
            continue
        t = prune(t)
        if type(t) is not TCon or t.name in _UNCHECKED:
            continue
        name, class_side = (t.name[:-6], True) if t.name.endswith(" class") else (t.name, False)
        out[key] = (name, class_side)
    return out


def install(interp, types: dict) -> None:
    """Turn the oracle on for the programs `interp.load` compiles next."""
    from lp.interp.code import Primitive
    interp.type_expectations = expectations(types)
    interp.classes["Object"].methods[SELECTOR] = Primitive(_check, SELECTOR)


def _check(p, value, expected):
    name, class_side = expected
    interp = p.interp
    if _fits(interp, value, name, class_side):
        return value
    from lp.interp.errors import LPRaise, make_error
    want = f"`{name} class`" if class_side else f"`{name}`"
    raise LPRaise(make_error(interp, f"type oracle: the checker typed this send {want}, but it answered "
                                     f"{interp.describe(value)}"))


def _fits(interp, value, name, class_side) -> bool:
    from lp.interp.values import LPClass
    cls = interp.classes.get(name)
    if cls is None:
        return True     # a type with no run-time class of that name (Future, Remote, ...): not checked
    if class_side:
        return type(value) is LPClass and value.inherits(cls)
    if name == "Number":
        return type(value) in (int, float)
    got = interp.class_of(value)
    return got.inherits(cls)
