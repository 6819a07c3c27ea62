"""The life of a reliable call beyond its main path (docs/reliable.md): cancel (of an open call, of
a call still sending, of a run never taken), stop, abandon with its late outcome, timers (fire
not early, block the end of their run, can be dropped, survive a restart), a root run cancelled
from outside, and the inquiry a restarted node makes after its open calls."""
from __future__ import annotations

import sqlite3

import pytest

from tests.durable.helpers import run

LIFE = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> hold: run = Step none.
Box >> put: run =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS items (x TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO items (x) VALUES (?)' with: { run input })
        complete: run ref with: 'put ' , run input.
Box >> clock: run = Step none complete: run ref with: Actor unixMillis printString.
Box >> ask: run = Step none call: 'Box/b' op: #hold: input: run input then: #done: for: run ref.
Box >> give: run = Step none call: 'Box/b' op: #put: input: run input then: #done: for: run ref.
Box >> later: run = Step none after: run input asInteger call: 'Box/b' op: #clock: input: '' then: #done: for: run ref.
Box >> hasty: run = (Step none after: 1000 call: 'Box/b' op: #put: input: 'x' then: #done: for: run ref) complete: run ref with: 'too soon'.
Box >> negative: run = Step none after: -1 call: 'Box/b' op: #put: input: 'x' then: #done: for: run ref.
Box >> bogus: run = Step none cancel: 'Box/a#999' reason: 'none'.
Box >> done: call =
    ((Step none
        sql: 'CREATE TABLE IF NOT EXISTS heard (call TEXT NOT NULL, outcome TEXT NOT NULL, late TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO heard (call, outcome, late) VALUES (?, ?, ?)' with: { call by id. call outcome. call late printString })
        settle: call by outcome: call outcome result: call result.
Box >> cancel: run reason: reason = (
    run op = 'fragile:' ifTrue: [
        Grain storage execute: 'CREATE TABLE IF NOT EXISTS fragile (x INTEGER)'.
        Grain storage execute: 'INSERT INTO fragile (x) VALUES (1)'.
        Error signal: 'cannot stop'
    ].
    ((super cancel: run reason: reason) sql: 'CREATE TABLE IF NOT EXISTS cancels (run TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO cancels (run) VALUES (?)' with: { run id }
).
Box >> fragile: run = Step none.
Box >> finish: run = (Step none settle: (RunRef fields: { from: 'Box/b'. id: run input }) outcome: 'failed' result: 'gone') complete: run ref with: 'finished'.
Box >> states: run = Step none complete: run ref with: ((self callsOf: (RunRef fields: { from: 'Box/a'. id: run input })) collect: [:c | c state]) printString.
Box >> cancelAll: run =
    ((self callsOf: (RunRef fields: { from: 'Box/a'. id: run input })) inject: Step none into: [:s :c |
        s cancel: c id reason: 'enough'
    ]) complete: run ref with: 'cancelled'.
Box >> abandonAll: run =
    (((self callsOf: (RunRef fields: { from: 'Box/a'. id: run input })) inject: Step none into: [:s :c |
        s abandon: c id
    ]) settle: (RunRef fields: { from: 'Box/a'. id: run input }) outcome: 'failed' result: 'gave up')
        complete: run ref with: 'abandoned'.
Box >> dropTimers: run = (
    r := RunRef fields: { from: 'Box/a'. id: run input }.
    (((self callsOf: r) inject: Step none into: [:s :c | s cancel: c id reason: 'no need']) settle: r outcome: 'canceled' result: 'no timer')
        complete: run ref with: 'dropped'
).
Box >> stopIt: run = (Step none stop: (RunRef fields: { from: 'Box/a'. id: run input })) complete: run ref with: 'stopped'.
Box >> asked: run = Step none complete: run ref with: (self cancelAsked: (RunRef fields: { from: 'Box/a'. id: run input })) printString.
Box >> count = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS items (x TEXT NOT NULL)'.
    ((Grain storage query: 'SELECT count(*) AS n FROM items') rows first at: 'n') + 0
).
Box >> rows: sql = (Grain storage query: sql) rows collect: [:r | r values collect: [:v | v displayString]].
Object subclass: #T.
T class >> show: label value: v = (label , ': ' , v printString) displayNl.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
"a cancel of a call the callee never took"
cancel := Letter fields: { seq: 0. kind: 'cancel'. from: 'Box/caller'. to: 'Box/b'. id: 'k1'. op: ''. input: 'not wanted'. outcome: ''. result: ''. lane: '' }.
T show: 'unseen' value: (node deliver: cancel) outcome.
T show: 'then the call' value: (node deliver: (cancel with: { kind: 'call'. op: 'put:'. input: 'plum' })) outcome.
"an open call cancelled by its caller"
node root: 'Box/a' op: #ask: input: 'x' id: 'r1'.
node quiet.
node root: 'Box/a' op: #cancelAll: input: 'r1' id: 'c1'.
T show: 'open' value: (node when: 'Box/a' id: 'r1').
"a call still sending, cancelled: its letter becomes the cancel (the pump is not told of r2)"
node call: #kernelRoot:input:id: args: { 'give:'. 'fig'. 'r2' } at: 'Box/a'.
node call: #kernelRoot:input:id: args: { 'cancelAll:'. 'r2'. 'c2' } at: 'Box/a'.
T show: 'letters' value: ((node call: #kernelLetters args: #() at: 'Box/a') collect: [:l | l kind]).
node root: 'Box/a' op: #states: input: 'r2' id: 's2'.
T show: 'sending' value: (node when: 'Box/a' id: 'r2').
"stop"
node root: 'Box/a' op: #ask: input: 'y' id: 'r3'.
node quiet.
node root: 'Box/a' op: #stopIt: input: 'r3' id: 'c3'.
node root: 'Box/a' op: #asked: input: 'r3' id: 'q3'.
T show: 'asked' value: (node when: 'Box/a' id: 'q3') result.
T show: 'stopped' value: (node when: 'Box/a' id: 'r3').
"abandon"
node root: 'Box/a' op: #ask: input: 'z' id: 'r4'.
node quiet.
node root: 'Box/a' op: #abandonAll: input: 'r4' id: 'c4'.
T show: 'abandoned' value: (node when: 'Box/a' id: 'r4').
"timers"
t0 := Actor unixMillis.
node root: 'Box/a' op: #later: input: '300' id: 'r5'.
T show: 'timers' value: ((node pending: 'Box/a') at: 'timers').
node root: 'Box/a' op: #states: input: 'r5' id: 's5'.
T show: 'scheduled' value: (node when: 'Box/a' id: 's5') result.
T show: 'not early' value: (node when: 'Box/a' id: 'r5') result asInteger - t0 >= 300.
node root: 'Box/a' op: #later: input: '600000' id: 'r6'.
node root: 'Box/a' op: #dropTimers: input: 'r6' id: 'c6'.
T show: 'timer cancelled' value: (node when: 'Box/a' id: 'r6').
node root: 'Box/a' op: #later: input: '200' id: 'r10'.
node quiet.
T show: 'quiet' value: (node pending: 'Box/a').
T show: 'hasty' value: (node root: 'Box/a' op: #hasty: input: '' id: 'r7') result.
T show: 'negative' value: (node root: 'Box/a' op: #negative: input: '' id: 'r8') result.
T show: 'bogus' value: (node root: 'Box/a' op: #bogus: input: '' id: 'r9') result.
"a root run cancelled from outside"
node root: 'Box/b' op: #hold: input: '' id: 'h1'.
T show: 'root' value: (node cancel: 'Box/b' id: 'h1' reason: 'by hand').
node root: 'Box/b' op: #fragile: input: '' id: 'f1'.
T show: 'fragile' value: (node cancel: 'Box/b' id: 'f1' reason: 'x').
T show: 'fragile again' value: (node cancel: 'Box/b' id: 'f1' reason: 'x').
T show: 'fragile tries' value: (node call: #rows: args: { 'SELECT count(*) FROM fragile' } at: 'Box/b').
T show: 'fragile asked' value: (node call: #rows: args: { 'SELECT cancel_asked FROM kernel_runs WHERE id = ''f1''' } at: 'Box/b').
node root: 'Box/b' op: #finish: input: 'f1' id: 'f2'.
node quiet.
T show: 'heard' value: (node call: #rows: args: { 'SELECT call, outcome, late FROM heard ORDER BY rowid' } at: 'Box/a').
T show: 'cancels' value: (node call: #rows: args: { 'SELECT run FROM cancels ORDER BY rowid' } at: 'Box/b').
T show: 'cancels of a' value: (node call: #rows: args: { 'SELECT name FROM sqlite_master WHERE name = ''cancels''' } at: 'Box/a').
T show: 'items' value: (node call: #count args: #() at: 'Box/b').
T show: 'a' value: (node pending: 'Box/a').
T show: 'b' value: (node pending: 'Box/b').
node cancel: 'Box/b' id: 'nothing' reason: ''.
"""


@pytest.fixture(scope="module")
def life(tmp_path_factory):
    d = tmp_path_factory.mktemp("life")
    rc, out, err = run(LIFE.replace("{dir}", str(d / "data")), d)
    assert rc == 1, err
    assert "Error: no root run 'nothing' of Box/b to cancel" in err and "Traceback" not in err
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    return d / "data", lines


def test_a_cancel_for_a_run_never_taken_records_it_cancelled_and_the_call_then_runs_nothing(life):
    data, out = life
    assert out["unseen"] == out["then the call"] == "'canceled'"
    assert out["items"] == "0"


def test_an_open_call_cancelled_by_its_caller_ends_as_its_callee_decides(life):
    data, out = life
    assert out["open"] == "RunView(status: 'canceled', outcome: 'canceled', result: 'enough')"
    assert "#('Box/a#1')" in out["cancels"]   # the callee's cancel:reason: ran


def test_a_call_still_sending_has_its_letter_replaced_by_the_cancel(life):
    data, out = life
    assert out["letters"] == "#('cancel')"
    assert out["sending"] == "RunView(status: 'canceled', outcome: 'canceled', result: 'enough')"
    assert "Box/a#2" not in out["cancels"]    # the callee never took the call: no handler ran


def test_stop_cancels_the_calls_of_a_run_without_its_own_cancel_handler(life):
    data, out = life
    assert out["asked"] == "'true'"
    assert out["stopped"] == "RunView(status: 'canceled', outcome: 'canceled', result: 'run Box/a r3 was cancelled')"
    assert "#('Box/a#3')" in out["cancels"] and out["cancels of a"] == "#()"


def test_an_abandoned_call_ends_at_once_and_its_late_outcome_reaches_the_handler_once(life):
    data, out = life
    assert out["abandoned"] == "RunView(status: 'failed', outcome: 'failed', result: 'gave up')"
    assert "#('r4' 'canceled' 'true')" in out["heard"]
    assert out["heard"].count("'r4'") == 1
    row = sqlite3.connect(data / "Box" / "a.sqlite").execute(
        "SELECT state, result, late_outcome FROM kernel_calls WHERE by_id = 'r4'").fetchone()
    assert row == ("failed", "abandoned", "canceled")


def test_a_timer_waits_its_delay_then_is_a_call(life):
    data, out = life
    assert out["timers"] == "1"
    assert out["scheduled"] == "'#(''scheduled'')'"
    assert out["not early"] == "true"
    assert "#('r5' 'completed' 'false')" in out["heard"]


def test_quiet_waits_for_the_timers(life):
    assert life[1]["quiet"] == "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"


def test_a_timer_holds_its_run_open_unless_dropped(life):
    data, out = life
    assert out["hasty"] == "'handler_error: run Box/a r7 cannot end while 1 of its calls are going'"
    assert out["timer cancelled"] == "RunView(status: 'canceled', outcome: 'canceled', result: 'no timer')"
    assert out["negative"] == "'handler_error: a timer''s delay is 0 ms or more, not -1'"


def test_only_a_call_of_the_grain_can_be_cancelled(life):
    assert life[1]["bogus"] == "'handler_error: no call ''Box/a#999'' of Box/a to cancel'"


def test_a_root_run_cancelled_from_outside_runs_its_cancel_handler(life):
    data, out = life
    assert out["root"] == "RunView(status: 'canceled', outcome: 'canceled', result: 'by hand')"
    assert "#('h1')" in out["cancels"]


def test_a_cancel_handler_that_raises_leaves_the_cancel_recorded_and_is_not_called_again(life):
    data, out = life
    assert out["fragile"] == out["fragile again"] == "RunView(status: 'working', outcome: '', result: '')"
    assert out["fragile tries"] == "#(#('1'))"
    assert out["fragile asked"] == "#(#('1'))"


def test_everything_ends_and_no_letter_is_left(life):

    data, out = life
    assert out["a"] == out["b"] == "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"


BEFORE = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> hold: run = Step none.
Box >> put: run = Step none complete: run ref with: 'put ' , run input.
Box >> ask: run = Step none call: 'Box/' , run input op: #hold: input: '' then: #done: for: run ref.
Box >> give: run = Step none call: 'Box/' , run input op: #put: input: 'pear' then: #done: for: run ref.
Box >> later: run = Step none after: 3000 call: 'Box/c' op: #put: input: 'fig' then: #done: for: run ref.
Box >> done: call = Step none settle: call by outcome: call outcome result: call result.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
node root: 'Box/a' op: #ask: input: 'b' id: 'r1'.
node root: 'Box/a' op: #give: input: 'c' id: 'r2'.
(node when: 'Box/a' id: 'r2') printNl.
node quiet.
node root: 'Box/a' op: #later: input: '' id: 'r3'.
(node pending: 'Box/a') printNl.
"""

AFTER = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> put: run = Step none complete: run ref with: 'put ' , run input.
Box >> done: call = Step none settle: call by outcome: call outcome result: call result.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
(node when: 'Box/a' id: 'r1') printNl.
(node when: 'Box/a' id: 'r2') printNl.
(node when: 'Box/a' id: 'r3') printNl.
node quiet.
(node pending: 'Box/a') printNl.
"""


def test_a_restarted_node_inquires_after_open_calls_and_fires_timers_left(tmp_path):
    data = tmp_path / "data"
    rc, out, err = run(BEFORE.replace("{dir}", str(data)), tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines()[1] == "Dictionary('runs' -> 2, 'calls' -> 1, 'timers' -> 1, 'letters' -> 0)"
    # Box/b's store is lost (restored from a copy older than its run); Box/a's is older than the
    # end of its call to Box/c (the result letter, acknowledged, is gone from Box/c's outbox)
    for f in (data / "Box").glob("b.sqlite*"):
        f.unlink()
    a = sqlite3.connect(data / "Box" / "a.sqlite")
    a.execute("UPDATE kernel_calls SET state = 'open', outcome = NULL, result = NULL WHERE to_addr = 'Box/c'")
    a.execute("UPDATE kernel_runs SET status = 'working', outcome = NULL, result = NULL WHERE id = 'r2'")
    a.commit()
    a.close()
    rc, out, err = run(AFTER.replace("{dir}", str(data)), tmp_path, name="after.lp")
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "RunView(status: 'failed', outcome: 'failed', result: 'lost: Box/b has no record of the call')",
        "RunView(status: 'completed', outcome: 'completed', result: 'put pear')",
        "RunView(status: 'completed', outcome: 'completed', result: 'put fig')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]
    # the timer's call took its id from the calls' counter, after the two calls
    assert sqlite3.connect(data / "Box" / "a.sqlite").execute(
        "SELECT id FROM kernel_calls WHERE to_addr = 'Box/c' AND input = 'fig'").fetchone() == ("Box/a#3",)


BUSY = """
Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> full: run = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS gate (x INTEGER)'.
    ((Grain storage query: 'SELECT count(*) AS n FROM gate') rows first at: 'n') = 0
        ifTrue: [Step busy]
        ifFalse: [Step none complete: run ref with: 'room for ' , run input]
).
Box >> open: run = (Step none sql: 'INSERT INTO gate (x) VALUES (1)' with: #()) complete: run ref with: 'open'.
Box >> ask: run = Step none call: 'Box/b' op: #full: input: run input then: #done: for: run ref.
Box >> done: call = Step none settle: call by outcome: call outcome result: call result.
node := ((ReliableServers dir: '{dir}') serve: Box new) start.
(node root: 'Box/b' op: #full: input: 'x' id: 'f1') code printNl.
(node run: 'Box/b' from: 'Box/b' id: 'f1') status printNl.
node root: 'Box/a' op: #ask: input: 'y' id: 'r1'.
Actor sleep: 300.
(node pending: 'Box/a') printNl.
(node pending: 'Box/b') printNl.
node root: 'Box/b' op: #open: input: '' id: 'o1'.
(node when: 'Box/a' id: 'r1') printNl.
(node root: 'Box/b' op: #full: input: 'x' id: 'f1') result printNl.
letter := Letter fields: { seq: 0. kind: 'gossip'. from: 'Box/a'. to: 'Box/b'. id: 'g1'. op: ''. input: ''. outcome: ''. result: ''. lane: '' }.
(node deliver: letter) code printNl.
node quiet.
(node pending: 'Box/a') printNl.
"""


def test_a_busy_handler_takes_nothing_and_its_call_comes_again(tmp_path):
    rc, out, err = run(BUSY.replace("{dir}", str(tmp_path / "data")), tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == [
        "'busy'",
        "''",                                                                    # no run recorded
        "Dictionary('runs' -> 1, 'calls' -> 1, 'timers' -> 0, 'letters' -> 1)",  # the call still owed
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",
        "RunView(status: 'completed', outcome: 'completed', result: 'room for y')",
        "'room for x'",
        "'unsupported'",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"]
