"""Durable grains (docs/durable.md): where their files are, Grain storage / alarm / key only in a
durable grain's methods, and SQLite's work kept off the domain threads."""
from __future__ import annotations

import sqlite3

from tests.durable.helpers import PRELUDE, run

NOTE = """
Import module: #Durable.
Object subclass: #Note fields: (n).
Note >> write: text = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS t (text TEXT)'.
    Grain storage execute: 'INSERT INTO t VALUES (?)' with: { text }.
    self with: { n: self n + 1 }).
Note >> key = Grain key.
"""


def test_each_grain_has_its_own_file_under_the_data_directory(tmp_path):
    data = tmp_path / "data"
    long_id = "x" * 300
    rc, out, err = run(NOTE + f"""
notes := Grain for: Note initial: (Note fields: {{ n: 0 }}) dir: '{data}'.
(notes id: 'a') write: 'one'.
(notes id: 'a b/c') write: 'two'.
(notes id: '{long_id}') write: 'three'.
(notes id: 'a b/c') key printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "'Note/a b/c'\n"
    files = sorted(p.name for p in (data / "Note").glob("*.sqlite"))
    assert "a.sqlite" in files and "a%20b%2Fc.sqlite" in files and len(files) == 3
    assert all(len(f) < 200 for f in files)
    assert sqlite3.connect(data / "Note" / "a%20b%2Fc.sqlite").execute("SELECT text FROM t").fetchall() == [("two",)]
    assert sqlite3.connect(data / "Note" / "a.sqlite").execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert {p.name for p in data.glob("*.sqlite")} == {"grains.sqlite", "alarms.sqlite"}


def test_grain_storage_outside_a_durable_grain_raises(tmp_path):
    rc, out, err = run(PRELUDE + """
Import module: #Durable.
Object subclass: #Plain fields: (n).
Plain >> rows = (Grain storage query: 'SELECT 1') rows size.
plain := Grain for: Plain initial: (Plain fields: { n: 0 }) store: MemoryGrainStore start.
T show: 'main' run: [Grain storage].
T show: 'alarm' run: [Grain alarm get].
T show: 'grain without a directory' run: [(plain id: 'p') rows].
""", tmp_path)
    assert (rc, err) == (0, "")
    msg = ("Error no durable grain here: Grain storage and Grain alarm are for the methods of a grain whose "
           "server has a data directory (docs/durable.md)")
    assert out.splitlines() == [f"main: {msg}", f"alarm: {msg}", f"grain without a directory: {msg}"]


def test_constraints_triggers_and_a_failing_commit(tmp_path):
    rc, out, err = run(PRELUDE + f"""
s := Storage at: '{tmp_path}/s.sqlite'.
s execute: 'CREATE TABLE parent (id INTEGER PRIMARY KEY)'.
s execute: 'CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED, n INTEGER CHECK (n > 0))'.
s execute: 'CREATE TABLE audit (x)'.
s execute: 'CREATE TRIGGER a AFTER INSERT ON parent BEGIN INSERT INTO audit VALUES (new.id); END'.
T show: 'trigger' run: [(s execute: 'INSERT INTO parent VALUES (1)') rowsWritten].
T show: 'check' run: [s execute: 'INSERT INTO child VALUES (1, 0)'].
T show: 'deferred' run: [s transaction: {{ 'INSERT INTO child VALUES (2, 1)' -> {{}}. 'INSERT INTO audit VALUES (9)' -> {{}} }}].
T show: 'audit' run: [(s query: 'SELECT count(*) AS n FROM audit') rows first at: 'n'].
T show: 'user_version' run: [(s query: 'PRAGMA user_version') rows size].
T show: 'set user_version' run: [s execute: 'PRAGMA user_version = 3'].
""", tmp_path)
    assert (rc, err) == (0, "")
    got = dict(line.split(": ", 1) for line in out.splitlines())
    assert got["trigger"] == "2"
    assert got["check"].startswith("ConstraintViolation storage execute: CHECK constraint failed")
    assert got["deferred"] == "ConstraintViolation storage transaction: FOREIGN KEY constraint failed"
    assert got["audit"] == "1"
    assert got["user_version"] == "1"
    assert got["set user_version"] == "InvalidSql storage execute: not authorized"


def test_a_long_request_does_not_hold_the_domain(tmp_path):
    """One domain: while a request runs for a while on a job thread, another actor keeps running."""
    rc, out, err = run(f"""
Object subclass: #Tick fields: (reply).
Object subclass: #Ticker.
Ticker class >> loop: me n: n =
    me receive: {{ Tick -> [:t | t reply ! n. Ticker loop: me n: n] }} after: 1 do: [Ticker loop: me n: n + 1].
ticker := Actor spawn: [:me | Ticker loop: me n: 0].
s := Storage at: '{tmp_path}/s.sqlite'.
before := (ticker ask: (Tick fields: {{}})) await.
s query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT count(*) AS n FROM c'.
after := (ticker ask: (Tick fields: {{}})) await.
(after - before > 20) printNl.
""", tmp_path, domains=1)
    assert (rc, err) == (0, "")
    assert out == "true\n"
