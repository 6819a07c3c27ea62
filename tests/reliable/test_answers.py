"""Answers and status letters (docs/reliable.md, "Questions and answers"): a run asks its caller a
question (input-required, numbered), the caller's asked: hears it with the call's status and
answers, the run's answered: goes on (here asking a second question); a root run is answered from
outside; an answer to a question no longer asked runs nothing."""
from __future__ import annotations

import sqlite3

from tests.durable.helpers import run

ASK = """Import module: #Reliable.
ReliableHandler subclass: #Clerk.
ReliableHandler subclass: #Shop.
ReliableHandler subclass: #Mute.
Mute >> sell: run = Step none ask: run ref question: 'how many?'.
Mute >> order: run = Step none call: 'Mute/b' op: #sell: input: '' then: #sold: for: run ref.
Mute >> sold: call = Step none settle: call by outcome: call outcome result: call result.
Clerk >> sell: run = Step none ask: run ref question: 'how many?'.
Clerk >> answered: run = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS answers (a TEXT NOT NULL)'.
    Grain storage execute: 'INSERT INTO answers (a) VALUES (?)' with: { run answer }.
    run answer = 'more'
        ifTrue: [Step none ask: run ref question: 'how many more?']
        ifFalse: [Step none complete: run ref with: 'sold ' , run answer]
).
Shop >> order: run =
    Step none call: 'Clerk/main' op: #sell: input: run input then: #sold: for: run ref.
Shop >> asked: call =
    ((Step none sql: 'CREATE TABLE IF NOT EXISTS heard (q INTEGER NOT NULL, text TEXT NOT NULL, status TEXT NOT NULL)' with: #())
        sql: 'INSERT INTO heard (q, text, status) VALUES (?, ?, ?)' with: { call question printString. call asked. call status })
        answer: call id with: (call question = 1 ifTrue: ['more'] ifFalse: ['3']).
Shop >> eager: run = Step none answer: 'Shop/web#1' with: 'x'.
Shop >> sold: call =
    Step none settle: call by outcome: call outcome result: call result.
node := ((((ReliableServers dir: '{dir}') serve: Shop new) serve: Clerk new) serve: Mute new) start.
node root: 'Mute/a' op: #order: input: '' id: 'm1'.
node root: 'Mute/b' op: #sell: input: '' id: 'm2'.
(node answer: 'Mute/b' id: 'm2' with: '1') printNl.
node root: 'Shop/web' op: #order: input: '' id: 'o1'.
(node when: 'Shop/web' id: 'o1') printNl.
(node root: 'Clerk/desk' op: #sell: input: '' id: 'walk-in') printNl.
(node answer: 'Clerk/desk' id: 'walk-in' with: '5') printNl.
(node when: 'Clerk/desk' id: 'walk-in') printNl.
(node deliver: (Letter fields: {{ seq: 0. kind: 'answer'. from: 'Clerk/desk'. to: 'Clerk/desk'. id: 'walk-in'. op: '1'. input: '7'. outcome: ''. result: ''. lane: '' }})) result printNl.
node quiet.
((node calls: 'Mute/a' id: 'm1') collect: [:c | c status , ' ' , c question printString , ' ' , c asked]) printNl.
(node pending: 'Shop/web') printNl.
(node pending: 'Clerk/main') printNl.
(node root: 'Shop/web' op: #eager: input: '' id: 'e1') result printNl.
node answer: 'Clerk/desk' id: 'walk-in' with: '9'.
"""


def test_a_question_reaches_the_caller_and_its_answer_the_run(tmp_path):
    rc, out, err = run(ASK.replace("{dir}", str(tmp_path / "data")).replace("{{", "{").replace("}}", "}"), tmp_path)
    assert rc == 1
    assert "Error: the root run 'walk-in' of Clerk/desk asks no question" in err and "Traceback" not in err
    assert out.splitlines() == [
        # a class without answered: fails the run it answers; one without asked: leaves the question waiting
        "RunView(status: 'failed', outcome: 'failed', result: 'handler_error: a Mute has no method #answered:')",
        "RunView(status: 'completed', outcome: 'completed', result: 'sold 3')",
        "Receipt(ok: true, code: '', status: 'input-required', outcome: '', result: 'how many?', more: false)",
        "RunView(status: 'completed', outcome: 'completed', result: 'sold 5')",
        "RunView(status: 'completed', outcome: 'completed', result: 'sold 5')",
        "'sold 5'",   # the repeated answer ran nothing
        "#('input-required 1 how many?')",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",
        "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)",
        "'handler_error: the call ''Shop/web#1'' of Shop/web asks no question to answer'"]
    shop = sqlite3.connect(tmp_path / "data" / "Shop" / "web.sqlite")
    assert shop.execute("SELECT q, text, status FROM heard ORDER BY q").fetchall() == [
        (1, "how many?", "input-required"), (2, "how many more?", "input-required")]
    assert shop.execute("SELECT state, question FROM kernel_calls").fetchall() == [("completed", 2)]
    clerk = sqlite3.connect(tmp_path / "data" / "Clerk" / "main.sqlite")
    assert clerk.execute("SELECT a FROM answers").fetchall() == [("more",), ("3",)]
    desk = sqlite3.connect(tmp_path / "data" / "Clerk" / "desk.sqlite")
    assert desk.execute("SELECT a FROM answers").fetchall() == [("5",)]
