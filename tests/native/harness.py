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
    return run([*LP, "build", program.name, "-o", str(out), *flags], cwd=program.parent)


def interpret(program: Path, *args: str) -> Outcome:
    return run([*LP, "run", program.name, *args], cwd=program.parent)


def native(binary: Path, cwd: Path, *args: str) -> Outcome:
    return run([str(binary), *args], cwd=cwd)
