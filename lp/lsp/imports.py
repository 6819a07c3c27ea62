"""The modules a document imports (the core library first), each parsed once per version on disk."""
from __future__ import annotations

import os
from pathlib import Path

from lp.diagnostics import SourceMap
from lp.modules import CORE, STDLIB, Loader, module_file_name
from lp.syntax import ast as A
from lp.syntax.parser import parse_text, read_source


class ImportCache:
    """Parsed modules by path, valid while the file's modification time and size are unchanged."""

    def __init__(self, stdlib: Path = STDLIB):
        self.stdlib = stdlib
        self.parsed: dict[Path, tuple[tuple[int, int], str, A.Program]] = {}

    def parse(self, path: Path, display: str, sources: SourceMap) -> A.Program:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self.parsed.get(path)
        if hit is None or hit[0] != stamp:
            text = read_source(str(path))
            hit = self.parsed[path] = (stamp, text, parse_text(text, display))
        sources.add(display, hit[1])
        return hit[2]

    def load(self, main: A.Program, path: str, sources: SourceMap) -> list[A.Program]:
        """The modules `main` needs, in dependency order. Raises LPError as `lp check` would."""
        loader = _CachedLoader(self, sources)
        core = self.stdlib / module_file_name(CORE)
        if core.exists():
            loader._load(core, [], None)
        here = Path(path).resolve()
        loader._imports(main, here.parent, [here])
        return list(loader.order)


class _CachedLoader(Loader):
    def __init__(self, cache: ImportCache, sources: SourceMap):
        super().__init__(sources, cache.stdlib)
        self.cache = cache

    def _parse(self, path: Path, display: str) -> A.Program:
        return self.cache.parse(path, display, self.sources)
