"""How pytest-xdist shares the suite between its workers (pyproject's addopts: `-n 2 --dist loadgroup`).

Each test is its own unit of work, except the tests of a module that shares a module-, class- or
package-scoped fixture (a built binary, a running server, a wheel): they go to one worker together, so
the fixture is made once and tests reading its state see one. The controller never imports the tests,
so such modules are found by the scope in their text or in a conftest.py above them. (xdist's own
xdist_group marks rename node ids, which pytest 9.2 no longer lets a plugin do.)"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

_SHARED_SCOPE = re.compile(r"""\bscope\s*=\s*["'](module|class|package)["']""")
# A module whose tests take minutes (the C runtime's suites, fuzzers, the wheel's install) says so with
# `pytestmark = pytest.mark.long_first`: its units are handed out first, so that no worker is left
# running one alone at the end.
_LONG_FIRST = re.compile(r"^pytestmark\s*=.*\bpytest\.mark\.long_first\b", re.M)


@functools.cache
def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""


def _declares_shared_fixture(path: Path) -> bool:
    return bool(_SHARED_SCOPE.search(_text(path)))


def long_first(module: Path) -> bool:
    return bool(_LONG_FIRST.search(_text(module)))


def shares_fixtures(module: Path, tests: Path) -> bool:
    """Whether the test module, or a conftest.py between it and tests/, declares a shared-scope fixture."""
    return _declares_shared_fixture(module) or any(
        _declares_shared_fixture(d / "conftest.py") for d in module.parents if d == tests or tests in d.parents)


class ModuleFixtureScheduling(LoadScopeScheduling):
    """Load scheduling by test, keeping together the tests of a module with shared fixtures; units of
    long_first modules go first, then the others largest first (xdist's --loadscope-reorder order)."""

    def __init__(self, config, log=None):
        super().__init__(config, log)
        self._root, self._tests = config.rootpath, Path(__file__).resolve().parent
        self._ordered = False

    def _assign_work_unit(self, node) -> None:
        if not self._ordered:   # the queue is complete when the first unit is handed out
            units = sorted(self.workqueue.items(),
                           key=lambda unit: not long_first(self._root / unit[0].split("::", 1)[0]))
            self.workqueue.clear()
            self.workqueue.update(units)
            self._ordered = True
        super()._assign_work_unit(node)

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return module if shares_fixtures(self._root / module, self._tests) else nodeid
