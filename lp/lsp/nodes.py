"""Finding the node under the cursor, with the chain of nodes that enclose it."""
from __future__ import annotations

import bisect

from lp.lsp.positions import contains
from lp.syntax import ast as A


def item_at(items, line: int, col: int):
    starts = [(i.span.line, i.span.col) for i in items]
    k = bisect.bisect_right(starts, (line, col)) - 1
    if k >= 0 and contains(items[k].span, line, col):
        return k
    return None


def path_at(program: A.Program, line: int, col: int) -> list:
    """The enclosing nodes from the top-level item down to the innermost one containing (line, col)."""
    if program is None:
        return []
    k = item_at(program.items, line, col)
    if k is None:
        return []
    path = [program.items[k]]
    while True:
        inner = [c for c in path[-1].children() if contains(getattr(c, "span", None), line, col)]
        if not inner:
            return path
        path.append(min(inner, key=_size))


def _size(node) -> tuple[int, int]:
    s = node.span
    return (s.end_line - s.line, s.end_col - s.col)


def ending_at(program: A.Program, line: int, col: int):
    """The innermost expression ending exactly at (line, col): the receiver of a selector typed after it."""
    if program is None:
        return None
    best = None
    for item in program.items:
        s = item.span
        if (s.line, s.col) > (line, col) or (s.end_line, s.end_col) < (line, col):
            continue
        for n in A.walk(item):
            ns = getattr(n, "span", None)
            if ns is None or (ns.end_line, ns.end_col) != (line, col):
                continue
            if isinstance(n, (A.Assign, A.Return, A.MethodDecl, A.ClassDecl, A.Param, A.Message)):
                continue
            if best is None or _size(n) < _size(best):
                best = n
    return best


def on_itself(node, line: int, col: int) -> bool:
    """Whether the cursor is on the node itself (a selector, a pattern) rather than inside a sub-expression."""
    return not any(contains(getattr(c, "span", None), line, col) for c in node.children())


def message_receiver(path: list, msg: A.Message):
    """The node whose value receives a cascade's message: the cascade's receiver or the previous message."""
    cascade = next((n for n in reversed(path) if isinstance(n, A.Cascade)), None)
    if cascade is None:
        return None
    for part in cascade.parts:
        for i, m in enumerate(part):
            if m is msg:
                return cascade.receiver if i == 0 else part[i - 1]
    return None
