"""Durable grains' hosted WebSockets, interpreted: C clients (the `websockets` package, asyncio)
on G grains of tests/durable/sockets_program.py's Room. Prints how long the clients took to
connect, round trips per second (a message answered by a grain call), how long the grains took
to deactivate with every socket open, round trips per second again while the first message to
each grain activates it (the attachments checked), and how long closing took until every
socketClose:event: had run.

    python bench/durable/sockets_bench.py [--clients 1000] [--grains 100] [--domains 2]
"""
from __future__ import annotations

import argparse
import asyncio
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.durable.sockets_program import program  # noqa: E402


def active(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/active", timeout=60) as r:
        return int(r.read())


async def round_trips(clients, text):
    async def one(i, ws):
        await ws.send(text(i))
        return await ws.recv()
    return await asyncio.gather(*(one(i, ws) for i, ws in enumerate(clients)))


async def run(port, n, grains, proc):
    gate = asyncio.Semaphore(50)

    async def open_one(i):
        async with gate:
            return await connect(f"ws://127.0.0.1:{port}/r/room{i % grains}", open_timeout=120, max_size=None)

    t = time.monotonic()
    clients = await asyncio.gather(*(open_one(i) for i in range(n)))
    print(f"{n} clients connected to {grains} grains in {time.monotonic() - t:.1f} s")
    await asyncio.gather(*(ws.send(f"name c{i}") for i, ws in enumerate(clients)))
    t = time.monotonic()
    got = await round_trips(clients, lambda i: "who")
    assert got == [f"c{i}" for i in range(n)], "attachments"
    print(f"round trips/s (grains active): {n / (time.monotonic() - t):.0f}")
    t = time.monotonic()
    while active(port) != 0:
        await asyncio.sleep(0.2)
    print(f"every grain deactivated with {n} sockets open after {time.monotonic() - t:.1f} s")
    t = time.monotonic()
    got = await round_trips(clients, lambda i: "who")
    assert got == [f"c{i}" for i in range(n)], "attachments after deactivation"
    print(f"round trips/s (each grain activated by its first message): {n / (time.monotonic() - t):.0f}")
    t = time.monotonic()
    await asyncio.gather(*(ws.close() for ws in clients))
    ends = 0
    while ends < n:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line, "the server ended"
        ends += line.startswith("close ")
    print(f"{n} closes, each one socketClose:event:, in {time.monotonic() - t:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--grains", type=int, default=100)
    ap.add_argument("--domains", type=int, default=2)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * a.clients + 256)), hard))
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").exists() else None) as d:
        f = Path(d) / "bench.lp"
        f.write_text(program(Path(d) / "data", idle=1000))
        proc = subprocess.Popen([sys.executable, "-m", "lp", "run", "--domains", str(a.domains), str(f)],
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            port = int(proc.stdout.readline())
            asyncio.run(run(port, a.clients, a.grains, proc))
        finally:
            proc.kill()


if __name__ == "__main__":
    main()
