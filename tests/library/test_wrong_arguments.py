"""Every typed selector, sent with arguments of the wrong kind (as an unchecked program or a
`Dynamic` value can), answers a value or raises an LP Error: never a Python term."""
from __future__ import annotations

import itertools

from lp.types import library as L
from tests.library.helpers import SEP, no_python_terms, run

RECEIVERS = {
    "Integer": ["-9223372036854775808"], "Float": ["(JSON decode: '1e400')"], "Boolean": ["true"],
    "UndefinedObject": ["nil"], "Character": ["$a"], "String": ["''"], "Symbol": ["#ab"], "Array": ["#(1 2)"],
    "Dictionary": ["(Dictionary new at: 1 put: 2)"], "Maybe": ["(Maybe some: 1)", "Maybe none"],
    "Association": ["(1 -> 2)"], "Interval": ["(3 to: 1)"], "Error": ["(Error new: 'x')"],
}
CLASS_RECEIVERS = {"Array": "Array", "Dictionary": "Dictionary", "Maybe": "Maybe", "Association": "Association",
                   "Error": "Error", "JSON": "JSON", "Object": "Error"}
ARGS = ["nil", "-1", "'a'", "#(1)", "[:x | x]", "[:x :y | x]", "$a", "(JSON decode: 'NaN' )", "#b", "[nil]"]
SKIP = {"whileTrue:", "whileFalse:", "whileTrue", "whileFalse", "timesRepeat:", "printNl", "displayNl", "to:do:",
        "to:by:do:", "to:collect:", "signal", "raise", "signal:", "raise:", "ensure:", "ifCurtailed:"}


def sends(sel: str, limit: int):
    keyword = sel[0].isalpha()
    n = sel.count(":") if keyword else 1
    if not n:
        return [sel]
    parts = sel.split(":")[:-1] if keyword else [sel]
    combos = itertools.islice(itertools.product(ARGS, repeat=n), 0, limit)
    return [" ".join(f"{k}{':' if keyword else ''} {a}" for k, a in zip(parts, args)) for args in combos]


def expressions() -> list[str]:
    out = []
    for cls, receivers in RECEIVERS.items():
        table = dict(L.UNIVERSAL_SIGS)
        table.update(L.INSTANCE_SIGS.get(cls, {}))
        for sel, sig in table.items():
            if sel in SKIP or (sig.special and cls not in ("Integer", "Float")):
                continue
            out += [f"{r} {s}" for r in receivers for s in sends(sel, 12)]
    for cls, r in CLASS_RECEIVERS.items():
        for sel, sig in L.CLASS_SIGS.get(cls, {}).items():
            if not sig.special and sel not in SKIP:
                out += [f"{r} {s}" for s in sends(sel, 12)]
    return out


def test_wrong_arguments_raise_lp_errors():
    exprs = expressions()
    src = "".join(f"Transcript show: (Error try: [({e}) printString] onError: [:e | 'error: ' , e messageText]); "
                  f"show: '{SEP}'.\n" for e in exprs)
    status, out, err = run(src)
    assert (status, err) == (0, "")
    got = out.split(SEP)[:-1]
    assert len(got) == len(exprs)
    assert [(e, g) for e, g in zip(exprs, got) if not no_python_terms(g)] == []
