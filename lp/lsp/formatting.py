"""Formatting: the whole document replaced by what `lp fmt` prints, or nothing when it does not parse."""
from __future__ import annotations

from lsprotocol import types as T

from lp.diagnostics import LPError
from lp.syntax.format import format_program
from lp.syntax.parser import parse_text


def format_edits(text: str, file: str) -> list[T.TextEdit] | None:
    try:
        out = format_program(parse_text(text, file))
    except LPError:
        return None
    if out == text:
        return []
    lines = text.split("\n")
    end = T.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    return [T.TextEdit(range=T.Range(T.Position(0, 0), end), new_text=out)]
