"""Every code snippet of the seed documents (copied into tests/seeds/snippets/) parses, type-checks
and runs with the declarations a fragment assumes; complete programs print exactly what they should."""
from __future__ import annotations

import pytest

from lp.syntax.parser import parse_text
from tests.conftest import run_lp
from tests.seeds.snippets import SNIPPETS


def test_the_copies_are_in_the_repository():
    assert {s.name for s in SNIPPETS} == {"primitives", "ping_pong", "counter_loop", "typed_receive",
                                           "receive_timeout", "ask_future", "monitor_down"}
    assert all(s.files for s in SNIPPETS)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_snippet_parses(snippet):
    for i, src in enumerate(snippet.sources()):
        assert src.strip(), "snippet line range is empty: the seed moved?"
        parse_text(src, f"{snippet.name}-{i}.lp")


@pytest.mark.parametrize("domains", [1, 2])
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_snippet_checks_and_runs(snippet, domains, tmp_path):
    for i, src in enumerate(snippet.sources()):
        f = tmp_path / f"{snippet.name}_{i}.lp"
        f.write_text(src)
        r = run_lp("run", "--domains", str(domains), str(f), timeout=60)
        assert (r.returncode, r.stderr.decode()) == (0, snippet.expected_stderr), src
        if snippet.expected_output is not None:
            assert r.stdout.decode() == snippet.expected_output
