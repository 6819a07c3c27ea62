"""Every complete LP program in docs/*.md and the README type-checks, runs on 1 and 2 domains, and
prints what its doc says (the convention that marks fragments is in doc_programs.py)."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT, run_lp
from tests.docs.doc_programs import programs

DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
PROGRAMS = [p for doc in DOCS for p in programs(doc)]


def test_the_docs_have_programs():
    assert {p.doc.name for p in PROGRAMS} >= {"README.md", "supervision.md"}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.id)
def test_doc_program_checks(program, tmp_path):
    f = tmp_path / "doc.lp"
    f.write_text(program.source)
    r = run_lp("check", str(f))
    assert (r.returncode, r.stderr.decode()) == (0, ""), program.id


@pytest.mark.parametrize("domains", [1, 2])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.id)
def test_doc_program_runs(program, domains, tmp_path):
    f = tmp_path / "doc.lp"
    f.write_text(program.source)
    # in tmp_path: what a program leaves in its working directory (grains' lp-data/) starts afresh
    r = run_lp("run", "--domains", str(domains), str(f), timeout=120, cwd=tmp_path)
    assert (r.returncode, r.stderr.decode()) == (0, ""), program.id
    if program.expected_output is not None:
        assert r.stdout.decode() == program.expected_output
