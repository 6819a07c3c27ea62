"""Private SQLite stores (docs/durable.md, "Storage"): execute, query, transaction, their results,
and every limit and error class, against real files."""
from __future__ import annotations

import sqlite3

from tests.durable.helpers import PRELUDE, lines, run


def test_execute_query_and_transaction(tmp_path):
    db = tmp_path / "s.sqlite"
    rc, out, err = run(PRELUDE + f"""
s := Storage at: '{db}'.
s printNl.
(s = (Storage at: '{db}')) printNl.
(s = (s limit: 10)) printNl.
(s execute: 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, x REAL)') rowsWritten printNl.
r := s execute: 'INSERT INTO t (name, data, x) VALUES (?, ?, ?), (?, ?, ?)' with: {{ 'a'. 'ab' asByteArray. 1.5. nil. nil. nil }}.
r rowsWritten printNl.
r := s execute: 'SELECT id, name, data, x FROM t ORDER BY id'.
r columns printNl.
r rows printNl.
r rowsWritten printNl.
(s execute: 'UPDATE t SET name = ? WHERE name IS NULL' with: {{ 'b' }}) rowsWritten printNl.
q := s query: 'DELETE FROM t RETURNING id'.
q rows size printNl.
q rowsWritten printNl.
((s query: 'SELECT count(*) AS n FROM t') rows first at: 'n') printNl.
rs := s transaction: {{ 'INSERT INTO t (name) VALUES (?)' -> {{ 'c' }}. 'SELECT count(*) AS n FROM t' -> {{}} }}.
(rs collect: [:x | x rowsWritten]) printNl.
((rs at: 2) rows first at: 'n') printNl.
(s execute: 'CREATE INDEX t_name ON t (name)') rowsWritten printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        f"Storage({db})", "true", "false", "0", "2", "#('id' 'name' 'data' 'x')",
        "#(Dictionary('id' -> 1, 'name' -> 'a', 'data' -> #[97 98], 'x' -> 1.5) "
        "Dictionary('id' -> 2, 'name' -> nil, 'data' -> nil, 'x' -> nil))",
        "0", "1", "2", "0", "2", "#(1 0)", "3", "0"]
    con = sqlite3.connect(db)
    assert con.execute("SELECT name FROM t ORDER BY id").fetchall() == [("a",), ("b",), ("c",)]


def test_a_failed_transaction_changes_nothing(tmp_path):
    db = tmp_path / "s.sqlite"
    rc, out, err = run(PRELUDE + f"""
s := Storage at: '{db}'.
s execute: 'CREATE TABLE t (k TEXT PRIMARY KEY)'.
s execute: 'INSERT INTO t VALUES (?)' with: {{ 'a' }}.
T show: 'second fails' run: [s transaction: {{
    'CREATE TABLE u (x)' -> {{}}. 'INSERT INTO t VALUES (?)' -> {{ 'b' }}. 'INSERT INTO t VALUES (?)' -> {{ 'a' }} }}].
T show: 'rows' run: [(s query: 'SELECT k FROM t ORDER BY k') rows collect: [:r | r at: 'k']].
T show: 'ddl undone' run: [s query: 'SELECT * FROM u'].
T show: 'multi-row insert' run: [s execute: 'INSERT INTO t VALUES (?), (?)' with: {{ 'c'. 'a' }}].
T show: 'rows again' run: [(s query: 'SELECT k FROM t ORDER BY k') rows size].
""", tmp_path)
    assert (rc, err) == (0, "")
    got = lines(out)
    assert got["second fails"].startswith("ConstraintViolation storage transaction: (statement 3) UNIQUE constraint failed")
    assert got["rows"] == "#('a')"
    assert got["ddl undone"] == "InvalidSql storage query: no such table: u"
    assert got["multi-row insert"].startswith("ConstraintViolation")
    assert got["rows again"] == "1"


def test_every_limit_and_error_class(tmp_path):
    db = tmp_path / "s.sqlite"
    big = tmp_path / "big.sqlite"
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 200)
    rc, out, err = run(PRELUDE + f"""
s := Storage at: '{db}'.
s execute: 'CREATE TABLE t (k INTEGER PRIMARY KEY, v)'.
pad := [:n | '' join: (Array new: n withAll: ' ')].
T show: 'sql 100000' run: [(s execute: 'SELECT 1 AS one' , (pad value: 100000 - 15)) rows size].
T show: 'sql 100001' run: [s execute: 'SELECT 1 AS one' , (pad value: 100001 - 15)].
T show: 'sql empty' run: [s execute: ''].
T show: 'params 100' run: [(s execute: 'SELECT ?' , ((2 to: 100) inject: '' into: [:a :i | a , ', ?']) with: (Array new: 100 withAll: 1)) columns size].
T show: 'params 101' run: [s execute: 'SELECT ?' , ((2 to: 101) inject: '' into: [:a :i | a , ', ?']) with: (Array new: 101 withAll: 1)].
T show: 'params mismatch' run: [s execute: 'SELECT ?, ?' with: {{ 1 }}].
T show: 'int safe' run: [((s execute: 'SELECT ? AS v' with: {{ 9007199254740991 }}) rows first at: 'v') printString].
T show: 'int unsafe param' run: [s execute: 'SELECT ?' with: {{ 9007199254740992 }}].
T show: 'int min param' run: [s execute: 'SELECT ?' with: {{ -9223372036854775807 - 1 }}].
T show: 'int unsafe result' run: [s execute: 'SELECT 9007199254740992 AS v'].
T show: 'negative unsafe result' run: [s execute: 'SELECT -9007199254740992 AS v'].
T show: 'overflow' run: [s execute: 'SELECT abs(-9223372036854775807 - 1)'].
T show: 'float' run: [((s execute: 'SELECT ? * 2 AS v' with: {{ 0.25 }}) rows first at: 'v') printString].
T show: 'float unsafe' run: [s execute: 'SELECT 1e300 AS v'].
T show: 'string 1000000' run: [((s execute: 'SELECT length(?) AS n' with: {{ '' join: (Array new: 1000000 withAll: 'x') }}) rows first at: 'n') printString].
T show: 'string 1000001' run: [s execute: 'SELECT length(?)' with: {{ '' join: (Array new: 1000001 withAll: 'x') }}].
T show: 'result string 1000002' run: [s execute: 'SELECT hex(zeroblob(500001)) AS h'].
T show: 'result string 1000000' run: [((s execute: 'SELECT hex(zeroblob(500000)) AS h') rows first at: 'h') size].
T show: 'bytes 1000001' run: [s execute: 'SELECT length(?)' with: {{ ByteArray new: 1000001 }}].
T show: 'result bytes 1000001' run: [s execute: 'SELECT zeroblob(1000001)'].
T show: 'result limit' run: [(s resultLimit: 100) execute: 'SELECT hex(zeroblob(30)) AS a, hex(zeroblob(30)) AS b'].
T show: 'constraint' run: [s transaction: {{ 'INSERT INTO t VALUES (1, 1)' -> {{}}. 'INSERT INTO t VALUES (1, 2)' -> {{}} }}].
T show: 'not null' run: [s execute: 'CREATE TABLE n (x NOT NULL)'. s execute: 'INSERT INTO n VALUES (NULL)'].
T show: 'syntax' run: [s execute: 'SELEC 1'].
T show: 'two statements' run: [s execute: 'SELECT 1; SELECT 2'].
T show: 'trailing semicolon' run: [(s execute: 'SELECT 1 AS x; -- done') rows size].
T show: 'begin' run: [s execute: 'BEGIN'].
T show: 'savepoint' run: [s execute: 'SAVEPOINT a'].
T show: 'attach' run: [s execute: 'ATTACH DATABASE ? AS other' with: {{ '{tmp_path}/other.sqlite' }}].
T show: 'pragma set' run: [s execute: 'PRAGMA journal_mode = DELETE'].
T show: 'pragma read' run: [(s execute: 'PRAGMA table_info(t)') rows size].
T show: 'transaction 0' run: [s transaction: {{}}].
T show: 'transaction 100' run: [(s transaction: (Array new: 100 withAll: 'SELECT 1' -> {{}})) size].
T show: 'transaction 101' run: [s transaction: (Array new: 101 withAll: 'SELECT 1' -> {{}})].
T show: 'full' run: [(Storage at: '{big}') limit: 65536. ((Storage at: '{big}') limit: 65536) execute: 'CREATE TABLE b (x)'.
    1 to: 100 do: [:i | ((Storage at: '{big}') limit: 65536) execute: 'INSERT INTO b VALUES (zeroblob(4000))']].
T show: 'backend dir' run: [(Storage at: '{not_dir}/sub/s.sqlite') execute: 'SELECT 1'].
T show: 'backend garbage' run: [(Storage at: '{garbage}') execute: 'SELECT 1'].
T show: 'still fine' run: [(s query: 'SELECT count(*) AS n FROM t') rows first at: 'n'].
""", tmp_path, timeout=300)
    assert (rc, err) == (0, "")
    got = lines(out)
    assert got["sql 100000"] == "1"
    assert got["sql 100001"] == "InvalidSql storage execute: SQL text has 1 to 100,000 characters"
    assert got["sql empty"] == "InvalidSql storage execute: SQL text has 1 to 100,000 characters"
    assert got["params 100"] == "100"
    assert got["params 101"] == "InvalidSql storage execute:with: at most 100 parameters"
    assert got["params mismatch"] == "InvalidSql storage execute:with: the statement takes 2 parameters, not 1"
    assert got["int safe"] == "'9007199254740991'"
    assert got["int unsafe param"] == ("NumericOutOfRange storage execute:with: the integer 9007199254740992 is "
                                       "outside the safe range (at most 2^53 - 1 either way)")
    assert got["int min param"].startswith("NumericOutOfRange storage execute:with: the integer -9223372036854775808")
    assert got["int unsafe result"].startswith("NumericOutOfRange storage execute: the integer 9007199254740992")
    assert got["negative unsafe result"].startswith("NumericOutOfRange")
    assert got["overflow"] == "NumericOutOfRange storage execute: integer overflow"
    assert got["float"] == "'0.5'"
    assert got["float unsafe"].startswith("NumericOutOfRange storage execute: a number is not finite")
    assert got["string 1000000"] == "'1000000'"
    assert got["string 1000001"] == "InvalidSql storage execute:with: a string is longer than 1,000,000 characters"
    assert got["result string 1000002"] == "ResultTooLarge storage execute: a string is longer than 1,000,000 characters"
    assert got["result string 1000000"] == "1000000"
    assert got["bytes 1000001"] == "InvalidSql storage execute:with: a byte array is longer than 1,000,000 bytes"
    assert got["result bytes 1000001"] == "ResultTooLarge storage execute: a byte array is longer than 1,000,000 bytes"
    assert got["result limit"] == "ResultTooLarge storage execute: the results are larger than 100 bytes"
    assert got["constraint"].startswith("ConstraintViolation storage transaction: (statement 2) UNIQUE constraint")
    assert got["not null"].startswith("ConstraintViolation storage execute: NOT NULL constraint failed")
    assert got["syntax"] == 'InvalidSql storage execute: near "SELEC": syntax error'
    assert got["two statements"].startswith("InvalidSql storage execute: the SQL text holds more than one statement")
    assert got["trailing semicolon"] == "1"
    for k in ("begin", "savepoint", "attach", "pragma set"):
        assert got[k] == "InvalidSql storage execute" + (":with:" if k == "attach" else ":") + " not authorized", k
    assert got["pragma read"] == "2"
    assert got["transaction 0"] == "InvalidSql storage transaction: a transaction has 1 to 100 statements, not 0"
    assert got["transaction 100"] == "100"
    assert got["transaction 101"] == "InvalidSql storage transaction: a transaction has 1 to 100 statements, not 101"
    assert got["full"] == "StorageFull storage execute: database or disk is full"
    assert got["backend dir"].startswith("BackendUnavailable storage execute: cannot make the store's directory")
    assert got["backend garbage"] == "BackendUnavailable storage execute: cannot open the store: file is not a database"
    assert got["still fine"] == "0"


def test_busy_when_another_connection_holds_the_write_lock(tmp_path):
    db = tmp_path / "s.sqlite"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE t (x)")
    con.execute("BEGIN IMMEDIATE")
    try:
        rc, out, err = run(PRELUDE + f"""
s := (Storage at: '{db}') busyTimeout: 50.
T show: 'read' run: [(s query: 'SELECT count(*) AS n FROM t') rows first at: 'n'].
T show: 'write' run: [s execute: 'INSERT INTO t VALUES (1)'].
""", tmp_path)
    finally:
        con.execute("ROLLBACK")
    assert (rc, err) == (0, "")
    got = lines(out)
    assert got["read"] == "0"
    assert got["write"] == "StorageBusy storage execute: database is locked"


def test_the_checker_types_parameters_and_results(tmp_path):
    rc, out, err = run(f"""
s := Storage at: '{tmp_path}/s.sqlite'.
s execute: 'SELECT ?' with: {{ #sym }}.
(s execute: 'SELECT 1') rowsWritten , 'x'.
s transaction: {{ 'SELECT ?' -> {{ {{1}} }} }}.
""", tmp_path)
    assert rc == 1
    assert "prog.lp:3:31" in err and "This SQL parameter is `Symbol`" in err
    assert "a SQL parameter is nil, an Integer, a Float, a String or a ByteArray" in err
    assert "prog.lp:5:34" in err and "This SQL parameter is `Array[Integer]`" in err
    assert "`,`" in err


def test_the_file_outlives_the_process(tmp_path):
    prog = PRELUDE + f"""
s := Storage at: '{tmp_path}/d/s.sqlite'.
s execute: 'CREATE TABLE IF NOT EXISTS t (x)'.
s execute: 'INSERT INTO t VALUES (?)' with: {{ 1 }}.
((s query: 'SELECT count(*) AS n FROM t') rows first at: 'n') printNl.
"""
    assert run(prog, tmp_path)[:2] == (0, "1\n")
    assert run(prog, tmp_path)[:2] == (0, "2\n")
