"""Diagnostics: the one error type every layer reports through, and its renderer.

Rendering follows Elm and Gleam: a title bar, the location, the source line(s)
with a gutter and carets under the span, the message in prose, then notes
pointing at related places and an optional hint.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from lp.syntax.ast import Span

WIDTH = 80


@dataclass(frozen=True)
class Note:
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class Diagnostic:
    title: str          # short, e.g. "syntax error", "type mismatch"
    message: str        # prose shown under the source excerpt
    span: Span | None
    severity: str = "error"
    notes: tuple[Note, ...] = ()
    hint: str | None = None
    label: str = ""     # text beside the carets

    def with_note(self, message: str, span: Span | None = None) -> "Diagnostic":
        return Diagnostic(self.title, self.message, self.span, self.severity,
                          self.notes + (Note(message, span),), self.hint, self.label)


class LPError(Exception):
    """Raised to abandon a phase with one or more diagnostics."""

    def __init__(self, *diagnostics: Diagnostic):
        super().__init__(diagnostics[0].message if diagnostics else "")
        self.diagnostics: tuple[Diagnostic, ...] = diagnostics


@dataclass
class SourceMap:
    """Source texts by file name, so diagnostics can show the lines they point at."""
    texts: dict[str, str] = field(default_factory=dict)
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def add(self, name: str, text: str) -> None:
        self.texts[name] = text
        self._lines.pop(name, None)

    def line(self, name: str, number: int) -> str | None:
        lines = self._lines.get(name)
        if lines is None:
            text = self.texts.get(name)
            if text is None:
                return None
            lines = self._lines[name] = text.split("\n")
        if 1 <= number <= len(lines):
            return lines[number - 1].rstrip("\r")
        if number == len(lines) + 1:
            return ""
        return None


def _display_width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


MAX_SHOWN = 100  # longest source line shown whole; longer ones are windowed around the span


def _window(text: str, start: int, end: int) -> tuple[str, int, int]:
    """Cut a long line down to the part around columns [start, end), adjusting the columns."""
    if len(text) <= MAX_SHOWN:
        return text, start, end
    lo = max(0, start - 1 - 40)
    hi = min(len(text), lo + MAX_SHOWN)
    prefix = "..." if lo > 0 else ""
    suffix = "..." if hi < len(text) else ""
    shift = lo - len(prefix)
    return prefix + text[lo:hi] + suffix, start - shift, min(end, hi + 1) - shift


def excerpt(sources: SourceMap, span: Span, label: str = "") -> list[str]:
    """The source lines of span with carets under it (and label beside them)."""
    return _excerpt(sources, span, label)


def _excerpt(sources: SourceMap, span: Span, label: str) -> list[str]:
    if span.line <= 0:
        return []
    first = sources.line(span.file, span.line)
    if first is None:
        return []
    last_line = max(span.line, min(span.end_line, span.line + 2))
    gutter = len(str(last_line))
    out = [f"{' ' * gutter} |"]
    for n in range(span.line, last_line + 1):
        text = sources.line(span.file, n)
        if text is None:
            break
        text = text.replace("\t", " ")
        start = span.col if n == span.line else 1 + (len(text) - len(text.lstrip()))
        end = span.end_col if n == span.end_line else len(text) + 1
        start = max(1, start)
        end = max(end, start + 1)
        text, start, end = _window(text, start, end)
        out.append(f"{n:>{gutter}} | {text}")
        lead = _display_width(text[:start - 1])
        carets = max(1, _display_width(text[start - 1:end - 1]))
        mark = " " * lead + "^" * carets
        if n == last_line and label:
            mark += " " + label
        out.append(f"{' ' * gutter} | {mark}")
    return out


def render(diag: Diagnostic, sources: SourceMap) -> str:
    where = str(diag.span) if diag.span and diag.span.line > 0 else (
        diag.span.file if diag.span else "")
    head = f"-- {diag.title.upper()} "
    tail = f" {where}" if where else ""
    bar = head + "-" * max(3, WIDTH - len(head) - len(tail)) + tail
    lines = [bar, ""]
    if diag.span:
        ex = _excerpt(sources, diag.span, diag.label)
        if ex:
            lines += ex + [""]
    lines.append(diag.message)
    for note in diag.notes:
        lines.append("")
        if note.span and note.span.line > 0:
            lines.append(f"{note.span}: {note.message}")
            ex = _excerpt(sources, note.span, "")
            lines += ex
        else:
            lines.append(note.message)
    if diag.hint:
        lines += ["", f"Hint: {diag.hint}"]
    return "\n".join(lines) + "\n"


def render_all(diags, sources: SourceMap) -> str:
    return "\n".join(render(d, sources) for d in diags)
