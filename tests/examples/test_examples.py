"""Every example runs under `lp run` on 1 and on 2 domains and prints exactly its expected output."""
from __future__ import annotations

import pytest

from tests.conftest import EXAMPLES, run_lp

PROGRAMS = sorted(EXAMPLES.glob("*.lp"))


@pytest.mark.parametrize("domains", [1, 2])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_example_interpreted(path, domains):
    expected = path.with_suffix(".out").read_bytes()
    r = run_lp("run", "--domains", str(domains), str(path.relative_to(EXAMPLES.parent)), timeout=60)
    assert r.stderr.decode() == ""
    assert r.returncode == 0
    assert r.stdout == expected


def test_every_example_has_expected_output():
    for p in PROGRAMS:
        assert p.with_suffix(".out").is_file(), f"{p.name} has no .out beside it"
