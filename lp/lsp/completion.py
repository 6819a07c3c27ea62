"""Completion of selectors after a receiver whose class the checker knows."""
from __future__ import annotations

import re

from lsprotocol import types as T

from lp.lsp.analysis import Analysis
from lp.lsp.classes import ClassIndex, class_of
from lp.lsp.nodes import ending_at

_PARTIAL = re.compile(r"[A-Za-z_][A-Za-z0-9_:]*\Z")
_KINDS = {"method": T.CompletionItemKind.Method, "field": T.CompletionItemKind.Field,
          "library": T.CompletionItemKind.Method}


def receiver_end(text: str, line: int, col: int) -> tuple[int, int, str] | None:
    """Where the receiver ends before the word being typed at (line, col), and that word so far."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    before = lines[line - 1][:col - 1]
    m = _PARTIAL.search(before)
    prefix = m.group() if m else ""
    rest = before[:len(before) - len(prefix)]
    stripped = rest.rstrip()
    if stripped == rest and prefix:
        return None            # the word is glued to what precedes it: not a selector position
    while not stripped and line > 1:
        line -= 1
        stripped = lines[line - 1].rstrip()
    return line, len(stripped) + 1, prefix


def completions(a: Analysis, text: str, line: int, col: int) -> list[T.CompletionItem]:
    if a is None or a.result is None:
        return []
    where = receiver_end(text, line, col)
    if where is None:
        return []
    rline, rcol, prefix = where
    node = ending_at(a.program, rline, rcol)
    if node is None:
        return []
    owner = class_of(a.result.type_of(node))
    if owner is None:
        return []
    entries = ClassIndex(a.modules).understood(*owner)
    return [T.CompletionItem(label=sel, kind=_KINDS[e.kind], detail=f"{e.owner}{' class' if owner[1] else ''}")
            for sel, e in sorted(entries.items()) if sel.startswith(prefix)]

