"""LP spans (1-based lines, 1-based code-point columns) to LSP ranges (0-based, UTF-16 units) and back."""
from __future__ import annotations

from lsprotocol import types as T

from lp.diagnostics import SourceMap
from lp.syntax import ast as A


def _utf16(line: str, col: int) -> int:
    return len(line[:max(0, col - 1)].encode("utf-16-le")) // 2


def _line(sources: SourceMap, file: str, n: int) -> str:
    return sources.line(file, n) or ""


def to_range(span: A.Span, sources: SourceMap) -> T.Range:
    if span.line <= 0:
        return T.Range(T.Position(0, 0), T.Position(0, 0))
    start = T.Position(span.line - 1, _utf16(_line(sources, span.file, span.line), span.col))
    end = T.Position(span.end_line - 1, _utf16(_line(sources, span.file, span.end_line), span.end_col))
    return T.Range(start, end)


def from_position(pos: T.Position, text: str) -> tuple[int, int]:
    """The 1-based (line, column in code points) of an LSP position in `text`."""
    lines = text.split("\n")
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    col = 0
    for ch in line:
        if units >= pos.character:
            break
        units += 2 if ord(ch) > 0xFFFF else 1
        col += 1
    return pos.line + 1, col + 1


def contains(span: A.Span, line: int, col: int) -> bool:
    """Whether the cursor at (line, col) touches the span (its end included, as editors expect)."""
    if span is None or span.line <= 0:
        return False
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)
