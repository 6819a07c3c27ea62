"""Run one LP program many times, each run a fresh process, without paying each time for starting
Python, parsing the stdlib and checking the program: `Prepared(path)` parses, type-checks and
loads it once (as `lp run` does), and every `run` forks this process and runs the loaded program's
main statements in the child, in a directory of its own (the runtime starts in the child: the
parent never runs the program, so it forks with one thread). A child is a whole process: the
crash hook LPRT_TEST_SQL_CRASH_AFTER ends it alone, its stores are opened afresh.

The crash harness (crash.py) runs the bank scenario with a relative data directory, so that one
prepared program serves every crash point and seed.
"""
from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lp.cli import _load_program, _type_check  # noqa: E402
from lp.diagnostics import SourceMap  # noqa: E402
from lp.interp.interp import Interpreter  # noqa: E402


class Prepared:
    """A program parsed, checked and loaded once; run it as often as needed with run()."""

    def __init__(self, path: Path):
        sources = SourceMap()
        self.main, imports = _load_program(str(path), sources)
        _type_check(self.main, imports, sources, quiet=True)
        self.interp = Interpreter(sources)
        self.interp.load(imports + [self.main])

    def run(self, cwd: Path, crash_after: int | None = None, seed: int | None = None, domains: int | None = None,
            timeout: float = 120) -> tuple[int, str, str]:
        """(exit status, stdout, stderr) of one run in directory cwd: deterministic with seed,
        else on `domains` domains; ended by the crash hook after its crash_after-th commit."""
        cwd.mkdir(parents=True, exist_ok=True)
        out, err = cwd / "stdout", cwd / "stderr"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:   # the child: never returns
            status = 3
            try:
                os.chdir(cwd)
                for fd, name in ((1, out), (2, err)):
                    os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
                os.environ.pop("LPRT_TEST_SQL_CRASH_AFTER", None)
                if crash_after is not None:
                    os.environ["LPRT_TEST_SQL_CRASH_AFTER"] = str(crash_after)
                status = self.interp.run_main(self.main, domains, seed=seed)
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException as e:   # a bug of lp's: say so in the run's stderr
                os.write(2, f"lp: internal error: {type(e).__name__}: {e}\n".encode())
            finally:
                os._exit(status)
        rc = _wait(pid, timeout)
        return rc, out.read_text(errors="replace"), err.read_text(errors="replace")


def _wait(pid: int, timeout: float) -> int:
    """The exit status of child pid (as subprocess reports it), killing it after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -signal.SIGKILL
        select.select([], [], [], 0.01)
