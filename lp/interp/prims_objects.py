"""Primitives every value has (equality, printing, class), Boolean and nil, instance
construction, errors and handlers, blocks, Log, JSON and Transcript.
"""
from __future__ import annotations

import json
import math

from lp.interp.errors import LPRaise, error_message, make_error
from lp.interp.printer import display_string, displayed, print_string, printed
from lp.interp.registry import prim
from lp.interp.values import (NONE, Association, Char, Closure, Instance, Interval, LPClass, LPDict, Maybe, Record,
                              ReplyAddress, Symbol, deep_equal, deep_hash)
from lp.interp.vm import Call

_SCALARS = (int, float, bool, type(None), Symbol, Char)


def block(p, v, sel):
    """v, checked to be a Block (an unchecked program may pass anything where a block belongs)."""
    if type(v) is not Closure:
        raise LPRaise(make_error(p.interp, f"#{sel} expects a Block, not {p.interp.describe(v)}"))
    return v


def call(p, blk, sel, args=(), guard=None):
    return Call(block(p, blk, sel), args, guard)


lp_equal = deep_equal   # structural `=` (lp/interp/values.py), without recursion


def lp_identical(a, b) -> bool:
    if type(a) in _SCALARS:
        return type(a) is type(b) and a == b
    return a is b


@prim("Object", "=")
def _eq(p, a, b):
    return lp_equal(a, b)


@prim("Object", "~=")
def _ne(p, a, b):
    return not lp_equal(a, b)


@prim("Object", "==")
def _ident(p, a, b):
    return lp_identical(a, b)


@prim("Object", "~~")
def _not_ident(p, a, b):
    return not lp_identical(a, b)


@prim("Object", "hash")
def _hash(p, a):
    try:
        return (deep_hash(a) if type(a) is tuple else hash(a)) & ((1 << 62) - 1)
    except TypeError:
        return id(a) & ((1 << 62) - 1)


@prim("Object", "printString")
def _print_string(p, v):
    return print_string(p.interp, v, p)


@prim("Object", "displayString")
def _display_string(p, v):
    return display_string(p.interp, v, p)


@prim("Object", "class")
def _class(p, v):
    return p.interp.class_of(v) if type(v) is not LPClass else v


@prim("Object", "isKindOf:")
def _is_kind_of(p, v, cls):
    return type(cls) is LPClass and p.interp.class_of(v).inherits(cls)


@prim("Object", "respondsTo:")
def _responds(p, v, sel):
    name = sel.name if type(sel) is Symbol else str(sel)
    if type(v) is LPClass:
        return v.lookup_class(name) is not None
    return p.interp.class_of(v).lookup(name) is not None


@prim("Object", "isNil")
def _is_nil(p, v):
    return v is None


@prim("Object", "notNil")
def _not_nil(p, v):
    return v is not None


@prim("Object", "ifNil:")
def _if_nil(p, v, blk):
    return call(p, blk, "ifNil:") if v is None else v


@prim("Object", "ifNil:ifNotNil:")
def _if_nil_not_nil(p, v, a, b):
    if v is None:
        return call(p, a, "ifNil:ifNotNil:")
    return call(p, b, "ifNil:ifNotNil:", (v,) if block(p, b, "ifNil:ifNotNil:").code.nparams == 1 else ())


@prim("Object", "yourself", "copy")
def _yourself(p, v):
    return v


@prim("Object", "->")
def _assoc(p, k, v):
    return Association(k, v)


@prim("Object", "with:")
def _with(p, obj, rec):
    """`p with: { x: 3 }`: a copy of an instance with some fields replaced."""
    if type(obj) is not Instance or type(rec) is not Record:
        raise LPRaise(make_error(p.interp, f"#with: copies an instance with a record of new field values, "
                                 f"not {p.interp.describe(rec)}"))
    values = list(obj.values)
    for n, v in zip(rec.names, rec.values):
        i = obj.cls.field_index.get(n)
        if i is None:
            raise LPRaise(make_error(p.interp, f"{obj.cls.name} has no field `{n}`"))
        values[i] = v
    return Instance(obj.cls, tuple(values))


# ---- Boolean and nil (ifTrue: and friends with literal blocks are compiled inline)

def _branch(v):
    return Call(v) if type(v) is Closure else v


@prim("Boolean", "ifTrue:ifFalse:")
def _if_true_false(p, b, t, f):
    return _branch(t) if b else _branch(f)


@prim("Boolean", "ifFalse:ifTrue:")
def _if_false_true(p, b, f, t):
    return _branch(t) if b else _branch(f)


@prim("Boolean", "and:")
def _and(p, b, blk):
    return _branch(blk) if b else False


@prim("Boolean", "or:")
def _or(p, b, blk):
    return True if b else _branch(blk)


@prim("Boolean", "not")
def _not(p, b):
    return not b


@prim("Boolean", "&")
def _band(p, a, b):
    return a and b is True


@prim("Boolean", "|")
def _bor(p, a, b):
    return a or b is True


@prim("Boolean", "xor:")
def _bxor(p, a, b):
    return a != (b is True)


# ---- classes: instance construction

@prim("Object", "new", class_side=True)
def _new(p, cls):
    """Classes whose only field is `reply` (filled by ask:) can be built with `new` too; a builtin class
    makes its instances otherwise (literals, its own constructors), as the checker says."""
    if cls.builtin and cls.name != "Object":
        raise LPRaise(make_error(p.interp, f"{cls.name} instances are not made with new"))
    fields = [f for f in cls.fields if f != "reply"]
    if fields:
        raise LPRaise(make_error(p.interp, f"{cls.name} has fields ({' '.join(fields)}): build it with "
                                 f"`{cls.name} fields: {{ ... }}`"))
    return Instance(cls, (None,) * len(cls.fields))


@prim("Object", "fields:", class_side=True)
def _fields(p, cls, rec):
    return build_instance(p, cls, rec)


def build_instance(p, cls: LPClass, rec) -> Instance:
    if type(rec) is tuple and not rec:
        rec = Record((), ())
    if type(rec) is not Record:
        raise LPRaise(make_error(p.interp, f"{cls.name} fields: expects a record like {{ x: 1 }}, "
                                 f"not {p.interp.describe(rec)}"))
    slots = _field_slots.get((cls, rec.names))
    if slots is None:
        slots = _slots_for(p, cls, rec.names)
    if slots is _IN_ORDER:
        return Instance(cls, rec.values)
    values = [None] * len(cls.fields)
    for i, v in zip(slots, rec.values):
        values[i] = v
    return Instance(cls, tuple(values))


# (class, a record's names) -> where each value goes, or _IN_ORDER when the record names every field
# in the class's order; a program writes few shapes of `X fields: {...}`, each checked once here.
_field_slots: dict = {}
_IN_ORDER = object()


def _slots_for(p, cls: LPClass, names: tuple):
    slots = []
    for n in names:
        i = cls.field_index.get(n)
        if i is None:
            raise LPRaise(make_error(p.interp, f"{cls.name} has no field `{n}`"))
        slots.append(i)
    missing = [f for f in cls.fields if f not in names and f != "reply"]
    if missing:
        raise LPRaise(make_error(p.interp, f"{cls.name} fields: is missing {', '.join(missing)}"))
    in_order = tuple(names) == tuple(cls.fields)
    if len(_field_slots) > 4096:
        _field_slots.clear()
    _field_slots[(cls, names)] = result = _IN_ORDER if in_order else tuple(slots)
    return result


@prim("Object", "name", class_side=True)
def _class_name(p, cls):
    return cls.name


@prim("Object", "superclass", class_side=True)
def _superclass(p, cls):
    return cls.superclass


@prim("Object", "inheritsFrom:", class_side=True)
def _inherits(p, cls, other):
    return type(other) is LPClass and cls is not other and cls.inherits(other)


# ---- errors

@prim("Error", "raise:", "signal:", class_side=True)
def _raise_class(p, cls, message):
    err = make_error(p.interp, message if type(message) is str else print_string(p.interp, message), cls.name)
    raise LPRaise(err)


@prim("Error", "new:", class_side=True)
def _error_new(p, cls, message):
    return make_error(p.interp, message if type(message) is str else print_string(p.interp, message), cls.name)


@prim("Error", "new", class_side=True)
def _error_new0(p, cls):
    return make_error(p.interp, cls.name, cls.name)


@prim("Error", "raise", "signal")
def _raise(p, err):
    err.trace = None
    raise LPRaise(err)


@prim("Error", "messageText", "description")
def _message_text(p, err):
    return error_message(err)


@prim("Error", "try:onError:", class_side=True)
def _try(p, cls, blk, handler):
    return call(p, blk, "try:onError:", (), ("try", block(p, handler, "try:onError:"), cls))


@prim("Error", "raiseSiteOf:", class_side=True)
def _raise_site(p, cls, err):
    """file:line:col of the send that raised err (stdlib/http_server.lp logs it), '' when never raised."""
    return p.interp.where(err).removeprefix(" at ")


@prim("Block", "on:do:")
def _on_do(p, blk, cls, handler):
    if type(cls) is not LPClass:
        raise LPRaise(make_error(p.interp, f"#on:do: expects an Error class, not {p.interp.describe(cls)}"))
    return call(p, blk, "on:do:", (), ("try", block(p, handler, "on:do:"), cls))


@prim("Block", "ensure:")
def _ensure(p, blk, ens):
    return call(p, blk, "ensure:", (), ("ensure", block(p, ens, "ensure:")))


@prim("Block", "numArgs")
def _num_args(p, blk):
    return blk.code.nparams


@prim("Block", "valueWithArguments:")
def _value_with_args(p, blk, args):
    if type(args) is not tuple:
        raise LPRaise(make_error(p.interp, f"#valueWithArguments: expects an Array, not {p.interp.describe(args)}"))
    return Call(blk, args)


# ---- Log and Transcript

def _log(p, level, text):
    interp = p.interp
    line = f"{level}: {displayed(interp, text, p)}\n"
    with interp.out_lock:
        interp.out.flush()
        interp.err.write(line)
        interp.err.flush()
    return None


@prim("Log", "info:", class_side=True)
def _info(p, cls, text):
    return _log(p, "info", text)


@prim("Log", "warn:", class_side=True)
def _warn(p, cls, text):
    return _log(p, "warn", text)


@prim("Log", "error:", class_side=True)
def _error(p, cls, text):
    return _log(p, "error", text)


@prim("Transcript", "show:", "display:", class_side=True)
def _show(p, cls, v):
    p.interp.write(displayed(p.interp, v, p))


@prim("Transcript", "print:", class_side=True)
def _print(p, cls, v):
    p.interp.write(printed(p.interp, v, p))


@prim("Transcript", "showLine:", class_side=True)
def _show_line(p, cls, v):
    p.interp.write(displayed(p.interp, v, p) + "\n")


@prim("Transcript", "cr", class_side=True)
def _cr(p, cls):
    p.interp.write("\n")


@prim("Transcript", "tab", class_side=True)
def _tab(p, cls):
    p.interp.write("\t")


@prim("Transcript", "space", class_side=True)
def _space(p, cls):
    p.interp.write(" ")


# ---- JSON

def to_json(p, v):
    t = type(v)
    if v is None or t in (bool, int, str):
        return v
    if t is float:
        if math.isnan(v) or math.isinf(v):
            raise LPRaise(make_error(p.interp, f"JSON cannot encode the Float {print_string(p.interp, v)}"))
        return v
    if t is Symbol:
        return v.name
    if t is Char:
        return v.ch
    if t is tuple or t is Interval:
        return [to_json(p, x) for x in v]
    if t is LPDict:
        out = {}
        for k, x in v.entries():
            if type(k) not in (str, Symbol):
                raise LPRaise(make_error(p.interp, f"JSON object keys must be strings, not "
                                         f"{p.interp.describe(k)}"))
            out[k if type(k) is str else k.name] = to_json(p, x)
        return out
    if t is Instance:
        return {n: to_json(p, x) for n, x in zip(v.cls.fields, v.values)}
    if t is Record:
        return {n: to_json(p, x) for n, x in zip(v.names, v.values)}
    if t is Maybe:
        return to_json(p, v.value) if v.present else None
    if t is Association:
        return [to_json(p, v.key), to_json(p, v.value)]
    raise LPRaise(make_error(p.interp, f"JSON cannot encode {p.interp.describe(v)}"))


def from_json(v):
    if isinstance(v, str):
        return _scalar_text(v)
    if isinstance(v, list):
        return tuple(from_json(x) for x in v)
    if isinstance(v, dict):
        return LPDict.of((_scalar_text(k), from_json(x)) for k, x in v.items())
    return v


def _scalar_text(s: str) -> str:
    """LP strings hold characters only: a lone UTF-16 surrogate escape (`"\\ud800"`) becomes U+FFFD."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def _json_int(text: str):
    """JSON numbers without a fraction or exponent are Integers, and must fit in 64 bits."""
    if len(text.lstrip("-0")) <= 19:
        v = int(text)
        if -(1 << 63) <= v < (1 << 63):
            return v
    shown = text if len(text) <= 30 else text[:27] + "..."
    raise ValueError(f"the number {shown} does not fit in a 64-bit Integer")


def _json_float(text: str):
    f = float(text)
    if math.isinf(f):
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise ValueError(f"the number {shown} is too large for a Float")
    return f


def _json_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _dump(x) -> str:
    return json.dumps(x, separators=(",", ":"), ensure_ascii=False)


class _Text:
    """Text of the JSON being written, between the values still to encode."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def json_text(p, v) -> str:
    """The text json.dumps writes for to_json(p, v), with the value's structure walked on an
    explicit stack, so values nested hundreds of thousands deep encode (as in native binaries)."""
    out = []
    work = [v]
    while work:
        x = work.pop()
        t = type(x)
        if t is _Text:
            out.append(x.text)
            continue
        if t is Maybe:
            work.append(x.value if x.present else None)
            continue
        if t is tuple or t is Interval or t is Association:
            items = (x.key, x.value) if t is Association else tuple(x)
            parts = [_Text("[")]
            for i, item in enumerate(items):
                parts += [_Text(",")] if i else []
                parts.append(item)
            parts.append(_Text("]"))
        elif t is Instance or t is Record or (t is LPDict and len({_key_name(k) for k, _ in x.entries()}) == len(x)):
            if t is LPDict:
                pairs = x.entries()
            else:
                pairs = zip(x.cls.fields if t is Instance else x.names, x.values)
            parts = [_Text("{")]
            for i, (k, item) in enumerate(pairs):
                if t is LPDict and type(k) not in (str, Symbol):
                    parts.append(_BadKey(k))
                    break
                parts += [_Text(("," if i else "") + _dump(k if type(k) is str else getattr(k, "name", k)) + ":"), item]
            parts.append(_Text("}"))
        elif t is _BadKey:
            raise LPRaise(make_error(p.interp, f"JSON object keys must be strings, not {p.interp.describe(x.k)}"))
        else:   # a scalar, or a Dictionary with a String and a Symbol key of the same name (merged)
            out.append(_dump(to_json(p, x)))
            continue
        work.extend(reversed(parts))
    return "".join(out)


class _BadKey:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def _key_name(k):
    return k.name if type(k) is Symbol else k


@prim("JSON", "encode:", class_side=True)
def _encode(p, cls, v):
    return json_text(p, v)


@prim("JSON", "decode:", class_side=True)
def _decode(p, cls, s):
    if type(s) is not str:
        raise LPRaise(make_error(p.interp, f"JSON decode: expects a String, not {p.interp.describe(s)}"))
    try:
        return from_json(json.loads(s, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant))
    except json.JSONDecodeError as e:
        raise LPRaise(make_error(p.interp, f"invalid JSON at line {e.lineno} column {e.colno}: "
                                 f"{e.msg[0].lower()}{e.msg[1:]}")) from None
    except ValueError as e:
        raise LPRaise(make_error(p.interp, f"invalid JSON: {e}")) from None
    except RecursionError:
        raise LPRaise(make_error(p.interp, "invalid JSON: the value is nested too deeply")) from None


@prim("Actor", "printString")
def _actor_print(p, a):
    return "a reply address" if type(a) is ReplyAddress else f"Actor<{a.id}>"


# ---- exit reasons: #normal, #killed, or the Error that ended an actor

@prim("Symbol", "isNormal")
def _is_normal(p, s):
    return s.name == "normal"


@prim("Symbol", "isKilled")
def _is_killed(p, s):
    return s.name == "killed"


@prim("Symbol", "isError")
def _sym_is_error(p, s):
    return False


@prim("Symbol", "error")
def _sym_error(p, s):
    return NONE


@prim("Error", "isNormal", "isKilled")
def _err_not_normal(p, e):
    return False


@prim("Error", "isError")
def _err_is_error(p, e):
    return True


@prim("Error", "error")
def _err_error(p, e):
    return Maybe(True, e)


@prim("Object", "ifNotNil:ifNil:")
def _if_not_nil_nil(p, v, b, a):
    if v is None:
        return call(p, a, "ifNotNil:ifNil:")
    return call(p, b, "ifNotNil:ifNil:", (v,) if block(p, b, "ifNotNil:ifNil:").code.nparams == 1 else ())


@prim("Object", "isString")
def _is_string(p, v):
    return type(v) is str


@prim("Object", "isNumber")
def _is_number(p, v):
    return type(v) in (int, float)


@prim("Object", "isSymbol")
def _is_symbol(p, v):
    return type(v) is Symbol


@prim("Number", "asString")
@prim("Boolean", "asString")
@prim("UndefinedObject", "asString")
def _as_string(p, v):
    return display_string(p.interp, v)


@prim("Error", "signal:")
def _signal_with(p, err, message):
    values = list(err.values)
    values[err.cls.field_index["message"]] = message if type(message) is str else print_string(p.interp, message)
    raise LPRaise(Instance(err.cls, tuple(values)))


@prim("Block", "ifCurtailed:")
def _if_curtailed(p, blk, cleanup):
    return call(p, blk, "ifCurtailed:", (), ("curtailed", block(p, cleanup, "ifCurtailed:")))


@prim("Log", "debug:", class_side=True)
def _debug(p, cls, text):
    return _log(p, "debug", text)


@prim("Transcript", "showCr:", class_side=True)
def _show_cr(p, cls, v):
    p.interp.write(displayed(p.interp, v, p) + "\n")
