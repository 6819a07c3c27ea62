"""The one JSON form of LP values (docs/network.md, "Values on the wire"; docs/grains.md, "The stored
form"): what Remote sends and what a grain's state is stored as. Plain JSON stays plain; the LP
values JSON lacks are tagged so that they come back as what they were: an instance is an object with
`"$class"` and its fields, the others a one-key object (`$symbol $char $maybe $bytes $assoc $dict`).

Two modes share the form. The wire is lenient in what it sends: a value JSON can only approximate (a
Record, an Interval) goes as plain JSON, and an object naming a class the reader lacks becomes a
Dictionary; but a tagged object whose value is not of its tag's shape is malformed and raises. A
grain state is exact: encoding raises for a value that would not come back as itself, and decoding
raises for an instance of a class the program does not define with exactly those fields, since the
state is trusted to be of its class.
"""
from __future__ import annotations

import base64
import json
import re

from lp.interp.errors import LPRaise, make_error
from lp.interp.prims_objects import _json_constant, _json_float, _json_int, _scalar_text, to_json
from lp.interp.values import NONE, Association, Char, Instance, LPDict, Maybe, Symbol

EXACT_SCALARS = (type(None), bool, int, float, str)


def tagged(p, v, exact: bool = False):
    """v as JSON data (exact: raising for what would not decode as v itself)."""
    t = type(v)
    if t is Instance:
        out = {"$class": v.cls.name}
        out.update((n, tagged(p, x, exact)) for n, x in zip(v.cls.fields, v.values))
        return out
    if t is Symbol:
        return {"$symbol": v.name}
    if t is Char:
        return {"$char": v.ch}
    if t is Maybe:
        return {"$maybe": [tagged(p, v.value, exact)] if v.present else []}
    if t is bytes:
        return {"$bytes": base64.b64encode(v).decode("ascii")}
    if t is Association:
        return {"$assoc": [tagged(p, v.key, exact), tagged(p, v.value, exact)]}
    if t is tuple:
        return [tagged(p, x, exact) for x in v]
    if t is LPDict:
        pairs = list(v.entries())
        if all(type(k) is str and not k.startswith("$") for k, _ in pairs):
            return {k: tagged(p, x, exact) for k, x in pairs}
        return {"$dict": [[tagged(p, k, exact), tagged(p, x, exact)] for k, x in pairs]}
    if exact and t not in EXACT_SCALARS:
        raise LPRaise(make_error(p.interp, f"a grain state cannot hold {p.interp.describe(v)}"))
    return to_json(p, v)


NEEDS = {"$symbol": "a String", "$char": "a String of one character", "$maybe": "an Array of at most one value",
         "$bytes": "base64 text", "$assoc": "an Array of two values", "$dict": "an Array of pairs",
         "$class": "a class name (a String)"}
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def malformed_text(tag: str) -> str:
    """The error for a tagged object whose value is not of its tag's shape (runtime/native/json.c's words)."""
    return f"a malformed tagged value: {tag} needs {NEEDS[tag]}"


def _bad(interp, tag):
    raise LPRaise(make_error(interp, malformed_text(tag)))


def untagged(interp, v, exact: bool = False, bad=_bad):
    """The LP value of JSON data made by tagged (or plain JSON). A one-key object whose key is a tag
    but whose value is not of the tag's shape, or a "$class" that is no String, is malformed:
    bad(interp, tag) raises (in both modes, on the wire and for grain states alike)."""
    if isinstance(v, str):
        return _scalar_text(v)
    if isinstance(v, list):
        return tuple(untagged(interp, x, exact, bad) for x in v)
    if not isinstance(v, dict):
        return v
    if len(v) == 1 and next(iter(v)) in NEEDS and next(iter(v)) != "$class":
        (k, x), = v.items()
        if k == "$symbol" and isinstance(x, str):
            return Symbol(x)
        if k == "$char" and isinstance(x, str) and len(x) == 1:
            return Char(x)
        if k == "$maybe" and isinstance(x, list) and len(x) <= 1:
            return Maybe(True, untagged(interp, x[0], exact, bad)) if x else NONE
        if k == "$bytes" and isinstance(x, str) and len(x) % 4 == 0 and _BASE64.fullmatch(x):
            return base64.b64decode(x)
        if k == "$assoc" and isinstance(x, list) and len(x) == 2:
            return Association(untagged(interp, x[0], exact, bad), untagged(interp, x[1], exact, bad))
        if k == "$dict" and isinstance(x, list) and all(isinstance(e, list) and len(e) == 2 for e in x):
            return LPDict.of((untagged(interp, a, exact, bad), untagged(interp, b, exact, bad)) for a, b in x)
        bad(interp, k)
    if "$class" in v:
        name = v["$class"]
        if not isinstance(name, str):
            bad(interp, "$class")
        cls = interp.classes.get(name)
        fields = set(v) - {"$class"}
        if cls is not None and not cls.builtin and set(cls.fields) == fields:
            return Instance(cls, tuple(untagged(interp, v[f], exact, bad) for f in cls.fields))
        if exact:
            if cls is None or cls.builtin:
                raise LPRaise(make_error(interp, f"a stored grain state names the class {name}, "
                                         "which this program does not define"))
            missing = sorted(set(cls.fields) - fields) or sorted(fields - set(cls.fields))
            raise LPRaise(make_error(interp, f"a stored {name} does not have the fields of {name} "
                                     f"(the field {missing[0]} differs)"))
    return LPDict.of((_scalar_text(k), untagged(interp, x, exact, bad)) for k, x in v.items())


def encode(p, v, exact: bool = False) -> str:
    return json.dumps(tagged(p, v, exact), separators=(",", ":"), ensure_ascii=False)


def loads(text: str):
    """JSON text as Python data, numbers as LP's (64-bit Integers, finite Floats); ValueError else."""
    return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
