"""One alarm per durable grain (docs/durable.md, "Alarms"): set, replace, get, clear; delivery
that activates the grain and calls `alarm`; a new alarm set inside `alarm`; retries after a
raising handler; alarms that outlive a killed process; many grains' alarms in time order."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile

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
"Wait until no alarm is left in the alarms file."
Room class >> settle: alarms = ((alarms query: 'SELECT count(*) AS n FROM alarms') rows first at: 'n') = 0
    ifTrue: [nil] ifFalse: [Actor sleep: 100. Room settle: alarms].
rooms := Grain for: Room initial: (Room fields: { fired: 0 }) dir: '%s'
    options: (GrainOptions default with: { idle: 50 }).
"""


@contextlib.contextmanager
def memory_dir(tmp_path):
    """A data directory in memory (/dev/shm) where there is one, so that a test of many grains
    measures the alarms and not the disk's fsyncs; else under tmp_path."""
    d = tempfile.mkdtemp(dir="/dev/shm") if os.path.isdir("/dev/shm") else str(tmp_path / "d")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


ONE_AT_A_TIME = ROOM.replace("idle: 50", "idle: 50. alarmsAtOnce: 1")


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


def test_many_grains_alarms_fire_in_time_order_one_at_a_time(tmp_path):
    rc, out, err = run(ONE_AT_A_TIME % (tmp_path / "d") + ("""
Room >> alarm = (Transcript showCr: Grain key. self with: { fired: 1 }).
t0 := Actor unixMillis + 5000.
order := (1 to: 100) asArray collect: [:i | (i * 37) \\\\ 100 + 1].
order do: [:i | (rooms id: i printString) at: t0 + (i * 10)].
Room settle: (Storage at: '%s/alarms.sqlite').
((1 to: 100) inject: 0 into: [:a :i | a + (rooms id: i printString) fired]) printNl.
""" % (tmp_path / "d")), tmp_path, timeout=180)
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


def test_a_slow_alarm_delays_no_other_grains(tmp_path):
    """slow's alarm waits (up to 20 s) for quick's, due after it, to have run: only deliveries
    in parallel let it see that."""
    rc, out, err = run(ROOM % (tmp_path / "d") + f"""
Room >> flag = Storage at: '{tmp_path / "flag.sqlite"}'.
(Room fields: {{ fired: 0 }}) flag execute: 'CREATE TABLE seen (who TEXT)'.
Room >> alarm = (
    Grain key = 'Room/quick' ifTrue: [self flag execute: 'INSERT INTO seen VALUES (?)' with: {{ Grain key }}].
    Grain key = 'Room/slow' ifTrue: [self log: (self waitFor: 2000)].
    self with: {{ fired: 1 }}).
Room >> waitFor: tries = (
    (self flag query: 'SELECT who FROM seen') rows isEmpty
        ifTrue: [tries = 0 ifTrue: ['gave up'] ifFalse: [Actor sleep: 10. self waitFor: tries - 1]]
        ifFalse: ['saw quick']).
t := Actor unixMillis + 300.
(rooms id: 'slow') at: t.
(rooms id: 'quick') at: t + 10.
Actor sleep: 1000.
(rooms id: 'slow') logged printNl.
(rooms id: 'quick') fired printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["#('saw quick')", "1"]


def test_one_grains_alarms_never_overlap(tmp_path):
    """Each delivery sets the next alarm while it runs, and the second raises: six deliveries
    (one a retry), each ending before the next starts."""
    rc, out, err = run(ROOM % (tmp_path / "d") + """
Room >> alarm = (
    self log: 'start'.
    Actor sleep: 100.
    self log: 'end'.
    self fired < 4 ifTrue: [Grain alarm setAt: 0].
    (self fired = 1 and: [self logged size = 4]) ifTrue: [Error signal: 'once'].
    self with: { fired: self fired + 1 }).
(rooms id: 'r') at: 0.
Room settle: (Storage at: '%s/alarms.sqlite').
(rooms id: 'r') logged printNl.
(rooms id: 'r') fired printNl.
""" % (tmp_path / "d"), tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["#(" + " ".join(["'start' 'end'"] * 6) + ")", "5"]


def test_ten_thousand_grains_alarms_each_fire_once_never_early(tmp_path):
    """10,000 grains set their alarms (20 callers), due over 10 s in another order than the ids
    (the grains stay active: a minute's idle timeout); every alarm method runs once, at or after
    its time."""
    with memory_dir(tmp_path) as data:
        rc, out, err = run(ROOM.replace("idle: 50", "idle: 60000") % data + f"""
Room >> alarm = (Transcript showCr: Grain key , ' ' , Actor unixMillis printString. nil).
n := 10000.
t0 := Actor unixMillis + 1000.
Transcript showCr: 't0 ' , t0 printString.
main := Actor self.
1 to: 20 do: [:k | Actor spawn: [:me |
    k to: n by: 20 do: [:i | (rooms id: i printString) at: t0 + (i * 7 \\\\ n)].
    main ! k]].
1 to: 20 do: [:k | main receive: {{ Integer -> [:x | x] }}].
Room settle: (Storage at: '{data}/alarms.sqlite').
""", tmp_path, timeout=300)
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    t0 = int(lines[0].split()[1])
    fired = {}
    for line in lines[1:]:
        key, at = line.split()
        assert key not in fired, key
        fired[key] = int(at)
    assert len(fired) == 10000
    for i in range(1, 10001):
        assert fired[f"Room/{i}"] >= t0 + i * 7 % 10000, i
