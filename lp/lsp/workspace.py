"""The open documents: one Analyzer each, their latest analysis, and the last one that type-checked."""
from __future__ import annotations

from pygls.uris import to_fs_path

from lp.lsp.analysis import Analysis, Analyzer
from lp.lsp.imports import ImportCache


class Workspace:
    def __init__(self):
        self.imports = ImportCache()
        self.analyzers: dict[str, Analyzer] = {}
        self.latest: dict[str, Analysis] = {}
        self.checked: dict[str, Analysis] = {}

    def path(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    def analyse(self, uri: str, text: str) -> Analysis:
        a = self.latest.get(uri)
        if a is not None and a.text == text:
            return a
        analyzer = self.analyzers.get(uri)
        if analyzer is None:
            analyzer = self.analyzers[uri] = Analyzer(self.path(uri), self.imports)
        a = self.latest[uri] = analyzer.analyse(text)
        if a.result is not None:
            self.checked[uri] = a
        return a

    def current(self, uri: str, text: str) -> Analysis | None:
        """The analysis of `text`, or when it does not parse, the last version that did."""
        a = self.analyse(uri, text)
        return a if a.result is not None else self.checked.get(uri)

    def latest_checked(self, uri: str) -> Analysis | None:
        return self.checked.get(uri)

    def open_uris(self) -> list[str]:
        return list(self.analyzers)

    def invalidate(self) -> None:
        """Forget finished analyses (a saved file may be imported by another); parsed pieces are kept."""
        self.latest.clear()

    def close(self, uri: str) -> None:
        for table in (self.analyzers, self.latest, self.checked):
            table.pop(uri, None)
