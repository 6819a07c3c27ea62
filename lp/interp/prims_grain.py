"""The primitives under stdlib/grain.lp (docs/grains.md): the grain reference, the state's JSON, node
ids and the hash that places an id among a member list. A call runs on the state by name with
`Remote perform:on:withArguments:` (lp/interp/prims_remote.py), as a Remote server runs one.

A `GrainRef` (values.GrainRefValue) forwards every send its class does not answer itself (the
universal selectors, `printString`, `=`, ...) to its block as (selector, arguments): the machine
does so where it would otherwise raise "does not understand" (vm.py), so no other send pays for
it. The checker types such a send as the same send to the grain's class (lp/types/infer.py).

A state is stored in the JSON form Remote sends values in (lp/interp/value_json.py), in its exact
mode, so a state written by one process is the same value when another reads it.
"""
from __future__ import annotations

import os
import secrets
import socket
import zlib

from lp.interp import grain_shape, value_json
from lp.interp.errors import LPRaise, make_error
from lp.interp.registry import prim
from lp.interp.values import Association, Closure, GrainRefValue, Instance, LPDict, Maybe


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


@prim("GrainRef", "nodeId", class_side=True)
def _node_id(p, cls):
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"


# ---- the state: the one JSON form of LP values, exact (lp/interp/value_json.py)

# A state nests at most MAX_LEVELS values deep (docs/grains.md, "How deep a state may nest"), so that
# encoding, decoding and comparing it stay far from the stack's end in both modes; its stored JSON
# nests at most MAX_JSON_LEVELS arrays and objects (a $dict pair takes three per level).
MAX_LEVELS = 300
MAX_JSON_LEVELS = 3 * MAX_LEVELS
TOO_DEEP = f"a grain state is nested more than {MAX_LEVELS} levels deep"


def too_deep(v) -> bool:
    """Does a value of v lie more than MAX_LEVELS levels down (v being level 1)? Walks without recursion."""
    work = [(v, 1)]
    while work:
        x, level = work.pop()
        t = type(x)
        if t not in (Instance, tuple, Maybe, Association, LPDict):
            continue
        if level >= MAX_LEVELS:
            if t is Association or (x.present if t is Maybe else len(x.values if t is Instance else x)):
                return True
            continue
        if t is Instance:
            work.extend((y, level + 1) for y in x.values)
        elif t is tuple:
            work.extend((y, level + 1) for y in x)
        elif t is Maybe:
            if x.present:
                work.append((x.value, level + 1))
        elif t is Association:
            work += [(x.key, level + 1), (x.value, level + 1)]
        else:
            for k, y in x.entries():
                work += [(k, level + 1), (y, level + 1)]
    return False


def json_too_deep(text: str) -> bool:
    """Do the arrays and objects of JSON text nest more than MAX_JSON_LEVELS deep (outside strings)?"""
    if text.count("[") + text.count("{") <= MAX_JSON_LEVELS:
        return False
    depth, in_string, escaped = 0, False, False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_JSON_LEVELS:
                return True
        elif c in "]}":
            depth -= 1
    return False


@prim("GrainRef", "encodeState:", class_side=True)
def _encode_state(p, cls, v):
    if too_deep(v):
        raise LPRaise(make_error(p.interp, TOO_DEEP))
    return value_json.encode(p, v, exact=True)


# ---- the type of each grain's state: `Grain for: C initial: s` passes s through `shape:of:` with the shape
# of its type (the back ends insert the send, lp/types/grain_shapes.py), and stdlib/grain.lp's start takes it

@prim("GrainRef", "shape:of:", class_side=True)
def _shape_of_state(p, cls, text, state):
    if type(text) is str and type(state) is Instance:
        p.interp.grain_shapes_made[id(state)] = (state, text)
    return state


@prim("GrainRef", "shapeOf:", class_side=True)
def _shape_for(p, cls, state):
    """The shape `shape:of:` gave state (taken: '' the next time), or '' if none."""
    return p.interp.grain_shapes_made.pop(id(state), (None, ""))[1]


@prim("GrainRef", "decodeState:like:shape:", class_side=True)
def _decode_state(p, cls, text, sample, shape):
    """A stored state, checked against the shape of the program's state type (grain_shape.py), or when
    there is none ('': `lp run --no-check`), against the grain's initial state: an instance of its class
    (or of a subclass) whose values are like the initial's (docs/grains.md, "What a stored state is
    checked for")."""
    if type(text) is str and json_too_deep(text):
        raise LPRaise(make_error(p.interp, f"a stored grain state does not decode: {TOO_DEEP}"))
    try:
        v = value_json.untagged(p.interp, value_json.loads(text), exact=True)
    except (ValueError, RecursionError) as e:
        raise LPRaise(make_error(p.interp, f"a stored grain state does not decode: {e}")) from None
    if too_deep(v):
        raise LPRaise(make_error(p.interp, f"a stored grain state does not decode: {TOO_DEEP}"))
    d = p.interp.describe
    if not _is_state(p, cls, v, sample):
        like = f"an instance of {sample.cls.name}" if type(sample) is Instance else f"like {d(sample)}"
        raise LPRaise(make_error(p.interp, f"a stored grain state is {d(v)}, not {like}"))
    if type(shape) is str and shape:
        problem = grain_shape.check(p.interp, v, shape)
        if problem is not None:
            raise LPRaise(make_error(p.interp, problem))
        return v
    where = _unlike(v, sample)
    if where is not None:
        path, a, b = where
        raise LPRaise(make_error(p.interp, f"a stored grain state is not like the initial state: {path} is "
                                 f"{d(a)} where the initial state has {d(b)}"))
    return v


def _unlike(v, sample):
    """Where v is not of sample's shape, as (path, v's value, sample's value); None if it is. Of sample's
    shape: the same kinds of value all the way down, where sample shows one (an empty collection in
    sample shows none); instances may be of a class in the same line of inheritance."""
    work = [("the state", v, sample)]
    while work:
        path, a, b = work.pop()
        t = type(a)
        if t is not type(b) or t is Instance and not (a.cls.inherits(b.cls) or b.cls.inherits(a.cls)):
            return path, a, b
        if t is Instance:
            work.extend((f"{path}'s {f}", x, y) for f, x, y in zip(b.cls.fields, a.values, b.values))
        elif t is tuple and b:
            work.extend((f"{path}'s element {i}", x, b[0]) for i, x in enumerate(a, 1))
        elif t is Maybe and a.present and b.present:
            work.append((f"{path}'s value", a.value, b.value))
        elif t is Association:
            work += [(f"{path}'s key", a.key, b.key), (f"{path}'s value", a.value, b.value)]
        elif t is LPDict and len(b):
            k0, v0 = b.entries()[0]
            for k, x in a.entries():
                work += [(f"a key of {path}", k, k0), (f"{path} at a key", x, v0)]
    return None


@prim("GrainRef", "asState:like:", class_side=True)
def _as_state(p, cls, v, sample):
    """v, a call's answer that isState:like: found to be a new state, as the state (the checker typed the
    call so that such an answer has the state's type: lp/types/proxies.py)."""
    if not _is_state(p, cls, v, sample):
        raise LPRaise(make_error(p.interp, f"{p.interp.describe(v)} is not a state like {p.interp.describe(sample)}"))
    return v


@prim("GrainRef", "isState:like:", class_side=True)
def _is_state(p, cls, v, sample):
    """Is v a new state for a grain whose initial state is sample: an instance of its class or of a subclass?"""
    return type(v) is Instance and type(sample) is Instance and v.cls.inherits(sample.cls)


@prim("GrainRef", "hashOf:", class_side=True)
def _hash_of(p, cls, text):
    """The same number for the same String in every process (CRC-32 of its UTF-8), unlike `hash`."""
    if type(text) is not str:
        raise LPRaise(make_error(p.interp, f"GrainRef hashOf: expects a String, not {p.interp.describe(text)}"))
    return zlib.crc32(text.encode("utf-8"))
