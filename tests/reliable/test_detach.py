"""Detached calls and timers (docs/reliable.md, "Detached calls"): a run may end while a call or
timer it detached is going; cancelling the run leaves them going; their result handlers run once
when they end; callsOf: does not list them."""
from __future__ import annotations

import sqlite3

from tests.durable.helpers import run

DETACH = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS items (x TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO items (x) VALUES (?)' with: { run input })
        complete: run ref with: 'put ' , run input.
Box >> fire: run =
    (((Step none call: 'Box/b' op: #put: input: 'call' then: #done: for: run ref) detach)
        after: 30 call: 'Box/b' op: #put: input: 'timer' then: #done: for: run ref) detach
        complete: run ref with: ((self callsOf: run ref) size printString , ' awaited').
Box >> wait: run = ((Step none after: 40 call: 'Box/b' op: #put: input: 'kept' then: #done: for: run ref) detach)
    after: 40 call: 'Box/b' op: #put: input: 'dropped' then: #done: for: run ref.
Box >> done: call =
    (Step none sql: 'CREATE TABLE IF NOT EXISTS heard (x TEXT NOT NULL, outcome TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO heard (x, outcome) VALUES (?, ?)' with: { call input. call outcome }.
Box >> cancel: run reason: reason = Step none settle: run ref outcome: 'canceled' result: reason.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
node root: 'Box/a' op: #fire: input: '' id: 'r1'.
(node when: 'Box/a' id: 'r1') printNl.
node root: 'Box/a' op: #wait: input: '' id: 'r2'.
node cancel: 'Box/a' id: 'r2' reason: 'enough'.
(node when: 'Box/a' id: 'r2') printNl.
node quiet.
(node pending: 'Box/a') printNl.
Step none detach.
"""


def test_a_detached_call_and_timer_outlive_their_run(tmp_path):
    rc, out, err = run(DETACH.replace("{dir}", str(tmp_path / "data")), tmp_path)
    assert rc == 1
    assert "Error: detach follows a call or a timer in its Step" in err and "Traceback" not in err
    assert out.splitlines() == [
        "RunView(status: 'completed', outcome: 'completed', result: '0 awaited')",
        "RunView(status: 'canceled', outcome: 'canceled', result: 'enough')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]
    b = sqlite3.connect(tmp_path / "data" / "Box" / "b.sqlite")
    assert sorted(b.execute("SELECT x FROM items").fetchall()) == [("call",), ("kept",), ("timer",)]
    a = sqlite3.connect(tmp_path / "data" / "Box" / "a.sqlite")
    assert sorted(a.execute("SELECT x, outcome FROM heard").fetchall()) == [
        ("call", "completed"), ("kept", "completed"), ("timer", "completed")]
