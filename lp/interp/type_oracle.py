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

def expectations(types: dict, discarded=frozenset()) -> dict:
    """id(send node) -> (class name, class side) for every send the checker typed with a class,
    except those whose value it typed as thrown away (a statement's conditional or receive, typed
    nil whatever its arms answer: nothing can see that value)."""
    out = {}
    for key, (node, t) in types.items():
        if type(node) is not A.Send or key in discarded:
            continue
        t = prune(t)
        if type(t) is not TCon:
            continue
        name, class_side = (t.name[:-6], True) if t.name.endswith(" class") else (t.name, False)
        out[key] = (name, class_side)
    return out


def install(interp, types: dict, discarded=frozenset()) -> None:
    """Turn the oracle on for the programs `interp.load` compiles next."""
    from lp.interp.code import Primitive
    interp.type_expectations = expectations(types, discarded)
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
