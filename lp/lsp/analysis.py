"""One version of a document, parsed and checked: its diagnostics, its AST and the inferred types."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lp.diagnostics import Diagnostic, LPError, SourceMap
from lp.lsp.chunks import PieceCache
from lp.lsp.imports import ImportCache
from lp.lsp.incremental import IncrementalChecker
from lp.syntax import ast as A
from lp.types import CheckResult, check_program

log = logging.getLogger("lp.lsp")


@dataclass
class Analysis:
    path: str
    text: str
    sources: SourceMap
    diagnostics: list[Diagnostic] = field(default_factory=list)
    items: tuple = ()                          # the top-level items of every piece that parses
    program: A.Program | None = None          # None when the text does not parse
    imports: list[A.Program] = field(default_factory=list)
    result: CheckResult | None = None

    @property
    def modules(self) -> list[A.Program]:
        return self.imports + ([self.program] if self.program is not None else [])


class Analyzer:
    """Analyses successive versions of one document, reusing what did not change."""

    def __init__(self, path: str, imports: ImportCache):
        self.path = path
        self.imports = imports
        self.pieces = PieceCache(path)
        self.checker = IncrementalChecker(path)

    def analyse(self, text: str) -> Analysis:
        sources = SourceMap()
        sources.add(self.path, text)
        a = Analysis(self.path, text, sources)
        pieces = self.pieces.parse(text)
        a.items = tuple(i for p in pieces for i in p.items)
        errors = [p.error for p in pieces if p.error is not None]
        if errors:
            a.diagnostics = errors[:1]
            return a
        items = a.items
        if not items:
            return a
        end = items[-1].span
        a.program = A.Program(items, self.path, (), A.Span(self.path, 1, 1, end.end_line, end.end_col))
        try:
            a.imports = self.imports.load(a.program, self.path, sources)
        except LPError as e:
            a.diagnostics = list(e.diagnostics)
            return a
        try:
            a.result = self.checker.check(a.program, a.imports)
        except Exception:  # noqa: BLE001 - a bug in the incremental path must not cost the diagnostics
            log.exception("incremental check failed; checking the whole program")
            self.checker = IncrementalChecker(self.path)
            a.result = check_program(a.program, a.imports)
        a.diagnostics = list(a.result.diagnostics)
        return a
