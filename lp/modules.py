"""Module loading: resolves `Import module: #Name` to a file and parses each module once.

`#Name` names `name.lp` (CamelCase becomes snake_case: #HttpServer is
`http_server.lp`), looked up beside the importing file first, then in the
stdlib. The stdlib's `core.lp` (the core library written in LP) is loaded
before every program without being imported. Modules come back in dependency
order, each once; an import cycle is an error. The stdlib is `stdlib/` in a
checkout (and an editable install) and the package `lp.stdlib` once installed.

The core library's own helpers (its methods on builtin classes whose selectors
are not library selectors, such as `Array >> merge:by:`) are private: once
parsed they are renamed `core.merge:by:`, a selector no program can write, so
a program can neither send them nor collide with them (`privatise`).
"""
from __future__ import annotations

import re
from pathlib import Path

from lp.diagnostics import Diagnostic, LPError, SourceMap
from lp.syntax import ast as A
from lp.syntax.parser import parse_text, read_source
from lp.core_helpers import privatise


def stdlib_dir() -> Path:
    here = Path(__file__).resolve().parent
    installed, checkout = here / "stdlib", here.parent / "stdlib"
    return installed if (installed / "core.lp").is_file() else checkout


STDLIB = stdlib_dir()
CORE = "core"


def module_file_name(name: str) -> str:
    """CamelCase to snake_case; an acronym is one word: #AMod is a_mod.lp, #HTTPServer http_server.lp."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower() + ".lp"


class Loader:
    def __init__(self, sources: SourceMap, stdlib: Path = STDLIB):
        self.sources = sources
        self.stdlib = stdlib
        self.loaded: dict[Path, A.Program] = {}
        self.order: list[A.Program] = []

    def _parse(self, path: Path, display: str) -> A.Program:
        text = read_source(str(path))
        self.sources.add(display, text)
        return parse_text(text, display)

    def load_main(self, path: str, extra: tuple[str, ...] = ()) -> tuple[A.Program, list[A.Program]]:
        """Parse the main file; answers it and its imports (core first), in dependency order, with
        the stdlib modules named in `extra` loaded too."""
        core = self.stdlib / module_file_name(CORE)
        if not core.is_file():
            raise LPError(Diagnostic("standard library missing", f"The standard library is not installed: "
                                     f"there is no `{core}`.", None, hint="reinstall lp"))
        self._load(core, [], None)
        main = self._parse(Path(path), path)
        self._imports(main, Path(path).resolve().parent, [Path(path).resolve()])
        self.load_stdlib(extra)
        return main, list(self.order)

    def load_stdlib(self, names: tuple[str, ...]) -> list[A.Program]:
        """Load the stdlib modules `names` (and their imports) beside what is loaded already;
        answers the modules this added, in dependency order."""
        before = len(self.order)
        for name in names:
            self._load(self.stdlib / module_file_name(name), [], None)
        return self.order[before:]

    def _load(self, path: Path, chain: list[Path], at: A.Import | None) -> None:
        path = path.resolve()
        if path in self.loaded:
            return
        if path in chain:
            cycle = " -> ".join(p.name for p in chain[chain.index(path):] + [path])
            raise LPError(Diagnostic("import cycle", f"These modules import each other in a cycle: {cycle}.",
                                     at.span if at else None))
        display = str(path) if not path.is_relative_to(self.stdlib.resolve()) else f"stdlib/{path.name}"
        program = self._parse(path, display)
        if path == (self.stdlib / module_file_name(CORE)).resolve():
            program = privatise(program)
        if program.statements:
            raise LPError(Diagnostic(
                "statement in a module", "An imported module holds classes and methods; only the main file's "
                "statements run, so this one never would.", program.statements[0].span,
                hint="move it into a class-side method and call that from the main file"))
        self._imports(program, path.parent, chain + [path])
        self.loaded[path] = program
        self.order.append(program)

    def _imports(self, program: A.Program, here: Path, chain: list[Path]) -> None:
        for imp in program.imports:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", imp.module):
                raise LPError(Diagnostic("bad module name", f"`{imp.module}` is not a module name: a module is "
                                         "named like a class (`#Supervision`), and found beside the importing "
                                         "file or in the stdlib, never by a path.", imp.span))
            fname = module_file_name(imp.module)
            for d in (here, self.stdlib):
                cand = d / fname
                if cand.is_file():
                    self._load(cand, chain, imp)
                    break
            else:
                raise LPError(Diagnostic("unknown module", f"There is no module `{imp.module}`: I looked for "
                                         f"`{fname}` beside this file and in the stdlib.", imp.span))
