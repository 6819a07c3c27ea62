"""Incremental re-checking answers exactly what checking the whole text afresh answers.

Each program of examples/ and tests/types/ is opened, then edited step by
step (an item removed, an item repeated, a literal changed to a string, a `+`
changed to `,`, lines inserted above); after every step the diagnostics of the incremental analysis
must render exactly as those of a fresh analysis, which are those of `lp check`.
"""
from __future__ import annotations

import importlib.util
import re

import pytest

from lp.diagnostics import LPError, SourceMap, render_all
from lp.lsp import incremental
from lp.lsp.analysis import Analyzer
from lp.lsp.chunks import split
from lp.lsp.hover import hover_text
from lp.lsp.imports import ImportCache
from lp.modules import Loader
from lp.types import check_program
from tests.conftest import EXAMPLES, ROOT

TYPES = ROOT / "tests" / "types"


def _bench_program(lines: int) -> str:
    """The program bench/check_speed.py generates: many small classes, methods and actors."""
    spec = importlib.util.spec_from_file_location("check_speed", ROOT / "bench" / "check_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program(lines)


FILES = sorted(EXAMPLES.glob("*.lp")) + sorted((TYPES / "well_typed").glob("*.lp")) + \
    sorted((TYPES / "ill_typed").glob("*.lp"))


def _rendered(analysis) -> str:
    return render_all(analysis.diagnostics, analysis.sources)


def _lp_check(path) -> str:
    sources = SourceMap()
    try:
        main, imports = Loader(sources).load_main(str(path))
    except LPError as e:
        return render_all(e.diagnostics, sources)
    return render_all(check_program(main, imports).diagnostics, sources)


def _edits(text: str):
    """Successive versions of `text`, each a small edit of the one before."""
    pieces = split(text)
    if len(pieces) > 2:
        a, b = pieces[len(pieces) // 2]
        text = text[:a] + text[b:]
        yield text
        a, b = split(text)[-2]
        text = text[:b] + text[a:b] + text[b:]
        yield text
    m = re.search(r"(?<![\w.$#'])\d+(?![\w.])", text[len(text) // 3:])
    if m:
        at = len(text) // 3 + m.start()
        text = text[:at] + "'x'" + text[at + len(m.group()):]
        yield text
    at = text.find(" + ", len(text) // 2)
    if at >= 0:
        text = text[:at] + " , " + text[at + 3:]
        yield text
    text = "\n\n" + text
    yield text
    m = re.search(r"'x'", text)
    if m:
        yield text[:m.start()] + "7" + text[m.end():]


def test_incremental_matches_on_the_benchmark_program(monkeypatch):
    monkeypatch.setattr(incremental, "FULL_CHECK_SHARE", 1.0)
    text = _bench_program(150)
    imports = ImportCache()
    live = Analyzer("bench.lp", imports)
    live.analyse(text)
    lines = text.split("\n")
    versions = []
    targets = [i for i, line in enumerate(lines) if re.match(r"(n\d+ :=|P\d+ >> norm)", line)]
    for k, i in enumerate(targets[::3]):
        lines = list(lines)
        lines[i] = lines[i].replace("+ 1.", "+ 'one'." if k % 2 else "- 2.").replace(") sqrt", ") foo: 1")
        versions.append("\n".join(lines))
    partial = errors = 0
    for version in versions:
        got = _rendered(live.analyse(version))
        partial += not live.checker.last_was_full
        assert got == _rendered(Analyzer("bench.lp", imports).analyse(version))
        errors += got.count("\n-- ") + got.startswith("-- ")
    assert partial > 0 and errors > 0


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_incremental_diagnostics_match_a_fresh_check(path, monkeypatch):
    monkeypatch.setattr(incremental, "FULL_CHECK_SHARE", 1.0)    # re-check a part whenever one can
    text = path.read_text(encoding="utf-8")
    imports = ImportCache()
    live = Analyzer(str(path), imports)
    first = live.analyse(text)
    assert _rendered(first) == _lp_check(path)
    for version in _edits(text):
        fresh = Analyzer(str(path), imports).analyse(version)
        assert _rendered(live.analyse(version)) == _rendered(fresh)


def test_untouched_items_keep_their_types_after_a_partial_check(monkeypatch):
    monkeypatch.setattr(incremental, "FULL_CHECK_SHARE", 1.0)
    text = "xs := #(1 2 3).\nys := 'ab'.\nys size printNl.\n"
    live = Analyzer("t.lp", ImportCache())
    live.analyse(text)
    after = live.analyse(text.replace("'ab'", "'abc'"))
    assert not live.checker.last_was_full
    assert hover_text(after, 1, 1) == "xs : Array[Integer]"
    assert hover_text(after, 2, 1) == "ys : String"
