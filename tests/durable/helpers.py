"""Shared pieces of the durable-grain tests: run a program as `lp run` does, in a subprocess
(optionally left running, to be killed), with PRELUDE's `T show: label run: [...]` printing what
a block answered or which StorageError it raised."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, run_lp

PRELUDE = """
Object subclass: #T.
T class >> show: label run: blk =
    (Error try: [label , ': ' , blk value printString] onError: [:e | label , ': ' , e class name , ' ' , e message]) displayNl.
"""


def run(source: str, tmp_path: Path, timeout: float = 120, name: str = "prog.lp", domains: int = 2):
    """(exit status, stdout, stderr) of `lp run` on source."""
    f = tmp_path / name
    f.write_text(source)
    r = run_lp("run", "--domains", str(domains), str(f), timeout=timeout)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def start(source: str, tmp_path: Path, name: str = "prog.lp", env: dict | None = None) -> subprocess.Popen:
    """`lp run` on source, left running (stdout piped)."""
    f = tmp_path / name
    f.write_text(source)
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "lp", "run", "--domains", "2", str(f)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=e)


def lines(out: str) -> dict:
    """label -> the rest of each `label: ...` line."""
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
