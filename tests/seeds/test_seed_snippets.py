"""Every code snippet of the seed documents parses as written (with the declarations a fragment assumes)."""
from __future__ import annotations

import pytest

from lp.syntax.parser import parse_text
from tests.conftest import SEEDS
from tests.seeds.snippets import SNIPPETS

pytestmark = pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_snippet_parses(snippet):
    for i, src in enumerate(snippet.sources()):
        assert src.strip(), "snippet line range is empty: the seed moved?"
        parse_text(src, f"{snippet.name}-{i}.lp")
