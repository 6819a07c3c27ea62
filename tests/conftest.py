"""Shared test helpers: paths to the repository, the examples and the seed documents' snippets."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SEED_SNIPPETS = ROOT / "tests" / "seeds" / "snippets"   # copied from the seed documents
SEEDS = SEED_SNIPPETS   # the old name, until tests/types/test_seeds_and_examples.py stops using it


def run_lp(*args: str, input: bytes | None = None, timeout: float = 60, cwd: Path | None = None):
    """Run the `lp` command in a subprocess, as a user would."""
    env = dict(os.environ)
    env.pop("LP_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "lp", *args], input=input, capture_output=True,
                          timeout=timeout, cwd=cwd or ROOT, env=env)


@pytest.fixture
def lp():
    return run_lp
