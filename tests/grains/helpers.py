"""Shared pieces of the grain tests: a Counter grain class and `run`, which type-checks and runs a
program (with tests/grains/map_store.lp beside it) as `lp run` does, in a subprocess, or (mode
"build") as the binary `lp build` makes of it."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import run_lp

HERE = Path(__file__).resolve().parent

COUNTER = """
Import module: #Grain.
Import module: #MapStore.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
Counter >> add: k = self with: { n: self n + k }.
Counter >> fail = Error raise: 'no such luck'.
"""


def workdir(path: Path) -> Path:
    """path, made, with map_store.lp in it."""
    path.mkdir(exist_ok=True)
    shutil.copy(HERE / "map_store.lp", path / "map_store.lp")
    return path


MODES = ["run", "build"]


def run(source: str, tmp_path: Path, domains: int = 2, timeout: float = 120, mode: str = "run"):
    """(exit status, stdout, stderr) of `lp run` on source, or of its binary (mode "build"), in
    tmp_path (where the default store keeps lp-data/)."""
    workdir(tmp_path)
    f = tmp_path / "prog.lp"
    f.write_text(source)
    if mode == "build":
        b = run_lp("build", str(f), "-o", str(tmp_path / "prog"), timeout=300)
        assert b.returncode == 0, b.stderr.decode()
        r = subprocess.run([str(tmp_path / "prog"), "--domains", str(domains)], cwd=tmp_path, capture_output=True,
                           timeout=timeout)
    else:
        r = run_lp("run", "--domains", str(domains), str(f), timeout=timeout, cwd=tmp_path)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def check(source: str, tmp_path: Path):
    shutil.copy(HERE / "map_store.lp", tmp_path / "map_store.lp")
    f = tmp_path / "prog.lp"
    f.write_text(source)
    r = run_lp("check", str(f))
    return r.returncode, r.stderr.decode()
