"""One alarm per durable grain (docs/durable.md, "Alarms"): set, replace, get, clear; delivery
that activates the grain and calls `alarm`; a new alarm set inside `alarm`; retries after a
raising handler; alarms that outlive a killed process; many grains' alarms in time order."""
from __future__ import annotations

import os
import signal

from tests.durable.helpers import run, start

ROOM = """
Import module: #Durable.
Object subclass: #Room fields: (fired).
Room >> log: text = (
    Grain storage execute: 'CREATE TABLE IF NOT EXISTS log (at INTEGER, text TEXT)'.
    Grain storage execute: 'INSERT INTO log VALUES (?, ?)' with: { Actor unixMillis. text }.
    nil).
Room >> logged = (Grain storage execute: 'CREATE TABLE IF NOT EXISTS log (at INTEGER, text TEXT)'.
    (Grain storage query: 'SELECT text FROM log ORDER BY rowid') rows collect: [:r | (r at: 'text') displayString]).
Room >> wakeIn: ms = (Grain alarm setAt: Actor unixMillis + ms. nil).
Room >> at: t = (Grain alarm setAt: t. nil).
Room >> next = Grain alarm get.
Room >> clear = (Grain alarm clear. nil).
rooms := Grain for: Room initial: (Room fields: { fired: 0 }) dir: '%s'
    options: (GrainOptions default with: { idle: 50 }).
"""


def test_set_replace_get_and_clear(tmp_path):
    rc, out, err = run(ROOM % (tmp_path / "d") + """
Room >> alarm = self with: { fired: self fired + 1 }.
r := rooms id: 'r'.
r next printNl.
r at: 4000000000000.
r next printNl.
r at: 4000000000001.
r next printNl.
r clear.
r next printNl.
r clear.
r next printNl.
(Error try: [r at: -1. 'set'] onError: [:e | e message]) displayNl.
r fired printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["Maybe none", "Maybe some: 4000000000000", "Maybe some: 4000000000001",
                                "Maybe none", "Maybe none",
                                "an alarm time is a Unix time in milliseconds, not -1", "0"]


def test_an_alarm_activates_its_grain_and_may_set_the_next(tmp_path):
    rc, out, err = run(ROOM % (tmp_path / "d") + """
Room >> alarm = (
    self log: 'alarm ' , (self fired + 1) printString.
    self fired < 2 ifTrue: [Grain alarm setAt: 0].
    self with: { fired: self fired + 1 }).
r := rooms id: 'r'.
r wakeIn: 100.
Actor sleep: 20.
r fired printNl.
Actor sleep: 1500.
r fired printNl.
r next printNl.
r logged printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["0", "3", "Maybe none", "#('alarm 1' 'alarm 2' 'alarm 3')"]


def test_a_raising_alarm_is_retried_with_backoff(tmp_path):
    rc, out, err = run(ROOM % (tmp_path / "d") + """
Room >> alarm = (
    self log: 'try'.
    self logged size < 3 ifTrue: [Error signal: 'not yet'].
    self with: { fired: self fired + 1 }).
r := rooms id: 'r'.
r at: 0.
Actor sleep: 2000.
r fired printNl.
r logged size printNl.
r next printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["1", "3", "Maybe none"]


def test_an_alarm_outlives_a_killed_process(tmp_path):
    data = tmp_path / "d"
    p = start(ROOM % data + """
Room >> alarm = self with: { fired: self fired + 1 }.
(rooms id: 'r') wakeIn: 1500.
Log info: 'set'.
Actor sleep: 60000.
""", tmp_path, name="first.lp")
    try:
        assert p.stderr.readline().decode() == "info: set\n"
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
    rc, out, err = run(ROOM % data + """
Room >> alarm = self with: { fired: self fired + 1 }.
Actor sleep: 3000.
(rooms id: 'r') fired printNl.
""", tmp_path, name="second.lp")
    assert (rc, err) == (0, "")
    assert out == "1\n"


def test_many_grains_alarms_fire_in_time_order(tmp_path):
    rc, out, err = run(ROOM % (tmp_path / "d") + """
Room >> alarm = (Transcript showCr: Grain key. self with: { fired: 1 }).
t0 := Actor unixMillis + 5000.
order := (1 to: 100) asArray collect: [:i | (i * 37) \\\\ 100 + 1].
order do: [:i | (rooms id: i printString) at: t0 + (i * 10)].
Actor sleep: t0 - Actor unixMillis + 2500.
((1 to: 100) inject: 0 into: [:a :i | a + (rooms id: i printString) fired]) printNl.
""", tmp_path, timeout=180)
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == "100"
    assert lines[:-1] == [f"Room/{i}" for i in range(1, 101)]


def test_an_alarm_being_delivered_when_the_process_is_killed_is_delivered_again(tmp_path):
    data = tmp_path / "d"
    handler = """
Room >> alarm = (
    self log: 'start'.
    Log info: 'in alarm'.
    Actor sleep: 1000.
    self with: { fired: self fired + 1 }).
"""
    p = start(ROOM % data + handler + """
(rooms id: 'r') at: 0.
Actor sleep: 60000.
""", tmp_path, name="first.lp")
    try:
        assert p.stderr.readline().decode() == "info: in alarm\n"
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
    rc, out, err = run(ROOM % data + handler + """
Actor sleep: 2500.
(rooms id: 'r') fired printNl.
(rooms id: 'r') logged printNl.
(rooms id: 'r') next printNl.
""", tmp_path, name="second.lp")
    assert (rc, err) == (0, "info: in alarm\n")
    assert out.splitlines() == ["1", "#('start' 'start')", "Maybe none"]
