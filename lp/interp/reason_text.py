"""Exit reasons as short text for reports: a bounded, iterative printer, so a
deeply nested or huge reason costs a few hundred characters, never a
recursion or a flood of output."""
from __future__ import annotations

from itertools import islice

from lp.interp.printer import print_string
from lp.interp.values import Association, Instance, LPDict, Maybe, Record

LIMIT = 300


def bounded_print(interp, v, limit: int = LIMIT) -> str:
    """printString of v, cut after about `limit` characters with `...`."""
    out, size = [], 0
    todo = [v]             # values to print, or ("", text) pieces to emit; last first
    while todo:
        item = todo.pop()
        if type(item) is _Text:
            text = item.s
        else:
            parts = _parts(item)
            if parts is None:
                text = print_string(interp, item)
            else:
                todo.extend(reversed(parts))
                continue
        out.append(text)
        size += len(text)
        if size > limit:
            return "".join(out)[:limit] + "..."
    return "".join(out)


class _Text:
    __slots__ = ("s",)

    def __init__(self, s):
        self.s = s


def _join(open_, items, sep, close):
    parts = [_Text(open_)]
    for i, x in enumerate(islice(items, LIMIT)):   # each item prints at least one character
        if i:
            parts.append(_Text(sep))
        parts.extend(x if type(x) is list else [x])
    parts.append(_Text(close))
    return parts


def _parts(v):
    """The pieces of a container value (texts and values), or None for a leaf."""
    t = type(v)
    if t is tuple:
        return _join("#(", v, " ", ")")
    if t is Instance:
        if not v.values:
            return None
        return _join(f"{v.cls.name}(", ([_Text(f"{n}: "), x] for n, x in zip(v.cls.fields, v.values)), ", ", ")")
    if t is Association:
        return [v.key, _Text(" -> "), v.value]
    if t is LPDict:
        return _join("Dictionary(", ([k, _Text(" -> "), x] for k, x in v.items.items()), ", ", ")")
    if t is Maybe:
        return [_Text("Maybe some: "), v.value] if v.present else None
    if t is Record:
        if not v.names:
            return None
        return _join("{ ", ([_Text(f"{n}: "), x] for n, x in zip(v.names, v.values)), ". ", " }")
    return None


def cut(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
