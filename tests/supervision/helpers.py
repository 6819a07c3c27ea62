"""Shared LP code for the supervision tests: workers that crash when told to, and a
driver that crashes a child and waits until its supervisor has dealt with it.

Every test program prints only at points where the supervisors have settled
(the driver waits for the child's Down, then asks the supervisor, which handles
every death it knows of before answering), so the output is exact on any number
of domains. A test that needs time to pass (a restart period, a sleep that lets
another actor get somewhere) runs in deterministic mode under SEEDS instead,
where virtual time makes it exact.
"""
from __future__ import annotations

import textwrap

from tests.interp.helpers import run_source

PRELUDE = """
Import module: #Supervision.

Object subclass: #Crash.
Object subclass: #Work fields: (reply).
Object subclass: #Ping fields: (reply).
Object subclass: #Worker.
Object subclass: #T.

"A worker answers Ping with its name, ends normally on #quit and crashes on Crash."
Worker class >> start: name = Actor spawn: [:me | Worker serve: me name: name].

Worker class >> serve: me name: name =
    me receive: {
        Ping -> [:m | m reply ! name. Worker serve: me name: name].
        #quit -> [:m | nil].
        Crash -> [:m | Error raise: name , ' crashed'] }.

"A worker that crashes on its k-th Work message (answering #crashing first)."
Worker class >> start: name crashOn: k = Actor spawn: [:me | Worker work: me name: name n: 1 crashOn: k].

Worker class >> work: me name: name n: n crashOn: k =
    me receive: {
        Work -> [:m |
            n = k
                ifTrue: [m reply ! #crashing. Error raise: name , ' crashed']
                ifFalse: [m reply ! #ok. Worker work: me name: name n: n + 1 crashOn: k]].
        Ping -> [:m | m reply ! name. Worker work: me name: name n: n crashOn: k] }.

T class >> waitFor: a = Actor self receive: { Down -> [:d | d actor = a ifTrue: [nil] ifFalse: [T waitFor: a]] }.

T class >> reasonOf: a = (T reasonsOf: { a }) first.

"The exit reasons of these monitored actors, whatever order their Downs come in
(Downs of other actors are dropped)."
T class >> reasonsOf: actors = T reasonsOf: actors got: Dictionary new.

T class >> reasonsOf: actors got: got =
    (actors allSatisfy: [:a | got includesKey: a id])
        ifTrue: [actors collect: [:a | got at: a id]]
        ifFalse: [
            Actor self receive: { Down -> [:d | T reasonsOf: actors got: (got at: d actor id put: d reason)] }
        ].

"Crash child id of sup and wait for it to end, without asking sup anything."
T class >> kill: id of: sup = (
    a := sup at: id.
    Actor self monitor: a.
    a ! Crash new.
    T waitFor: a
).

"Crash child id of sup and wait until sup has handled it."
T class >> crash: id of: sup = (
    a := sup at: id.
    Actor self monitor: a.
    a ! Crash new.
    T waitFor: a.
    sup children.
    nil
).

T class >> restarts: sup = sup children collect: [:c | c restarts].

T class >> ids: sup = sup children collect: [:c | c id].

T class >> describe: reason =
    reason error
        ifPresent: [:e | e message]
        ifAbsent: [reason printString].

ev := [:e | e displayNl].
"""


def program(body: str) -> str:
    return PRELUDE + textwrap.dedent(body)


def run_ok(body: str, tmp_path, domains: int = 2, seed: int | None = None) -> str:
    """Run PRELUDE + body (in deterministic mode with a seed); it must succeed with nothing on
    stderr. Answers stdout."""
    status, out, err = run_source(program(body), tmp_path, domains=domains, seed=seed)
    assert err == "", err
    assert status == 0, out
    return out


def run_raw(body: str, tmp_path, domains: int = 2, quiet: bool = False, seed: int | None = None):
    return run_source(program(body), tmp_path, domains=domains, quiet=quiet, seed=seed)


def lines(text: str) -> list[str]:
    return [x for x in textwrap.dedent(text).strip("\n").split("\n")]
