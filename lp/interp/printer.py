"""printString and displayString of every value.

One path consults a user's `printString` (or `displayString`) method: `printed` answers what
sending `printString` to a value answers, and the built-in formats print their elements with
it, so an override shows in printNl, displayNl, displayString, Transcript and collections alike.
Without a process (error messages, run-time reports) the built-in formats are used.
"""
from __future__ import annotations

import math

from lp.interp.values import (ActorValue, Association, Char, Closure, Future, GrainRefValue, Instance, Interval, LPClass,
                              LPDict, Maybe, Promise, Record, ReplyAddress, Symbol)
from lp.interp.code import Method
from lp.interp.net_values import RemoteProxy
from lp.interp.errors import LPRaise, make_error
from lp.syntax.format import float_text, string_text, symbol_text

# `$` and a NUL byte is not LP source (a file with a NUL is refused), so this Character prints as the
# expression that makes it (runtime/native/print.c prints the same)
NUL_CHARACTER = "(0 asCharacter)"


def printed(interp, v, proc=None) -> str:
    """What `v printString` answers: a method the program defines, else the built-in format."""
    if proc is not None:
        m = _override(interp, v, "printString")
        if m is not None:
            return _run_override(proc, m, v, "printString")
    return print_string(interp, v, proc)


class _Child:
    """An element inside a compound's printString: `printed` (the program's override, if any)."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


def print_string(interp, v, proc=None) -> str:
    """The built-in printString of v; its elements are `printed`. Compounds are expanded on an
    explicit stack, so a value nested hundreds of thousands deep prints (as in native binaries)."""
    out = []
    work = [_shape(interp, v, proc)]
    while work:
        x = work.pop()
        if type(x) is str:
            out.append(x)
        elif type(x) is _Child:
            m = _override(interp, x.v, "printString") if proc is not None else None
            work.append(_run_override(proc, m, x.v, "printString") if m is not None else _shape(interp, x.v, proc))
        else:
            work.extend(reversed(x))
    return "".join(out)


def _joined(items, sep: str) -> list:
    """Parts for items (each a list of parts) with sep between them."""
    parts = []
    for i, item in enumerate(items):
        if i:
            parts.append(sep)
        parts.extend(item)
    return parts


def _shape(interp, v, proc):
    """v's built-in printString: a str, or a list of parts (str, _Child, or nested lists)."""
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
        return "$" + v.ch if v.ch != "\x00" else NUL_CHARACTER
    if t is tuple:
        return ["#(", _joined([[_Child(x)] for x in v], " "), ")"]
    if t is Instance:
        if not v.values:
            return f"{v.cls.name}()"
        return [f"{v.cls.name}(", _joined([[f"{n}: ", _Child(x)] for n, x in zip(v.cls.fields, v.values)], ", "), ")"]
    if t is LPClass:
        return v.name
    if t is Association:
        return [_Child(v.key), " -> ", _Child(v.value)]
    if t is LPDict:
        return ["Dictionary(", _joined([[_Child(k), " -> ", _Child(x)] for k, x in v.entries()], ", "), ")"]
    if t is Interval:
        return f"({v.start} to: {v.stop})" if v.step == 1 else f"({v.start} to: {v.stop} by: {v.step})"
    if t is Maybe:
        return ["Maybe some: ", _Child(v.value)] if v.present else "Maybe none"
    if t is Record:
        return ["{ ", _joined([[f"{n}: ", _Child(x)] for n, x in zip(v.names, v.values)], ". "), " }"] \
            if v.names else "{}"
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
    if t is bytes:
        return "#[" + " ".join(map(str, v)) + "]"
    if t is RemoteProxy:
        return [f"Remote({v.class_name} ", _Child(v.id), f" at {v.url})"]
    if t is GrainRefValue:
        return f"GrainRef({v.label})"
    if interp is not None and t in interp.type_classes:
        name = interp.type_classes[t].name
        return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"
    return f"a {type(v).__name__}"


def display_string(interp, v, proc=None) -> str:
    """The built-in displayString of v: text unquoted, anything else as `printed`."""
    t = type(v)
    if t is str:
        return v
    if t is Symbol:
        return v.name
    if t is Char:
        return v.ch
    return printed(interp, v, proc)


def displayed(interp, v, proc=None) -> str:
    """What `v displayString` answers: a method the program defines, else the built-in format."""
    if proc is not None:
        m = _override(interp, v, "displayString")
        if m is not None:
            return _run_override(proc, m, v, "displayString")
    return display_string(interp, v, proc)


def _override(interp, v, selector):
    m = (v.lookup_class(selector) if type(v) is LPClass else interp.class_of(v).lookup(selector))
    return m if type(m) is Method else None


def _run_override(proc, m, v, selector) -> str:
    """Run the program's method to completion in a nested machine on this actor's behalf."""
    from lp.interp.vm import BLOCK, DONE, Process
    interp = proc.interp
    sub = Process(interp, None)
    sub.stack = [sub.method_frame(m, v, (), None)]
    sub.ctx, sub.me = proc.ctx, proc.me
    while True:
        r = sub.run()
        if r == DONE:
            break
        if r == BLOCK:
            raise LPRaise(make_error(interp, f"#{selector} of {describe(interp, v)} cannot wait for a message "
                                     "while its value is being printed"))
    if sub.error is not None:
        raise LPRaise(sub.error)
    if type(sub.result) is not str:
        raise LPRaise(make_error(interp, f"#{selector} of {describe(interp, v)} answered "
                                 f"{describe(interp, sub.result)}, not a String"))
    return sub.result


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
