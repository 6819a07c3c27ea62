"""kill -9 against real files (docs/durable.md, "What survives"): a process killed between a
transaction's statements leaves none of them; one killed after the commit leaves all of them;
a durable grain killed mid-run keeps every call it acknowledged."""
from __future__ import annotations

import sqlite3
import time

from tests.durable.helpers import run, start


def _wait_for(cond, proc, what, timeout=60):
    end = time.monotonic() + timeout
    while not cond():
        assert proc.poll() is None, f"the program ended before {what}: {proc.stderr.read().decode()}"
        assert time.monotonic() < end, f"no {what} after {timeout} s"
        time.sleep(0.02)


def _kill(proc):
    proc.kill()   # SIGKILL, unless already reaped
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()


def _transaction_program(db):
    return f"""
s := Storage at: '{db}'.
s execute: 'CREATE TABLE IF NOT EXISTS t (x)'.
s execute: 'INSERT INTO t VALUES (?)' with: {{ 0 }}.
s transaction: ((1 to: 5) asArray collect: [:i | 'INSERT INTO t VALUES (?)' -> {{ i }}]).
(Storage at: '{db}.done') execute: 'CREATE TABLE done (x)'.
Actor sleep: 60000.
"""


def _count_after_restart(db, tmp_path):
    rc, out, err = run(f"""
((Storage at: '{db}') query: 'SELECT group_concat(x) AS xs FROM t') rows first printNl.
""", tmp_path, name="reader.lp")
    assert (rc, err) == (0, "")
    return out


def test_killed_between_a_transactions_statements_keeps_none_of_them(tmp_path):
    db, trace = tmp_path / "s.sqlite", tmp_path / "trace"
    p = start(_transaction_program(db), tmp_path, env={"LPRT_TEST_SQL_TRACE": str(trace)})
    try:
        _wait_for(lambda: trace.exists() and len(trace.read_text().split()) >= 3, p, "third statement")
    finally:
        _kill(p)
    assert trace.read_text().split() == ["1", "2", "3"]
    assert _count_after_restart(db, tmp_path) == "Dictionary('xs' -> '0')\n"
    assert sqlite3.connect(db).execute("SELECT x FROM t").fetchall() == [(0,)]


def test_killed_after_the_commit_keeps_all_of_them(tmp_path):
    db, trace = tmp_path / "s.sqlite", tmp_path / "trace"
    done = tmp_path / "s.sqlite.done"
    p = start(_transaction_program(db), tmp_path, env={"LPRT_TEST_SQL_TRACE": str(trace)})
    try:
        _wait_for(lambda: done.exists() and sqlite3.connect(done).execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'done'").fetchone()[0] == 1, p, "the commit")
    finally:
        _kill(p)
    assert _count_after_restart(db, tmp_path) == "Dictionary('xs' -> '0,1,2,3,4,5')\n"


GRAIN = """
Import module: #Durable.
Object subclass: #Ledger fields: (n).
Ledger >> add: k = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS entries (k INTEGER PRIMARY KEY)'.
    Grain storage execute: 'INSERT INTO entries VALUES (?)' with: { k }.
    self with: { n: self n + 1 }).
Ledger >> entries = ((Grain storage query: 'SELECT count(*) AS c FROM entries') rows first at: 'c') + 0.
ledgers := Grain for: Ledger initial: (Ledger fields: { n: 0 }) dir: '%s'
    options: (GrainOptions default with: { idle: 30 }).
"""


def test_a_killed_durable_grain_keeps_every_acknowledged_call(tmp_path):
    data = tmp_path / "data"
    p = start(GRAIN % data + """
1 to: 100000 do: [:i |
    (ledgers id: 'a') add: i.
    Log info: 'acked ' , i printString].
""", tmp_path)
    acked = 0
    try:
        end = time.monotonic() + 60
        while acked < 30 and time.monotonic() < end:
            line = p.stderr.readline().decode()
            assert line, "the program ended"
            if line.startswith("info: acked "):
                acked = int(line.split()[-1])
        p.kill()
        p.wait()
        # what the program acknowledged before it died may still wait in the pipe: read it all, so that
        # a loaded machine (the test reading far behind the program) does not count fewer than it wrote
        for rest in p.stderr.read().decode().split("\n")[:-1]:   # whole lines only
            if rest.startswith("info: acked "):
                acked = int(rest.split()[-1])
    finally:
        _kill(p)
    assert acked >= 30
    rc, out, err = run(GRAIN % data + """
a := ledgers id: 'a'.
a n printNl.
a entries printNl.
""", tmp_path, name="after.lp")
    assert (rc, err) == (0, "")
    n, entries = map(int, out.split())
    # every acknowledged call wrote its entry and its state; the call in flight at the kill
    # may have committed its entry (its own request) without its state (the next one)
    assert acked <= n <= acked + 1
    assert n <= entries <= n + 1
