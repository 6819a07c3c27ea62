"""Incremental parsing: a document is cut into its top-level items, and each item's text is parsed once.

Items end at a `.` outside any bracket, string, comment or character literal,
which is where the grammar's `start` rule separates them, so parsing the
pieces one by one gives the items (and the first syntax error) a whole-file
parse gives. Parsed pieces are kept by their text; a piece that moved up or
down keeps its nodes, whose spans are shifted in place.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lp.diagnostics import Diagnostic, LPError, Note
from lp.syntax import ast as A
from lp.syntax.parser import parse_text

_TOKENS = re.compile(r"""
    "[^"]*"? | '(?:[^']|'')*'? | \$[\s\S]
  | [0-9]+(?:r[0-9A-Za-z]+|(?:\.[0-9]+)?(?:e-?[0-9]+)?)
  | [A-Za-z_][A-Za-z0-9_]* | [()\[\]{}.]
""", re.VERBOSE)
_OPEN, _CLOSE = "([{", ")]}"
_SPAN_FIELDS = ("span", "selector_span", "name_span")


@dataclass
class Piece:
    text: str
    line: int                    # 1-based line where the text starts
    col: int                     # 1-based column where the text starts
    items: tuple = ()
    error: Diagnostic | None = None


def split(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the pieces: each ends just after a top-level `.`, the last at the end."""
    out, start, depth = [], 0, 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif c == "." and depth == 0:
            out.append((start, m.end()))
            start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def _shift_span(s: A.Span, file: str, dl: int) -> A.Span:
    if s.line <= 0:
        return s
    return A.Span(file, s.line + dl, s.col, s.end_line + dl, s.end_col)


def _shift_nodes(items, file: str, dl: int) -> None:
    for item in items:
        for node in A.walk(item):
            for f in _SPAN_FIELDS:
                s = getattr(node, f, None)
                if s is not None:
                    object.__setattr__(node, f, _shift_span(s, file, dl))


def _shift_diag(d: Diagnostic, file: str, dl: int) -> Diagnostic:
    notes = tuple(Note(n.message, _shift_span(n.span, file, dl) if n.span else None) for n in d.notes)
    return replace(d, span=_shift_span(d.span, file, dl) if d.span else None, notes=notes)


def _parse(text: str, col: int, file: str) -> tuple[tuple, Diagnostic | None]:
    try:
        return parse_text(" " * (col - 1) + text, file).items, None
    except LPError as e:
        d = e.diagnostics[0]
        if d.title == "empty file":
            return (), None
        return (), d


class PieceCache:
    """The pieces of one document's last version, reused by the next version."""

    def __init__(self, file: str):
        self.file = file
        self.pieces: dict[tuple[str, int], list[Piece]] = {}

    def parse(self, text: str) -> list[Piece]:
        old, new = self.pieces, {}
        out = []
        line, pos = 1, 0
        for start, end in split(text):
            line += text.count("\n", pos, start)
            pos = start
            col = start - (text.rfind("\n", 0, start) + 1) + 1
            chunk = text[start:end]
            key = (chunk, col)
            reuse = old.get(key)
            piece = reuse.pop() if reuse else None
            if piece is None:
                items, err = _parse(chunk, col, self.file)
                piece = Piece(chunk, 1, col, items, err)
            if piece.line != line:
                _shift_nodes(piece.items, self.file, line - piece.line)
                if piece.error is not None:
                    piece.error = _shift_diag(piece.error, self.file, line - piece.line)
                piece.line = line
            new.setdefault(key, []).append(piece)
            out.append(piece)
        self.pieces = new
        return out
