"""Shared test helpers: paths to the repository, the examples and the seed documents' snippets."""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SEED_SNIPPETS = ROOT / "tests" / "seeds" / "snippets"   # copied from the seed documents
SEEDS = SEED_SNIPPETS   # the old name, until tests/types/test_seeds_and_examples.py stops using it


def _share_bytecode_between_subprocesses() -> None:
    """Hundreds of tests start `python -m lp ...`; with PYTHONDONTWRITEBYTECODE set, each would compile
    the whole compiler from source again. They share one bytecode cache for the session instead, kept
    outside the tree (PYTHONPYCACHEPREFIX) so the checkout stays as clean as the setting wants it."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    cache = tempfile.mkdtemp(prefix="lp-tests-pycache-")
    atexit.register(shutil.rmtree, cache, ignore_errors=True)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = cache


_share_bytecode_between_subprocesses()


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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadgroup":
        from tests.scheduling import ModuleFixtureScheduling
        return ModuleFixtureScheduling(config, log)
    return None
