"""The checker's diagnostics list: one per root cause (`add`), problems as data (`report`), names close
to a misspelt one; the wording is lp/types/reports.py's."""
from __future__ import annotations

import difflib

from lp.core_helpers import is_private
from lp.diagnostics import Diagnostic
from lp.types.reports import render


def did_you_mean(word: str, candidates) -> str | None:
    """The candidate closest to `word`, never one of the core library's private helpers."""
    close = difflib.get_close_matches(word, sorted(c for c in set(candidates) if not is_private(c)), n=1,
                                      cutoff=0.7)
    return close[0] if close else None


class Reporter:
    def __init__(self):
        self.diagnostics: list[Diagnostic] = []
        self._reported: set = set()
        self.infinite: list = []    # the clashes reported as infinite types (generics.recursive_classes)

    def report(self, problem):
        """A problem as data (lp/types/problems.py), worded by lp/types/reports.py."""
        clash = getattr(problem, "clash", None)
        if clash is not None and clash.kind == "occurs":
            self.infinite.append(clash)
        self.add(render(problem))

    def add(self, d: Diagnostic):
        """An error, unless one was already reported at the same span (one diagnostic per root cause);
        every warning."""
        if d.severity == "warning":
            self.diagnostics.append(d)
            return
        span = d.span
        key = (span.file, span.line, span.col, span.end_line, span.end_col) \
            if span is not None and span.line > 0 else None
        if key is not None and key in self._reported:
            return
        if key is not None:
            self._reported.add(key)
        self.diagnostics.append(d)
