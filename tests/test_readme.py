"""The README's promises hold: its tour runs and prints what it says."""
from __future__ import annotations

import re

from tests.conftest import ROOT, run_lp


def test_readme_tour_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    tour = re.search(r"```smalltalk\n(.*?)```", readme, re.S).group(1)
    f = tmp_path / "tour.lp"
    f.write_text(tour)
    r = run_lp("run", str(f))
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout == b"LP\n1\n"


def test_readme_names_the_commands_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e . && lp run examples/ping_pong.lp" in readme
    assert "\n    python -m pytest\n" in readme
    assert ci.rstrip().endswith("python -m pytest")
