"""`pip install .` (not editable) gives a working `lp`: the wheel carries the stdlib and the runtime,
and an install into a fresh virtual environment runs an example from outside the checkout."""
from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from lp.diagnostics import LPError, SourceMap
from lp.modules import Loader, stdlib_dir
from tests.conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first

RUNTIME_SOURCES = sorted(p.name for p in (ROOT / "runtime").iterdir() if p.suffix in (".c", ".h", ".S"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (whl,) = out.glob("lp_lang-*.whl")
    return whl


def test_wheel_carries_stdlib_and_runtime(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"lp/stdlib/core.lp", "lp/stdlib/supervision.lp", "lp/syntax/grammar.lark"} <= names
    assert {f"lp/runtime/{s}" for s in RUNTIME_SOURCES} <= names
    assert any(n.startswith("lp/runtime/_lprt") and n.endswith(".so") for n in names), "no compiled runtime"


def test_installed_lp_runs_an_example(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    # from an empty directory, so nothing of the checkout can be imported or found
    r = subprocess.run([str(env_dir / "bin" / "lp"), "run", str(EXAMPLES / "hello.lp")], cwd=tmp_path,
                       capture_output=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout == (EXAMPLES / "hello.out").read_bytes()


def test_stdlib_is_found_in_a_checkout():
    assert stdlib_dir() == ROOT / "stdlib"


def test_a_missing_stdlib_is_reported(tmp_path):
    with pytest.raises(LPError) as e:
        Loader(SourceMap(), stdlib=tmp_path).load_main(str(EXAMPLES / "hello.lp"))
    assert e.value.diagnostics[0].title == "standard library missing"
