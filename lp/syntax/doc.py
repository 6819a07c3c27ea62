"""A small Wadler-style document algebra and its layout, used by the formatter.

Documents are tuples: ("text", s), ("line", flat_text) which is `flat_text` when
its group fits on the line and a newline otherwise, ("hard",) an unconditional
newline, ("nest", n, doc), ("group", doc) and ("cat", docs). Layout is iterative.
"""
from __future__ import annotations

LINE = ("line", " ")
SOFT = ("line", "")
HARD = ("hard",)


def text(s: str):
    return ("text", s)


def cat(*docs):
    return ("cat", [d for d in docs if d is not None])


def nest(n: int, doc):
    return ("nest", n, doc)


def group(doc):
    return ("group", doc)


def join(sep, docs):
    out = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return ("cat", out)


def _flat_width(doc, limit: int) -> int | None:
    """Width of `doc` laid out flat, or None if it cannot be flat or exceeds `limit`."""
    width = 0
    stack = [doc]
    while stack:
        d = stack.pop()
        k = d[0]
        if k == "text":
            s = d[1]
            if "\n" in s:
                return None
            width += len(s)
        elif k == "line":
            width += len(d[1])
        elif k == "hard":
            return None
        elif k == "cat":
            stack.extend(reversed(d[1]))
        elif k == "nest":
            stack.append(d[2])
        else:
            stack.append(d[1])
        if width > limit:
            return None
    return width


def layout(doc, width: int = 80) -> str:
    out: list[str] = []
    col = 0
    pending = -1  # indentation owed to the next text after a newline
    stack = [(0, False, doc)]
    while stack:
        ind, flat, d = stack.pop()
        k = d[0]
        if k == "text":
            s = d[1]
            if not s:
                continue
            if pending >= 0:
                out.append(" " * pending)
                col = pending
                pending = -1
            out.append(s)
            nl = s.rfind("\n")
            col = len(s) - nl - 1 if nl >= 0 else col + len(s)
        elif k == "cat":
            for x in reversed(d[1]):
                stack.append((ind, flat, x))
        elif k == "nest":
            stack.append((ind + d[1], flat, d[2]))
        elif k == "line" and flat:
            if d[1]:
                stack.append((ind, flat, ("text", d[1])))
        elif k in ("line", "hard"):
            out.append("\n")
            col = 0
            pending = ind
        else:
            fits = flat or _flat_width(d[1], width - (pending if pending >= 0 else col)) is not None
            stack.append((ind, fits, d[1]))
    return "".join(out)
