"""A real redis-server for the grain tests: started on a free port in a temporary directory,
stopped after (the test is skipped where redis-server is not installed; .ci/run installs it)."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, workdir: Path, aof: bool = False):
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("redis-server is not installed (apt install redis-server)")
        self.exe, self.dir, self.aof = exe, workdir, aof
        self.port = free_port()
        self.proc = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self):
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--save", "", "--daemonize", "no", "--loglevel", "warning"]
        args += ["--appendonly", "yes", "--appendfsync", "always"] if self.aof else ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.command("PING") == "PONG":
                    return
            except (OSError, RuntimeError):   # not listening yet, or still loading its append-only file
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def command(self, *args: str):
        """One command over a fresh connection; answers the reply (str, int, list or None)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"".join([f"*{len(args)}\r\n".encode()] +
                               [f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args]))
            f = s.makefile("rb")
            return _read(f)


def _read(f):
    line = f.readline().rstrip(b"\r\n").decode()
    kind, rest = line[0], line[1:]
    if kind in "+":
        return rest
    if kind == "-":
        raise RuntimeError(rest)
    if kind == ":":
        return int(rest)
    if kind == "$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2].decode()
    n = int(rest)
    return None if n < 0 else [_read(f) for _ in range(n)]


@pytest.fixture
def redis(tmp_path):
    d = tmp_path / "redis"
    d.mkdir()
    server = RedisServer(d)
    yield server
    server.stop()


@pytest.fixture
def durable_redis(tmp_path):
    d = tmp_path / "redis"
    d.mkdir()
    server = RedisServer(d, aof=True)
    yield server
    server.stop()
