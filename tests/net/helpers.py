"""Run an LP program as `lp run` does, or as the binary `lp build` makes of it (mode "build"), in a
subprocess whose standard output is read line by line while it runs (a server prints its port, the
test's Python peer then talks to it); `run_program` runs one to its end in either mode."""
from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from tests.conftest import ROOT
from tests.interp.helpers import run_source

MODES = ["run", "build"]
_BUILT: dict[str, Path] = {}


def _env() -> dict:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("LP_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def compiled(source: str) -> Path:
    """The binary of `source` (saved as prog.lp, so its messages name prog.lp), built once per
    source text in the session."""
    if source not in _BUILT:
        d = Path(tempfile.mkdtemp(prefix="lp-net-build-"))
        (d / "prog.lp").write_text(source)
        r = subprocess.run([sys.executable, "-m", "lp", "build", "prog.lp", "-o", "prog"], cwd=d, env=_env(),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        _BUILT[source] = d / "prog"
    return _BUILT[source]


def run_program(src: str, tmp_path: Path, mode: str = "run", domains: int = 2):
    """(exit status, stdout, stderr) of the program run to its end by `lp run` or as a binary."""
    if mode == "run":
        return run_source(src, tmp_path, domains=domains)
    p = subprocess.run([str(compiled(src)), "--domains", str(domains)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env=_env())
    return p.returncode, p.stdout, p.stderr


class LPProcess:
    def __init__(self, source: str, tmp_path: Path, domains: int = 2, args=(), mode: str = "run",
                 cwd: Path = ROOT):
        f = tmp_path / "prog.lp"
        f.write_text(source)
        cmd = [sys.executable, "-m", "lp", "run", "--domains", str(domains), *args, str(f)] if mode == "run" else \
            [str(compiled(source)), "--domains", str(domains), *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=_env(),
                                     text=True)
        self.lines: queue.Queue = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.out.append(line)
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def readline(self, timeout: float = 30) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the LP program ended early:\n" + self.proc.stderr.read()
        return line

    def finish(self, timeout: float = 60):
        """(exit status, all of stdout, stderr)."""
        try:
            err = self.proc.stderr.read()
            rc = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        while self.lines.get(timeout=10) is not None:
            pass
        return rc, "".join(self.out), err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def python_server(handler, backlog: int = 16):
    """A Python TCP server on 127.0.0.1 running handler(conn) for each connection in its own thread.
    Answers (port, stop)."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(backlog)
    done = threading.Event()

    def serve():
        while not done.is_set():
            try:
                c, _ = ls.accept()
            except OSError:
                return
            threading.Thread(target=_run, args=(handler, c), daemon=True).start()

    def stop():
        done.set()
        ls.close()

    threading.Thread(target=serve, daemon=True).start()
    return ls.getsockname()[1], stop


def _run(handler, c):
    with c:
        try:
            handler(c)
        except OSError:
            pass
