"""docs/supervision.md: its complete program runs and prints what the page says."""
from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, run_lp


@pytest.mark.parametrize("domains", [1, 2])
def test_tutorial_program_prints_what_the_page_says(tmp_path, domains):
    page = (ROOT / "docs" / "supervision.md").read_text()
    program = re.search(r"```smalltalk\n(Import module: #Supervision\..*?)```", page, re.S).group(1)
    expected = re.search(r"It prints[^\n]*\n\n```text\n(.*?)```", page, re.S).group(1)
    f = tmp_path / "tutorial.lp"
    f.write_text(program)
    r = run_lp("run", "--domains", str(domains), str(f))
    assert (r.returncode, r.stderr.decode()) == (0, "")
    assert r.stdout.decode() == expected
