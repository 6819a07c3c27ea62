"""Every code snippet of the seed documents (copied into tests/seeds/snippets/) parses, type-checks
and runs with the declarations a fragment assumes; complete programs print exactly what they should."""
from __future__ import annotations

import subprocess

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


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_snippet_as_a_binary_matches_lp_run(snippet, tmp_path):
    """Each snippet, built with `lp build`, prints byte for byte what `lp run` prints (stdout,
    stderr, exit status) on 1 and 2 domains (issues 11 and 12)."""
    for i, src in enumerate(snippet.sources()):
        f = tmp_path / f"{snippet.name}_{i}.lp"
        f.write_text(src)
        binary = tmp_path / f"{snippet.name}_{i}"
        b = run_lp("build", str(f), "-o", str(binary), timeout=120)
        assert b.returncode == 0, b.stderr.decode()
        for domains in ("1", "2"):
            want = run_lp("run", "--domains", domains, str(f), timeout=60)
            got = subprocess.run([str(binary), "--domains", domains], capture_output=True, timeout=60)
            assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr), src
