"""The primitives under stdlib/grain.lp (docs/grains.md): the grain reference, calling a method by
selector, the state codec and node ids.

A `GrainRef` (values.GrainRefValue) forwards every send its class does not answer itself (the
universal selectors, `printString`, `=`, ...) to its block as (selector, arguments): the machine
does so where it would otherwise raise "does not understand" (vm.py), so no other send pays for
it. The checker types such a send as the same send to the grain's class (lp/types/infer.py).

The state codec turns an LP value into JSON text and back without losing what it is: instances,
symbols, Maybes and dictionaries are tagged objects (`{"$i": "Counter", "f": {...}}`), so a state
written by one process is the same value when another reads it.
"""
from __future__ import annotations

import json
import os
import secrets
import socket

from lp.interp.code import FieldGetter, Method, Primitive
from lp.interp.errors import LPRaise, make_error
from lp.interp.prims_objects import _json_float, _json_int
from lp.interp.registry import prim
from lp.interp.values import NONE, Char, Closure, GrainRefValue, Instance, LPClass, LPDict, Maybe, Symbol
from lp.interp.vm import Call


@prim("GrainRef", "printString", "displayString")
def _ref_print(p, ref):
    return f"GrainRef({ref.label})"


@prim("GrainRef", "label")
def _ref_label(p, ref):
    return ref.label


@prim("GrainRef", "label:like:on:", class_side=True)
def _ref_new(p, cls, label, sample, blk):
    """sample is a value of the grain's class: only the checker looks at it, to type the reference."""
    if type(label) is not str or type(blk) is not Closure or blk.code.nparams != 2:
        raise LPRaise(make_error(p.interp, "GrainRef label:like:on: takes a String, a state and a "
                                 "two-argument Block"))
    return GrainRefValue(label, blk)


@prim("GrainRef", "perform:on:withArguments:", class_side=True)
def _perform(p, cls, sel, recv, args):
    """Send the selector to recv with args, as a SEND instruction would; the machine runs it."""
    name = sel.name if type(sel) is Symbol else str(sel)
    args = tuple(args)
    arity = name.count(":") if name[-1] == ":" else (0 if name[0].isalpha() else 1)
    if arity != len(args):
        raise LPRaise(make_error(p.interp, f"#{name} takes {arity} arguments, not {len(args)}"))
    m = p.interp.class_of(recv).lookup(name) if type(recv) is not LPClass else recv.lookup_class(name)
    if m is None and type(recv) is GrainRefValue:
        return Call(recv.block, (Symbol(name), args))
    if m is None:
        raise LPRaise(p.interp.not_understood(recv, name, None))
    t = type(m)
    if t is Primitive:
        return m.fn(p, recv, *args)
    if t is FieldGetter:
        return recv.values[m.index]
    if t is Method:
        return Call(m, (recv, *args))
    raise LPRaise(make_error(p.interp, f"#{name} cannot be called by name"))


@prim("GrainRef", "nodeId", class_side=True)
def _node_id(p, cls):
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"


# ---- the state codec

def encode(p, v):
    t = type(v)
    if v is None or t in (bool, int, str):
        return v
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            raise LPRaise(make_error(p.interp, f"a grain state cannot hold the Float {v}"))
        return v
    if t is tuple:
        return [encode(p, x) for x in v]
    if t is Symbol:
        return {"$s": v.name}
    if t is Char:
        return {"$c": v.ch}
    if t is Maybe:
        return {"$m": [encode(p, v.value)] if v.present else []}
    if t is LPDict:
        return {"$d": [[encode(p, k), encode(p, x)] for k, x in v.entries()]}
    if t is Instance:
        return {"$i": v.cls.name, "f": {n: encode(p, x) for n, x in zip(v.cls.fields, v.values)}}
    raise LPRaise(make_error(p.interp, f"a grain state cannot hold {p.interp.describe(v)}"))


def decode(p, j):
    if isinstance(j, list):
        return tuple(decode(p, x) for x in j)
    if not isinstance(j, dict):
        return j
    if "$s" in j:
        return Symbol(j["$s"])
    if "$c" in j:
        return Char(j["$c"])
    if "$m" in j:
        return Maybe(True, decode(p, j["$m"][0])) if j["$m"] else NONE
    if "$d" in j:
        return LPDict.of((decode(p, k), decode(p, x)) for k, x in j["$d"])
    if "$i" in j:
        cls = p.interp.classes.get(j["$i"])
        if cls is None or cls.builtin:
            raise LPRaise(make_error(p.interp, f"a stored grain state names the class {j['$i']}, "
                                     "which this program does not define"))
        f = j["f"]
        missing = [n for n in cls.fields if n not in f]
        if missing:
            raise LPRaise(make_error(p.interp, f"a stored {cls.name} lacks the field {missing[0]}"))
        return Instance(cls, tuple(decode(p, f[n]) for n in cls.fields))
    raise LPRaise(make_error(p.interp, "a stored grain state is not in the grain codec's form"))


@prim("GrainRef", "encodeState:", class_side=True)
def _encode_state(p, cls, v):
    return json.dumps(encode(p, v), separators=(",", ":"), ensure_ascii=False)


@prim("GrainRef", "decodeState:like:", class_side=True)
def _decode_state(p, cls, text, sample):
    try:
        v = decode(p, json.loads(text, parse_int=_json_int, parse_float=_json_float))
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise LPRaise(make_error(p.interp, f"a stored grain state does not decode: {e}")) from None
    if type(v) is not type(sample) or (type(v) is Instance and v.cls is not sample.cls):
        raise LPRaise(make_error(p.interp, f"a stored grain state is {p.interp.describe(v)}, "
                                 f"not like {p.interp.describe(sample)}"))
    return v


@prim("GrainRef", "isState:like:", class_side=True)
def _is_state(p, cls, v, sample):
    """Is v a new state for a grain whose state is like sample (an instance of the same class)?"""
    return type(v) is Instance and type(sample) is Instance and v.cls is sample.cls
