"""Stores made by an older version of stdlib/reliable.lp (docs/reliable.md, "Stores of older
versions"): the kernel's tables are upgraded in place, in one transaction, the first time a grain
is used, and what the old store held goes on: a recorded run answers as it is, a call whose
callee asks a question is answered and completes. fixtures/schema1 holds the stores, as SQL
dumps, that fixtures/schema1/make.lp left when run by the module before schema versions (main at
0084488): a completed run on Box/b and a run of Box/a whose call to Box/b waits for an answer."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.durable.helpers import run

FIXTURE = Path(__file__).with_name("fixtures") / "schema1"

GO_ON = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS items (x TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO items (x) VALUES (?)' with: { run input })
        complete: run ref with: 'put ' , run input.
Box >> sell: run = Step none ask: run ref question: 'how many?'.
Box >> answered: run = Step none complete: run ref with: 'sold ' , run answer.
Box >> order: run = Step none call: 'Box/b' op: #sell: input: run input then: #sold: for: run ref.
Box >> asked: call = call input = 'auto' ifTrue: [Step none answer: call id with: '4'] ifFalse: [Step none].
Box >> sold: call = Step none settle: call by outcome: call outcome result: call result.
Box >> reply: run = (Step none answer: run input with: '3') complete: run ref with: 'replied'.
node := ((ReliableServers dir: 'data') serve: Box new) start.
(node root: 'Box/b' op: #put: input: 'fig' id: 'r0') result printNl.
node root: 'Box/a' op: #order: input: 'auto' id: 'r3'.
(node when: 'Box/a' id: 'r3') printNl.
"""

# the run of Box/a the fixture left waiting for an answer
ANSWER_R1 = """((node calls: 'Box/a' id: 'r1') collect: [:c | c status , ' ' , c asked]) printNl.
(node root: 'Box/a' op: #reply: input: 'Box/a#1' id: 'r2') result printNl.
(node when: 'Box/a' id: 'r1') printNl.
"""

QUIET = """node quiet.
(node pending: 'Box/a') printNl.
(node pending: 'Box/b') printNl.
"""

# The columns the stores of the module lacked before questions, status letters and detach.
BEFORE_QUESTIONS = {"kernel_runs": ["question"], "kernel_calls": ["status", "question", "asked", "detached"],
                    "kernel_timers": ["detached"], "kernel_outbox": ["pos"]}


def restore(tmp_path: Path, drop: dict | None = None) -> Path:
    """The fixture's stores under tmp_path/data; with drop (table -> columns), as the module before
    questions made them: without those columns, and without the run asking a question and its call."""
    data = tmp_path / "data"
    for dump in FIXTURE.rglob("*.sql"):
        db = data / dump.relative_to(FIXTURE).with_suffix(".sqlite")
        db.parent.mkdir(parents=True, exist_ok=True)
        c = sqlite3.connect(db)
        c.executescript(dump.read_text())
        if drop and db.parent.name == "Box":
            c.execute("DELETE FROM kernel_runs WHERE op IN ('order:', 'sell:')")
            c.execute("DELETE FROM kernel_calls")
            for table, cols in drop.items():
                for col in cols:
                    c.execute(f"ALTER TABLE {table} DROP COLUMN {col}")
        c.commit()
        c.close()
    return data


def columns(db: Path, table: str) -> list[str]:
    return [r[1] for r in sqlite3.connect(db).execute(f"PRAGMA table_info({table})")]


@pytest.mark.parametrize("drop", [None, BEFORE_QUESTIONS], ids=["main-0084488", "before-questions"])
def test_a_store_of_an_older_version_is_upgraded_in_place_and_goes_on(tmp_path, drop):
    data = restore(tmp_path, drop)
    a = data / "Box" / "a.sqlite"
    assert sqlite3.connect(a).execute("SELECT * FROM kernel_meta WHERE key = 'schema'").fetchall() == []
    rc, out, err = run((GO_ON + ("" if drop else ANSWER_R1) + QUIET).replace("'data'", f"'{data}'"), tmp_path)
    assert (rc, err) == (0, ""), err
    assert out.splitlines() == [
        "'put fig'",   # the run recorded by the old version: not run again
        "RunView(status: 'completed', outcome: 'completed', result: 'sold 4')",
        *([] if drop else [
            "#('input-required how many?')",   # the old version's call, waiting for an answer
            "'replied'",
            "RunView(status: 'completed', outcome: 'completed', result: 'sold 3')"]),
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]
    for db in (a, data / "Box" / "b.sqlite"):
        assert sqlite3.connect(db).execute("SELECT value FROM kernel_meta WHERE key = 'schema'").fetchall() == [(2,)]
        assert columns(db, "kernel_calls")[-4:] == ["status", "question", "asked", "detached"]
        assert "pos" in columns(db, "kernel_outbox")
    assert sqlite3.connect(data / "Box" / "b.sqlite").execute("SELECT x FROM items").fetchall() == [("fig",)]


NEWER = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run = Step none complete: run ref with: 'put'.
node := ((ReliableServers dir: 'data') serve: Box new) start.
node root: 'Box/b' op: #put: input: 'fig' id: 'r9'.
"""


def test_a_store_of_a_newer_version_is_left_alone_with_a_clear_error(tmp_path):
    data = restore(tmp_path)
    b = sqlite3.connect(data / "Box" / "b.sqlite")
    b.execute("INSERT INTO kernel_meta (key, value) VALUES ('schema', 99)")
    b.commit()
    rc, out, err = run(NEWER.replace("'data'", f"'{data}'"), tmp_path)
    assert rc == 1
    assert ("the store of Box/b holds the reliable kernel's tables of version 99, newer than this module's 2"
            in err), err
    assert "Traceback" not in err
    assert b.execute("SELECT count(*) FROM kernel_runs WHERE id = 'r9'").fetchone() == (0,)


def test_an_upgrade_that_fails_leaves_the_old_store_as_it_was(tmp_path):
    data = restore(tmp_path, BEFORE_QUESTIONS)
    b = sqlite3.connect(data / "Box" / "b.sqlite")
    # the last statement of the upgrade (writing the version) fails: nothing of it may stay
    b.execute("CREATE TRIGGER no_version BEFORE INSERT ON kernel_meta WHEN NEW.key = 'schema' "
              "BEGIN SELECT RAISE(ABORT, 'no version'); END")
    b.commit()
    rc, out, err = run(NEWER.replace("'data'", f"'{data}'"), tmp_path)
    assert rc == 1 and "no version" in err and "Traceback" not in err, err
    assert "status" not in columns(data / "Box" / "b.sqlite", "kernel_calls")
    assert "pos" not in columns(data / "Box" / "b.sqlite", "kernel_outbox")
    assert b.execute("SELECT count(*) FROM kernel_meta WHERE key = 'schema'").fetchone() == (0,)
