"""printString and displayString of every value, iteratively safe for the shapes LP builds."""
from __future__ import annotations

import math

from lp.interp.values import (ActorValue, Association, Char, Closure, Future, Instance, LPClass, LPDict, Maybe,
                              Promise, Record, ReplyAddress, Symbol)
from lp.syntax.format import float_text, string_text, symbol_text


def print_string(interp, v) -> str:
    t = type(v)
    if t is int:
        return str(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "nil"
    if t is str:
        return string_text(v)
    if t is float:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float_text(v)
    if t is Symbol:
        return symbol_text(v.name)
    if t is Char:
        return "$" + v.ch
    if t is tuple:
        return "#(" + " ".join(print_string(interp, x) for x in v) + ")"
    if t is Instance:
        if not v.values:
            return f"{v.cls.name}()"
        inner = ", ".join(f"{n}: {print_string(interp, x)}" for n, x in zip(v.cls.fields, v.values))
        return f"{v.cls.name}({inner})"
    if t is LPClass:
        return v.name
    if t is Association:
        return f"{print_string(interp, v.key)} -> {print_string(interp, v.value)}"
    if t is LPDict:
        inner = ", ".join(f"{print_string(interp, k)} -> {print_string(interp, x)}" for k, x in v.entries())
        return f"Dictionary({inner})"
    if t is Maybe:
        return f"Maybe some: {print_string(interp, v.value)}" if v.present else "Maybe none"
    if t is Record:
        inner = ". ".join(f"{n}: {print_string(interp, x)}" for n, x in zip(v.names, v.values))
        return "{ " + inner + " }" if inner else "{}"
    if t is ActorValue:
        return f"Actor<{v.id}>"
    if t is ReplyAddress:
        return "a reply address"
    if t is Closure:
        return "a Block"
    if t is Future:
        return "a Future"
    if t is Promise:
        return "a Promise"
    return f"a {type(v).__name__}"


def display_string(interp, v) -> str:
    t = type(v)
    if t is str:
        return v
    if t is Symbol:
        return v.name
    if t is Char:
        return v.ch
    return print_string(interp, v)


def describe(interp, v) -> str:
    """How an error message names a value: `the Integer 3`, `nil`, `a Point`."""
    if v is None:
        return "nil"
    if type(v) is LPClass:
        return f"the class {v.name}"
    cls = interp.class_of(v)
    text = print_string(interp, v)
    if len(text) > 40:
        text = text[:37] + "..."
    article = "an" if cls.name[0] in "AEIOU" else "a"
    if type(v) in (int, float, str, Symbol, Char, bool):
        return f"the {cls.name} {text}"
    return f"{article} {cls.name}"
