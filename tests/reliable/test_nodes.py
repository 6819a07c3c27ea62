"""Reliable calls across nodes (docs/reliable.md, "Across nodes"): a root run on node A calls a
grain served by node B, another `lp run` reached through Remote; B is killed (SIGKILL) while the
call's handler runs and started again, and the call completes exactly once."""
from __future__ import annotations

import select
import socket
import sqlite3
import time
from pathlib import Path

from tests.durable.helpers import start

CLASSES = """Import module: #Reliable.
ReliableHandler subclass: #Stock.
ReliableHandler subclass: #Shop.
Stock >> take: run = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS tries (n INTEGER NOT NULL)'.
    Grain storage execute: 'INSERT INTO tries (n) VALUES (1)'.
    ((Grain storage query: 'SELECT count(*) AS n FROM tries') rows first at: 'n') = 1 ifTrue: [
        'taking' displayNl.
        Actor sleep: 60000
    ].
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS taken (input TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO taken (input) VALUES (?)' with: { run input })
        complete: run ref with: 'took ' , run input
).
Shop >> order: run =
    Step none call: 'Stock/main' op: #take: input: run input then: #taken: for: run ref.
Shop >> taken: call =
    Step none settle: call by outcome: call outcome result: call result.
"""

NODE = """server := RemoteServer startHost: '127.0.0.1' port: {port}.
node := ((((ReliableServers dir: '{dir}') serve: {cls} new) peer: '{other}' at: 'http://127.0.0.1:{other_port}/rpc') listenOn: server) start.
"""

B = """'ready' displayNl.
Actor sleep: 600000.
"""

A = """node root: 'Shop/web' op: #order: input: '3' id: 'order-1'.
(node when: 'Shop/web' id: 'order-1') printNl.
node quiet.
(node pending: 'Shop/web') printNl.
(Error try: [node pending: 'Stock/main'. 'no error'] onError: [:e | e message]) displayNl.
"""


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def wait_line(proc, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            seen += line
            if line.strip() == text.encode():
                return
            if not line and proc.poll() is not None:
                break
    raise AssertionError(f"no {text!r} from the node: {seen!r} {proc.stderr.read() if proc.poll() is not None else ''}")


def wait_empty(store: Path, table: str, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while True:
        with sqlite3.connect(store) as db:
            n = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if n == 0 or time.monotonic() > deadline:
            return n
        time.sleep(0.1)


def test_a_call_to_a_killed_and_restarted_node_completes_exactly_once(tmp_path: Path) -> None:
    pa, pb = free_ports(2)
    b_src = CLASSES + NODE.format(port=pb, dir=tmp_path / "b", cls="Stock", other="Shop", other_port=pa) + B
    a_src = CLASSES + NODE.format(port=pa, dir=tmp_path / "a", cls="Shop", other="Stock", other_port=pb) + A
    b = start(b_src, tmp_path, name="b.lp")
    a = None
    try:
        wait_line(b, "ready")
        a = start(a_src, tmp_path, name="a.lp")
        wait_line(b, "taking")
        b.kill()
        b.wait()
        b = start(b_src, tmp_path, name="b.lp")
        out, err = a.communicate(timeout=120)
        assert a.returncode == 0, err.decode()
        assert out.decode().splitlines() == [
            "RunView(status: 'completed', outcome: 'completed', result: 'took 3')",
            "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",
            f"the grain Stock/main is on the node at http://127.0.0.1:{pb}/rpc: ask that node",
        ]
        stock = tmp_path / "b" / "Stock" / "main.sqlite"
        assert wait_empty(stock, "kernel_outbox") == 0
        with sqlite3.connect(stock) as db:
            assert db.execute("SELECT count(*) FROM tries").fetchone()[0] == 2
            assert db.execute("SELECT input FROM taken").fetchall() == [("3",)]
            assert db.execute("SELECT from_addr, id, status FROM kernel_runs").fetchall() == [
                ("Shop/web", "Shop/web#1", "completed")]
        with sqlite3.connect(tmp_path / "a" / "Shop" / "web.sqlite") as db:
            assert db.execute("SELECT state, result FROM kernel_calls").fetchall() == [("completed", "took 3")]
    finally:
        for p in (a, b):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
