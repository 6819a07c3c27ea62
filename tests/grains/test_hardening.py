"""Grains used badly (docs/grains.md, "Limits"): a state nested too deeply, options and ids out of
range, an unusable data directory, an owner that ends before answering, and where an error a grain
method raised is reported. Each program runs under `lp run` and as a binary, with the same output."""
from __future__ import annotations

import pytest

from tests.grains.helpers import MODES, run

LIMITS = """
Import module: #Durable.
Object subclass: #Node fields: (inner).
Object subclass: #Box fields: (v).
Box >> put: x = self with: { v: x }.
Box >> ok = 'activated'.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
Counter >> quit = Actor exit: #killed.
Counter >> kill = (Actor self exit: #killed. self).
Object subclass: #Text fields: (t).
Text >> grow: k = self with: { t: (1 to: k) inject: 'x' into: [:s :i | s , s] }.
Text >> size = self t size.
try := [:b | (Error try: [b value printString] onError: [:e | e class name , ': ' , e message]) displayNl].
"a state nests at most 300 levels: Box 1, then Maybe and Node by turns"
boxes := Grain for: Box initial: (Box fields: { v: Maybe none }) store: MemoryGrainStore start.
#(149 150 100000) do: [:d |
    deep := (1 to: d) inject: Maybe none into: [:a :i | Maybe some: (Node fields: { inner: a })].
    try value: [(boxes id: 'a') put: deep. true]].
deep := (1 to: 150) inject: Maybe none into: [:a :i | Maybe some: (Node fields: { inner: a })].
try value: [Grain for: Box initial: (Box fields: { v: deep }) store: MemoryGrainStore start].
"a stored state nested too deeply does not activate"
store := SqliteGrainStore at: 'deep/grains.sqlite'.
stored := Grain for: Box initial: (Box fields: { v: Maybe none }) store: store.
dicts := [:n | (1 to: n) inject: '0' into: [:a :i | '{"$dict":[[1,' , a , ']]}']].
arrays := [:n | (1 to: n) inject: '0' into: [:a :i | '[' , a , ']']].
{ 'd297' -> (dicts value: 297). 'd298' -> (dicts value: 298). 'a100000' -> (arrays value: 100000) } do: [:kv |
    store storage execute: 'INSERT INTO grains (key, json, token) VALUES (?, ?, 0)'
        with: { 'Box/' , kv key. '{"$class":"Box","v":{"$maybe":[' , kv value , ']}}' }.
    try value: [(stored id: kv key) ok]].
"options, TTLs, ids and directories out of range"
o := GrainOptions default.
mem := MemoryGrainStore start.
init := Counter fields: { n: 0 }.
try value: [Grain for: Counter initial: init store: mem options: (o with: { idle: 0 })].
try value: [Grain for: Counter initial: init store: mem options: (o with: { idle: -5 })].
try value: [Grain for: Counter initial: init store: mem options: (o with: { idle: 4611686018427387904 })].
try value: [Grain for: Counter initial: init store: mem options: (o with: { callTimeout: 0 })].
try value: [Grain for: Counter initial: init store: mem options: (o with: { acquireTimeout: -1 })].
try value: [Grain for: Counter initial: init store: mem options: (o with: { alarmsAtOnce: 0 })].
try value: [SqliteGrainStore at: 'ttl/grains.sqlite' ttl: 0].
try value: [(RedisGrainStore url: 'redis://127.0.0.1:1' node: 'n') ttl: -1].
try value: [Grain for: Counter initial: init dir: ''].
try value: [Grain for: Counter initial: init dir: '/proc/no-such-dir'].
nul := (ByteArray new: 1) asString.
try value: [Grain for: Counter initial: init dir: 'd' , nul , 'x'].
try value: [Grain for: Counter initial: init store: mem options: (o with: { dataDir: 'd' , nul })].
try value: [(Storage at: 'a' , nul , 'b.sqlite') path].
counters := Grain for: Counter initial: init store: mem.
try value: [counters id: ''].
try value: [counters id: ((1 to: 2049) inject: '' into: [:s :i | s , 'x'])].
try value: [(counters id: ((1 to: 2048) inject: '' into: [:s :i | s , 'x'])) increment n].
try value: [counters id: 'a' , (ByteArray new: 1) asString].
"a state too large for the SQLite store"
texts := Grain for: Text initial: (Text fields: { t: '' }) store: (SqliteGrainStore at: 'big/grains.sqlite').
try value: [((texts id: 'big') grow: 20) size].
try value: [(texts id: 'big') size].
"an owner that ends before answering: its callers get #ownerDied, and the id activates again"
a := counters id: 'a'.
try value: [a increment n].
try value: [a quit].
try value: [a kill].
try value: [GrainError try: [a quit] onError: [:e | e kind]].
try value: [a increment n].
"""

LIMITS_OUT = """\
true
Error: a grain state is nested more than 300 levels deep
Error: a grain state is nested more than 300 levels deep
Error: a grain state is nested more than 300 levels deep
'activated'
GrainError: grain Box/d298: a stored grain state does not decode: a grain state is nested more than 300 levels deep
GrainError: grain Box/a100000: a stored grain state does not decode: a grain state is nested more than 300 levels deep
Error: the grain option idle must be 1 to 1000000000000 ms, not 0
Error: the grain option idle must be 1 to 1000000000000 ms, not -5
Error: the grain option idle must be 1 to 1000000000000 ms, not 4611686018427387904
Error: the grain option callTimeout must be 1 to 1000000000000 ms, not 0
Error: the grain option acquireTimeout must be 0 to 1000000000000 ms, not -1
Error: the grain option alarmsAtOnce must be 1 to 10000, not 0
Error: SqliteGrainStore at:ttl: takes a TTL of 1 to 1000000000000 ms, not 0
Error: RedisGrainStore ttl: takes a TTL of 1 to 1000000000000 ms, not -1
Error: Grain for:initial:dir: takes a directory, not the empty String ('.' is the working directory)
BackendUnavailable: storage execute: cannot make the store's directory: No such file or directory
Error: Storage at: takes a file path, which cannot hold the NUL character
Error: the grain option dataDir cannot hold the NUL character
Error: Storage at: takes a file path, which cannot hold the NUL character
InvalidId: a grain id is 1 to 2048 characters long, not 0
InvalidId: a grain id is 1 to 2048 characters long, not 2049
1
InvalidId: a grain id cannot hold the NUL character
Error: grain Text/big: the state's JSON is 1048600 characters long; SqliteGrainStore keeps at most 1000000
0
1
GrainError: grain Counter/a: its owner ended (#killed) before answering the call
GrainError: grain Counter/a: its owner ended (#killed) before answering the call
#ownerDied
2
"""


@pytest.mark.parametrize("mode", MODES)
def test_limits_are_refused_with_the_same_errors_in_both_modes(tmp_path, mode):
    status, out, err = run(LIMITS, tmp_path, mode=mode)
    assert (status, out) == (0, LIMITS_OUT), err
    made = {p.name for p in tmp_path.iterdir()} - {"map_store.lp", "prog.lp", "prog"}
    assert made == {"big", "deep"}   # nothing from the refused paths (the binary cut them at the NUL)


METHOD_ERROR = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
Counter >> boom = (
    x := 1.
    self n // 0).
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: MemoryGrainStore start.
a := counters id: 'a'.
a increment n printNl.
a boom.
'not here' displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_an_uncaught_grain_method_error_names_the_users_line(tmp_path, mode):
    status, out, err = run(METHOD_ERROR, tmp_path, mode=mode)
    assert (status, out) == (1, "1\n")
    first, second, third = err.splitlines()[:3]
    assert first.endswith("prog.lp:11:1: Error: division by zero"), err
    assert third.endswith("a boom."), err
    assert "stdlib/grain.lp" in err   # the call stack still shows the frames in between


REMOTE_IDS = """
Import module: #Grain.
Import module: #Remote.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
Counter >> quit = Actor exit: #killed.
try := [:b | (Error try: [b value printString] onError: [:e | e class name , ': ' , e message]) displayNl].
server := RemoteServer startHost: '127.0.0.1' port: 0.
(Grain for: Counter initial: (Counter fields: { n: 0 }) store: MemoryGrainStore start) serveOn: server.
url := 'http://127.0.0.1:' , server port printString , '/rpc'.
try value: [(Remote at: url for: #Counter id: 'a') increment n].
try value: [(Remote at: url for: #Counter id: '') increment n].
try value: [(Remote at: url for: #Counter id: 'x' , (ByteArray new: 1) asString) increment n].
try value: [(Remote at: url for: #Counter id: 42) increment n].
try value: [(Remote at: url for: #Counter id: ((1 to: 3000) inject: '' into: [:s :i | s , 'y'])) increment n].
try value: [(Remote at: url for: #Counter id: 'a') quit].
try value: [(Remote at: url for: #Counter id: 'a') increment n].
server stop.
"""

REMOTE_IDS_OUT = """\
1
RemoteError: a grain id is 1 to 2048 characters long, not 0
RemoteError: a grain id cannot hold the NUL character
RemoteError: a grain id is a String, not 42
RemoteError: a grain id is 1 to 2048 characters long, not 3000
RemoteError: grain Counter/a: its owner ended (#killed) before answering the call
2
"""


@pytest.mark.parametrize("mode", MODES)
def test_remote_calls_with_bad_ids_or_a_dying_owner_are_answered_alike(tmp_path, mode):
    """A non-String id used to fail the binary's HTTP handler (500): grain.lp typed RemoteCall's id."""
    status, out, err = run(REMOTE_IDS, tmp_path, mode=mode)
    assert (status, out) == (0, REMOTE_IDS_OUT), err


DYING_UNDER_LOAD = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
Counter >> quitAfter: started = (started resolve: true. Actor sleep: 100. Actor exit: #killed).
c := Grain for: Counter initial: (Counter fields: { n: 0 }) store: MemoryGrainStore start.
a := c id: 'a'.
(1 to: 150) do: [:i | a increment].
started := Promise new.
Actor spawn: [:me | Error try: [a quitAfter: started] onError: [:e | nil]].
started future await.
answers := (1 to: 40) collect: [:i |
    p := Promise new.
    Actor spawn: [:me |
        p resolve: (GrainError try: [a increment n] onError: [:e | e kind = #ownerDied ifTrue: [-1] ifFalse: [-2]])].
    p future].
got := answers collect: [:f | f await].
(got allSatisfy: [:x | x = -1 or: [x > 150]]) printNl.
(a n = (150 + (got count: [:x | x > 0]))) printNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_callers_queued_behind_an_owner_that_ends_are_all_answered(tmp_path, mode):
    """150 calls first, so that the directory has dropped the calls the owner reported handled."""
    status, out, err = run(DYING_UNDER_LOAD, tmp_path, mode=mode)
    assert (status, out) == (0, "true\ntrue\n"), err


REENTRANT = """
Import module: #Grain.
Object subclass: #Node fields: (n).
Node >> ping: g = g pong n.
Node >> pong = self.
Node >> other: g = g pong n + 1.
nodes := Grain for: Node initial: (Node fields: { n: 0 }) store: MemoryGrainStore start
    options: (GrainOptions default with: { callTimeout: 60000 }).
try := [:b | (GrainError try: [b value printString] onError: [:e | e kind printString , ' ' , e message]) displayNl].
try value: [(nodes id: 'a') ping: (nodes id: 'a')].
try value: [(nodes id: 'a') other: (nodes id: 'b')].
try value: [(nodes id: 'a') ping: (nodes id: 'a')].
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_grain_calling_itself_fails_at_once_with_reentrant(tmp_path, mode):
    """Its owner runs one call at a time and is busy with the caller: the call would wait for itself
    until callTimeout (a minute here); it fails at once, and the grain goes on serving."""
    status, out, err = run(REENTRANT, tmp_path, mode=mode, timeout=50)
    said = ("#reentrant grain Node/a: pong was called from a method of the grain itself; a grain runs one "
            "call at a time, so the call would wait for itself")
    assert (status, out.splitlines(), err) == (0, [said, "1", said], "")


CYCLE = """
Import module: #Grain.
Object subclass: #Node fields: (n).
Node >> via: b back: a = b call: a.
Node >> call: a = a pong n.
Node >> pong = self.
nodes := Grain for: Node initial: (Node fields: { n: 0 }) store: MemoryGrainStore start
    options: (GrainOptions default with: { callTimeout: 500 }).
(Error try: [((nodes id: 'a') via: (nodes id: 'b') back: (nodes id: 'a')) printString]
    onError: [:e | e messageText]) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_cycle_through_another_grain_times_out(tmp_path, mode):
    """a calls b, whose method calls a: not detected (docs/grains.md); each waits until callTimeout."""
    status, out, err = run(CYCLE, tmp_path, mode=mode, timeout=50)
    assert (status, out) == (0, "await: timed out after 500 ms\n"), err
