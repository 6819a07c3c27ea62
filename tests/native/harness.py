"""Runs an LP program with `lp run` and as a binary built by `lp build`, for byte comparison."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LP = [sys.executable, "-m", "lp"]


@dataclass
class Outcome:
    status: int
    stdout: bytes
    stderr: bytes


def run(cmd, cwd, timeout=120, env=None) -> Outcome:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout,
                       env={**os.environ, "LP_DEBUG": "", **(env or {})})
    return Outcome(p.returncode, p.stdout, p.stderr)


def build(program: Path, out: Path, *flags: str) -> Outcome:
    # a build is not timed: programs that compile the network and storage libraries take 20 s of
    # CPU, and a worker on a crowded machine gets a fraction of a core
    return run([*LP, "build", program.name, "-o", str(out), *flags], cwd=program.parent, timeout=600)


_INTERPRETED: dict[tuple, Outcome] = {}


def interpret(program: Path, *args: str) -> Outcome:
    """`lp run` of the program; the differential and the sanitizer tests compare against the same
    program, so one run per program text and arguments serves the whole session."""
    key = (program.resolve(), program.read_bytes(), args)
    if key not in _INTERPRETED:
        _INTERPRETED[key] = run([*LP, "run", program.name, *args], cwd=program.parent)
    return _INTERPRETED[key]


def native(binary: Path, cwd: Path, *args: str) -> Outcome:
    return run([str(binary), *args], cwd=cwd)
