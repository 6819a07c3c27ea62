"""Every seed snippet (with its prelude/postlude) and every example type-checks."""
from __future__ import annotations

from pathlib import Path

import pytest

from lp.diagnostics import SourceMap, render_all
from lp.modules import Loader
from lp.types import check_program
from tests.conftest import EXAMPLES, ROOT, SEEDS
from tests.seeds.snippets import SNIPPETS
from tests.types.helpers import check_source

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.lp"))
STDLIB_FILES = sorted((ROOT / "stdlib").glob("*.lp"))


def _sources(snippet):
    return snippet.sources()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_seed_snippet_checks(snippet):
    for i, src in enumerate(_sources(snippet)):
        result, text = check_source(src, f"{snippet.name}-{i}.lp")
        assert result.diagnostics == [], text


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")
def test_receiving_on_a_spawned_actor_from_main_is_rejected():
    src = "actor := Actor spawn: [:me | me receive].\nactor receive.\n"
    result, text = check_source(src, "other.lp")
    assert [d.title for d in result.diagnostics] == ["receive on another actor"], text


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_checks(path):
    # loaded as `lp check` loads it: core first, then the modules it imports
    sources = SourceMap()
    main, imports = Loader(sources).load_main(str(path))
    result = check_program(main, imports)
    assert result.diagnostics == [], render_all(result.diagnostics, sources)


@pytest.mark.parametrize("path", STDLIB_FILES, ids=lambda p: p.name)
def test_stdlib_module_checks(path, tmp_path):
    # loaded as a program importing it loads it: core first, then the modules it imports
    main = tmp_path / "main.lp"
    main.write_text(f"Import module: #{''.join(w.capitalize() for w in path.stem.split('_'))}.\n")
    sources = SourceMap()
    program, imports = Loader(sources).load_main(str(main))
    result = check_program(program, imports)
    assert result.diagnostics == [], render_all(result.diagnostics, sources)
