"""A program run under `lp run --observe 127.0.0.1:0`, or built with `lp build --observable` and
run as `./prog --observe 127.0.0.1:0` (mode "build"), for the observer's tests, and a small
WebSocket client that reads its ticks."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.sync.client import connect

from tests.conftest import ROOT


def _shown(program: Path) -> str:
    """The path as a user in the repository would type it (spawn sites are printed as given)."""
    return str(program.relative_to(ROOT)) if program.is_relative_to(ROOT) else str(program)


MODES = ["run", "build"]
_BUILT: dict[Path, Path] = {}


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("LP_DEBUG", None)
    return env


def observable(program: Path) -> Path:
    """The binary `lp build --observable` makes of the program, built once per session (from the
    repository's root, so its sites are named as `lp run` names them)."""
    program = Path(program).resolve()
    if program not in _BUILT:
        out = Path(tempfile.mkdtemp(prefix="lp-observe-build-")) / program.stem
        r = subprocess.run([sys.executable, "-m", "lp", "build", "--observable", _shown(program), "-o", str(out)],
                           cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        _BUILT[program] = out
    return _BUILT[program]


class Observed:
    def __init__(self, program, *flags: str, mode: str = "run"):
        self.mode = mode
        cmd = [sys.executable, "-m", "lp", "run", "--observe", "0", *flags, _shown(Path(program))] \
            if mode == "run" else [str(observable(program)), "--observe", "0", *flags]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=_env())
        line = self.proc.stderr.readline().decode()
        m = re.fullmatch(r"lp: observing at (http://127\.0\.0\.1:(\d+)/)\n", line)
        assert m, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url, self.port = m.group(1), int(m.group(2))

    def wait_ready(self):
        assert self.proc.stdout.readline() == b"ready\n"

    def ticks(self, query: dict | None = None):
        """A live feed: a context manager whose `next()` answers the next tick."""
        return Feed(self.port, query)

    def until(self, check, query=None, within=30.0):
        """The first tick for which check(tick) holds (the program settles while it runs)."""
        with self.ticks(query) as feed:
            deadline = time.monotonic() + within
            while True:
                tick = feed.next()
                if check(tick):
                    return tick
                assert time.monotonic() < deadline, json.dumps(tick)[:2000]

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


class Feed:
    def __init__(self, port: int, query: dict | None):
        self._connection = connect(f"ws://127.0.0.1:{port}/feed", max_size=None, open_timeout=20)
        self.ws = self._connection.__enter__()
        if query is not None:
            self.ws.send(json.dumps(query))
        self.last_size = 0

    def next(self) -> dict:
        text = self.ws.recv(timeout=20)
        self.last_size = len(text)
        return json.loads(text)

    def send(self, query: dict):
        self.ws.send(json.dumps(query))

    def close(self):
        self._connection.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
