"""Every seed snippet (with its prelude/postlude) and every example type-checks."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, SEEDS
from tests.seeds.snippets import SNIPPETS
from tests.types.helpers import check_source

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.lp"))
STDLIB_FILES = sorted((ROOT / "stdlib").glob("*.lp"))


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_seed_snippet_checks(snippet):
    for i, src in enumerate(snippet.sources()):
        result, text = check_source(src, f"{snippet.name}-{i}.lp")
        assert result.diagnostics == [], text


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_checks(path):
    result, text = check_source(path.read_text(), str(path.name))
    assert result.diagnostics == [], text


@pytest.mark.parametrize("path", STDLIB_FILES, ids=lambda p: p.name)
def test_stdlib_module_checks(path):
    result, text = check_source(path.read_text(), str(path.name))
    assert result.diagnostics == [], text
