"""Reliable calls (docs/reliable.md): a run is taken once per (caller, id), a repeated delivery
answers the recorded run, a changed one is a conflict; a handler's SQL, calls and end commit
together or not at all; a run cannot end while its calls are going; the bank scenario ends with
its invariants, also when crashed after a commit and restarted (the full sweep of commit
boundaries and 1,000 seeds is bench/reliable/crash.py)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.durable.helpers import run
from tests.reliable.scenario import check, crash_at, program

BOX = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS items (x TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO items (x) VALUES (?)' with: {{ run input }})
        complete: run ref with: 'put ' , run input.
Box >> broken: run =
    (Step none sql: 'INSERT INTO nowhere (x) VALUES (?)' with: {{ run input }})
        call: 'Box/other' op: #put: input: 'never' then: #done: for: run ref.
Box >> early: run =
    (Step none call: 'Box/other' op: #put: input: 'x' then: #done: for: run ref) complete: run ref with: 'too soon'.
Box >> done: call = Step none complete: call by with: call result.
Box >> count = ((Grain storage query: 'SELECT count(*) AS n FROM items') rows first at: 'n') + 0.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
letter := Letter fields: {{ seq: 0. kind: 'call'. from: 'Box/caller'. to: 'Box/b'. id: 'c1'. op: 'put:'. input: 'apple'. outcome: ''. result: ''. lane: 'Box/b' }}.
(node deliver: letter) printNl.
(node deliver: letter) printNl.
(node deliver: (letter with: {{ input: 'pear' }})) code printNl.
(node call: #count args: #() at: 'Box/b') printNl.
(node root: 'Box/b' op: #put: input: 'fig' id: 'r1') outcome printNl.
(node root: 'Box/b' op: #put: input: 'fig' id: 'r1') outcome printNl.
(node call: #count args: #() at: 'Box/b') printNl.
(node root: 'Box/b' op: #broken: input: 'z' id: 'r2') result printNl.
(node root: 'Box/b' op: #early: input: 'z' id: 'r3') result printNl.
(node deliver: (letter with: {{ id: 'c9'. op: 'missing:' }})) result printNl.
node quiet.
(node pending: 'Box/b') printNl.
(node pending: 'Box/caller') printNl.
"""

# Box/a asks Box/b to put 'pear' (run r1); each scenario adds what happens before and after the
# root run starts, and prints r1's run and what is still pending.
ASKING = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run = Step none complete: run ref with: 'put ' , run input.
Box >> ask: run = Step none call: 'Box/b' op: #put: input: 'pear' then: #done: for: run ref.
Box >> done: call = Step none settle: call by outcome: call outcome result: call result.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
BEFORE
node root: 'Box/a' op: #ask: input: '' id: 'r1'.
AFTER
(node when: 'Box/a' id: 'r1') printNl.
node quiet.
(node pending: 'Box/a') printNl.
"""

# Box/b took the id Box/a's call will have (Box/a#1) for another call first.
CONFLICT = ASKING.replace("BEFORE", """letter := Letter fields: {{ seq: 0. kind: 'call'. from: 'Box/a'. to: 'Box/b'. id: 'Box/a#1'. op: 'put:'. input: 'apple'. outcome: ''. result: ''. lane: 'Box/b' }}.
(node deliver: letter) outcome printNl.""").replace("AFTER\n", "")

# A result letter for another call under the same id (the call the receiver took with it before):
# its op and input are not this call's, so the call goes on and gets its own result.
OTHER_RESULT = ASKING.replace("BEFORE\n", "").replace("AFTER", """other := Letter fields: {{ seq: 0. kind: 'result'. from: 'Box/b'. to: 'Box/a'. id: 'Box/a#1'. op: 'put:'. input: 'apple'. outcome: 'completed'. result: 'put apple'. lane: 'Box/a' }}.
(node deliver: other) outcome printNl.""")


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    d = tmp_path_factory.mktemp("box")
    rc, out, err = run(BOX.format(dir=d / "data"), d)
    assert (rc, err) == (0, ""), err
    return d / "data", out.splitlines()


def test_a_repeated_call_answers_the_recorded_run_and_runs_nothing_again(box):
    data, out = box
    assert out[0] == out[1] == ("Receipt(ok: true, code: '', status: 'completed', outcome: 'completed', "
                                "result: 'put apple', more: true)")
    assert out[3] == "1"   # one item: the handler ran once
    assert out[4:7] == ["'completed'", "'completed'", "2"]   # a root run started twice runs once


def test_the_same_id_with_another_input_is_a_conflict(box):
    assert box[1][2] == "'conflict'"


def test_a_result_of_another_call_with_the_same_id_is_not_taken(tmp_path):
    rc, out, err = run(OTHER_RESULT.format(dir=tmp_path / "data"), tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines()[1:] == [
        "RunView(status: 'completed', outcome: 'completed', result: 'put pear')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]


def test_a_call_whose_id_the_receiver_took_for_another_fails_at_its_caller(tmp_path):
    rc, out, err = run(CONFLICT.format(dir=tmp_path / "data"), tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "'completed'",
        "RunView(status: 'failed', outcome: 'failed', result: 'conflict: the id was taken by another call')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]


RETRY = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run = Step none complete: run ref with: 'put ' , run input.
Box >> ask: run = Step none call: 'Box/b' op: #put: input: 'pear' then: #done: for: run ref.
Box >> open: run =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS gate (x INTEGER)' with: #())
        sql: 'INSERT INTO gate (x) VALUES (1)' with: #()) complete: run ref with: 'open'.
Box >> done: call = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS gate (x INTEGER)'.
    ((Grain storage query: 'SELECT count(*) AS n FROM gate') rows first at: 'n') = 0 ifTrue: [
        Error signal: 'the gate is closed'
    ].
    Step none settle: call by outcome: call outcome result: call result
).
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
node root: 'Box/a' op: #ask: input: '' id: 'r1'.
Actor sleep: 300.
(node pending: 'Box/a') printNl.
(node pending: 'Box/b') printNl.
node root: 'Box/a' op: #open: input: '' id: 'r2'.
(node when: 'Box/a' id: 'r1') printNl.
node quiet.
(node pending: 'Box/b') printNl.
"""


def raised_handlers(err: str) -> int:
    """How many result handlers raised, by the warning the kernel writes for each; no other stderr."""
    lines = err.splitlines()
    assert all(line.startswith("warn: reliable: the result handler ") for line in lines), err
    return len(lines)


def test_a_result_whose_handler_raises_is_recorded_and_the_handler_runs_again_until_it_commits(tmp_path):
    rc, out, err = run(RETRY.format(dir=tmp_path / "data"), tmp_path)
    assert rc == 0 and raised_handlers(err) == 1
    assert out.splitlines() == [
        "Dictionary('runs' -> 1, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",   # the call ended, its run did not
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",   # the callee is done
        "RunView(status: 'completed', outcome: 'completed', result: 'put pear')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]


UNKNOWN = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
ReliableHandler subclass: #Bux.
Bux >> put: run = Step none.
Box >> ask: run = Step none call: 'Bux/b' op: #put: input: 'pear' then: #done: for: run ref.
Box >> done: call = Step none settle: call by outcome: call outcome result: call result.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
node root: 'Box/a' op: #ask: input: '' id: 'r1'.
(node when: 'Box/a' id: 'r1') printNl.
node quiet.
(node pending: 'Box/a') printNl.
node root: 'Bux/a' op: #put: input: '' id: 'r2'.
"""


def test_an_address_of_a_class_the_node_does_not_serve_fails_the_call_or_raises(tmp_path):
    rc, out, err = run(UNKNOWN.format(dir=tmp_path / "data"), tmp_path)
    assert rc == 1
    assert out.splitlines() == [
        "RunView(status: 'failed', outcome: 'failed', result: 'no_handler: no reliable grain Bux/b on this node')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]
    assert "Error: no reliable grain 'Bux/a' on this node: an address is Class/id, of a class it serves" in err
    assert "Traceback" not in err


def test_a_failed_transaction_leaves_only_the_failed_run(box):
    data, out = box
    assert out[7] == "'handler_error: storage transaction: (statement 2) no such table: nowhere'"
    db = sqlite3.connect(data / "Box" / "b.sqlite")
    assert db.execute("SELECT count(*) FROM kernel_calls").fetchone() == (0,)   # nor its call
    assert db.execute("SELECT status FROM kernel_runs WHERE id = 'r2'").fetchone() == ("failed",)


def test_a_run_cannot_end_while_its_calls_are_going(box):
    assert box[1][8] == "'handler_error: run Box/b r3 cannot end while 1 of its calls are going'"


def test_a_letter_with_an_unknown_op_fails_its_run(box):
    # a program cannot name one (test_typed_ops.py); a letter from elsewhere can
    assert box[1][9] == "'handler_error: a Box has no method #missing:'"


def test_the_result_of_a_call_is_delivered_once_and_the_outbox_empties(box):
    data, out = box
    assert out[10:] == ["Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"] * 2
    assert sqlite3.connect(data / "Box" / "b.sqlite").execute("SELECT count(*) FROM kernel_outbox").fetchone() == (0,)


def test_the_bank_scenario_keeps_its_invariants(tmp_path):
    prog = tmp_path / "bank.lp"
    prog.write_text(program(tmp_path / "data"))
    from tests.reliable.scenario import run as run_scenario
    rc, out, err = run_scenario(prog)
    assert (rc, out) == (0, "DONE\n") and raised_handlers(err) > 0   # each credit's handler raises once
    assert check(tmp_path / "data") == []
    ledger = sqlite3.connect(tmp_path / "data" / "Ledger" / "main.sqlite")
    assert dict(ledger.execute("SELECT id, outcome FROM kernel_runs WHERE root = 1")) == {
        "t1": "completed", "t2": "failed", "t3": "completed", "t4": "completed", "t5": "canceled", "t6": "canceled",
        "m1": "completed", "f1": "completed", "n1": "completed"}
    assert [r for r, in ledger.execute("SELECT outcome FROM kernel_runs WHERE root = 0")] == ["completed"] * 2   # timeouts
    assert ledger.execute("SELECT state, outcome, late_outcome FROM kernel_calls WHERE op = 'hold:' ORDER BY abandoned"
                          ).fetchall() == [("canceled", "canceled", None), ("failed", "failed", "canceled")]
    balances = {a: sqlite3.connect(tmp_path / "data" / "Account" / f"{a}.sqlite").execute(
        "SELECT amount FROM balance").fetchone()[0] for a in "abc"}
    assert balances == {"a": 70, "b": 70, "c": 10}
    assert ledger.execute("SELECT q, text FROM asks").fetchall() == [(1, "how much?"), (2, "sure?")]
    assert ledger.execute("SELECT op, outcome FROM kernel_calls WHERE detached = 1").fetchall() == [
        ("note:", "completed")]


# Five commit boundaries of the scenario (it has about 140), spread so that some fall among
# the nested calls, the questions, the timers and the cancels; each run on its own deterministic
# schedule.
@pytest.mark.parametrize("n", [1, 30, 65, 100, 135])
def test_crashed_after_a_commit_and_restarted_the_invariants_hold(tmp_path, n):
    crashed, broken = crash_at(tmp_path, n, seed=n, restart_seed=n + 100)
    assert crashed
    assert broken == []


def test_the_check_sees_a_broken_invariant(tmp_path):
    prog = tmp_path / "bank.lp"
    prog.write_text(program(tmp_path / "data"))
    from tests.reliable.scenario import run as run_scenario
    assert run_scenario(prog)[0] == 0
    db = sqlite3.connect(tmp_path / "data" / "Account" / "a.sqlite")
    db.execute("INSERT INTO effects SELECT * FROM effects LIMIT 1")
    db.execute("UPDATE balance SET amount = amount + 1")
    db.commit()
    ledger = sqlite3.connect(tmp_path / "data" / "Ledger" / "main.sqlite")
    ledger.execute("DELETE FROM asks WHERE q = 1")
    ledger.execute("INSERT INTO heard SELECT * FROM heard LIMIT 1")
    ledger.commit()
    broken = check(tmp_path / "data")
    assert any("money not conserved" in b for b in broken)
    assert any("applied 2 times" in b for b in broken)
    assert any("the ledger heard the questions [(2, 'sure?')]" in b for b in broken)
    assert any("its result handler committed 2 times" in b for b in broken)
