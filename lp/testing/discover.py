"""Which files and methods are tests: `*_test.lp` files (a folder is searched, `tests/` when
no path is given), and in each, the unary instance methods named `test...` of its TestCase
subclasses, in source order."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lp.syntax import ast as A

BASE = "TestCase"


@dataclass(frozen=True)
class TestMethod:
    class_name: str
    selector: str
    span: A.Span

    @property
    def name(self) -> str:
        return f"{self.class_name}>>{self.selector}"


def test_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """(test files in order, paths that do not exist). No path: `tests/` if there is one, else `.`."""
    if not paths:
        paths = ["tests"] if Path("tests").is_dir() else ["."]
    files, missing = [], []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files += sorted(str(f) for f in path.rglob("*_test.lp") if f.is_file())
        elif path.is_file():
            files.append(p)
        else:
            missing.append(p)
    seen = set()
    return [f for f in files if not (f in seen or seen.add(f))], missing


def test_methods(main: A.Program, imports: list[A.Program]) -> list[TestMethod]:
    supers = {c.name: c.superclass for p in imports + [main] for c in p.classes}

    def is_test_class(name):
        seen = set()
        while name in supers and name not in seen:
            seen.add(name)
            name = supers[name]
            if name == BASE:
                return True
        return False

    return [TestMethod(m.class_name, m.selector, m.span) for m in main.methods
            if not m.class_side and m.selector.startswith("test") and A.selector_kind(m.selector) == "unary"
            and is_test_class(m.class_name)]
