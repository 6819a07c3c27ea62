"""Grains on a real Redis (docs/grains.md): the RESP client, state in Redis, two LP processes sharing
one Redis (never two activations of an id at once, every acknowledged increment kept), a paused
owner's late write rejected by the fence, and Redis restarted mid-run."""
from __future__ import annotations

import json
import os
import signal
import time

from tests.grains.helpers import COUNTER, run, workdir
from tests.grains.redis_server import durable_redis, redis  # noqa: F401 (fixtures)
from tests.net.helpers import LPProcess


def stored(redis, key: str):
    """The state Redis holds for key (Counter/a), decoded from the grain codec's JSON."""
    text = redis.command("GET", "grain:{" + key + "}:state")
    return None if text is None else json.loads(text)


def test_the_redis_client(redis, tmp_path):  # noqa: F811
    rc, out, err = run(f"""
Import module: #Redis.
redis := Redis url: '{redis.url}'.
(redis command: #('SET' 'greeting' 'héllo wörld')) text displayNl.
(redis command: #('GET' 'greeting')) text displayNl.
(redis command: #('GET' 'nothing')) isAbsent printNl.
big := (1 to: 20000) inject: '' into: [:acc :i | acc , 'xyzzy'].
redis command: {{ 'SET'. 'big'. big }}.
((redis command: #('GET' 'big')) text = big) printNl.
((redis pipeline: {{ #('DEL' 'n'). #('INCR' 'n'). #('INCR' 'n'). #('LPUSH' 'l' 'a' 'b') }}) collect: [:r | r number]) printNl.
((redis command: #('LRANGE' 'l' '0' '-1')) items collect: [:r | r text]) printNl.
(RedisError try: [(redis command: #('NOPE')) text] onError: [:e | e message]) displayNl.
((redis pipeline: {{ #('NOPE'). #('PING') }}) collect: [:r | r kind]) printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["OK", "héllo wörld", "true", "true", "#(0 1 2 2)", "#('b' 'a')",
                                "ERR unknown command 'NOPE', with args beginning with: ", "#(#error #status)"]


def test_single_node_state_lives_in_redis_across_processes(redis, tmp_path):  # noqa: F811
    prog = COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) redis: '{redis.url}'.
(counters id: 'a') increment n printNl.
((counters id: 'b') add: 5) n printNl.
"""
    assert run(prog, tmp_path) == (0, "1\n5\n", "")
    assert stored(redis, "Counter/a") == {"$class": "Counter", "n": 1}
    assert run(prog, tmp_path) == (0, "2\n10\n", "")
    assert redis.command("GET", "grain:{Counter/a}:fence") == "2"
    assert redis.command("EXISTS", "grain:{Counter/a}:lease") == 0   # single node: no leases


TRACING = """
"A store that logs when each activation starts (its lease acquired) and ends (released)."
Object subclass: #Tracing fields: (inner).
Tracing >> log: text = Transcript showLine: text , ' ' , Actor millisecondClock printString.
Tracing >> stateFor: key = self inner stateFor: key.
Tracing >> persist: key json: json token: t = self inner persist: key json: json token: t.
Tracing >> acquireFor: key = (
    r := self inner acquireFor: key.
    r ifPresent: [:t | self log: 'acquired ' , key , ' ' , t printString].
    r).
Tracing >> renew: key token: t = self inner renew: key token: t.
Tracing >> release: key token: t = (
    self log: 'released ' , key , ' ' , t printString.
    self inner release: key token: t).
Tracing >> renewEvery = self inner renewEvery.
"""


def node_program(redis_url: str, node: str, seed: int) -> str:
    return COUNTER + TRACING + f"""
store := Tracing fields: {{ inner: (RedisGrainStore url: '{redis_url}' node: '{node}') ttl: 2000 }}.
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: store
    options: (GrainOptions default with: {{ idle: 10 }}).
main := Actor self.
ids := #('a' 'b' 'c').
1 to: 6 do: [:i | Actor spawn: [:me |
    1 to: 20 do: [:k |
        id := ids at: k + i \\\\ 3 + 1.
        Transcript showLine: (Error
            try: ['ack ' , id , ' ' , (counters id: id) increment n printString]
            onError: [:e | 'fail ' , id , ' ' , e message]).
        Actor sleep: k * 7 + (i * {seed}) \\\\ 50].
    main ! #done]].
6 timesRepeat: [main receive: {{ #done -> [:m | nil] }}].
Actor sleep: 300.
'finished' displayNl.
"""


def test_two_processes_share_ids_one_activation_at_a_time(redis, tmp_path):  # noqa: F811
    procs = []
    for i, seed in enumerate((13, 29)):
        d = workdir(tmp_path / f"node{i}")
        procs.append(LPProcess(node_program(redis.url, f"http://127.0.0.{i + 1}:7000", seed), d))
    outs = []
    for p in procs:
        rc, out, err = p.finish(timeout=120)
        assert (rc, err) == (0, ""), err
        outs.append(out.splitlines())
    lines = [line.split() for out in outs for line in out]
    assert not [w for w in lines if w[0] == "fail"]
    for key, gid in (("Counter/a", "a"), ("Counter/b", "b"), ("Counter/c", "c")):
        acks = sorted(int(w[2]) for w in lines if w[0] == "ack" and w[1] == gid)
        n = stored(redis, key)["n"]
        assert acks == list(range(1, n + 1)), key      # every acknowledged increment once, none lost
        acquired = {int(w[2]): int(w[3]) for w in lines if w[0] == "acquired" and w[1] == key}
        released = {int(w[2]): int(w[3]) for w in lines if w[0] == "released" and w[1] == key}
        tokens = sorted(acquired)
        assert tokens == list(range(1, len(tokens) + 1)) and set(released) == set(tokens)
        for t in tokens[1:]:
            assert acquired[t] >= released[t - 1], (key, t)   # activation t began after t-1 ended
    # both nodes activated ids
    assert all(any(w[0] == "acquired" for w in (line.split() for line in out)) for out in outs)


def test_a_paused_owners_late_write_is_fenced_out(redis, tmp_path):  # noqa: F811
    """A pauses (SIGSTOP) inside a call, past its lease; B takes the id over and writes; A resumes
    (SIGCONT): its write is rejected by the fence, its caller gets an error, the state keeps
    every acknowledged update."""
    common = COUNTER + """
Counter >> slowIncrement = (Actor sleep: 800. self with: { n: self n + 1 }).
"""
    a_dir, b_dir = workdir(tmp_path / "a"), workdir(tmp_path / "b")
    a = LPProcess(common + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: ((RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:1') ttl: 1500).
x := counters id: 'x'.
x increment. x increment.
'calling' displayNl.
(GrainError try: ['ack ' , x slowIncrement n printString] onError: [:e | 'failed ' , e kind asString]) displayNl.
('final ' , x n printString) displayNl.
""", a_dir)
    try:
        assert a.readline() == "calling"
        time.sleep(0.2)
        os.kill(a.proc.pid, signal.SIGSTOP)
        time.sleep(1.6)                      # past A's lease
        b = run(common + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: ((RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:2') ttl: 1500).
('ack ' , (counters id: 'x') increment n printString) displayNl.
""", b_dir)
        assert b == (0, "ack 3\n", "")
    finally:
        os.kill(a.proc.pid, signal.SIGCONT)
    rc, out, err = a.finish(timeout=60)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["calling", "failed fenced", "final 3"]
    assert stored(redis, "Counter/x")["n"] == 3


def test_redis_restarted_mid_run_fails_calls_clearly_then_recovers(durable_redis, tmp_path):  # noqa: F811
    redis = durable_redis
    p = LPProcess(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: ((RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:1') ttl: 3000).
Object subclass: #Loop.
Loop class >> run: k on: counters = k = 0 ifTrue: [nil] ifFalse: [
    (Error try: ['ack ' , (counters id: 'r') increment n printString]
        onError: [:e | 'fail ' , e message]) displayNl.
    Actor sleep: 50.
    Loop run: k - 1 on: counters].
Loop run: 100000 on: counters.
""", workdir(tmp_path))
    try:
        acks = []
        while len(acks) < 5:
            line = p.readline()
            if line.startswith("ack"):
                acks.append(int(line.split()[1]))
        redis.stop()
        fails = []
        while len(fails) < 3:
            line = p.readline()
            if line.startswith("fail"):
                fails.append(line)
            else:
                acks.append(int(line.split()[1]))
        redis.start()
        line = p.readline()
        while line.startswith("fail"):
            line = p.readline()
        after = [int(line.split()[1])] + [int(p.readline().split()[1]) for _ in range(3)]
    finally:
        p.proc.kill()
    assert fails[0] == f"fail connect to 127.0.0.1:{redis.port}: connection refused"
    assert acks == list(range(1, len(acks) + 1))
    # nothing acknowledged before the restart is lost; calls go on counting from there
    assert after[0] > acks[-1] and after == list(range(after[0], after[0] + 4))


def test_a_lease_held_elsewhere_fails_the_call_after_acquire_timeout(redis, tmp_path):  # noqa: F811
    holder = LPProcess(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) redis: '{redis.url}' url: 'http://127.0.0.1:1'.
(counters id: 'h') increment n printNl.
Actor sleep: 5000.
""", workdir(tmp_path / "holder"))
    try:
        assert holder.readline() == "1"
        rc, out, err = run(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: (RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:2')
    options: (GrainOptions default with: {{ acquireTimeout: 300 }}).
(GrainError try: [(counters id: 'h') increment n printString] onError: [:e | e kind printString , ' ' , e message])
    displayNl.
""", tmp_path)
        assert (rc, err) == (0, "")
        assert out == "#leaseHeld grain Counter/h: another node holds the lease (waited 300 ms)\n"
        assert redis.command("GET", "grain:{Counter/h}:lease").startswith("http://127.0.0.1:1 ")
    finally:
        holder.proc.kill()


def test_a_stored_state_that_does_not_decode_fails_with_bad_state(redis, tmp_path):  # noqa: F811
    redis.command("SET", "grain:{Counter/q}:state", '{"$class":"Nope","n":1}')
    rc, out, err = run(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) redis: '{redis.url}'.
(GrainError try: [(counters id: 'q') n printString] onError: [:e | e kind printString , ' ' , e message]) displayNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == ("#badState grain Counter/q: a stored grain state names the class Nope, "
                   "which this program does not define\n")


def test_an_owner_whose_lease_is_lost_deactivates(redis, tmp_path):  # noqa: F811
    p = LPProcess(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: ((RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:1') ttl: 300).
(counters id: 'l') increment n printNl.
Actor sleep: 1500.
(counters id: 'l') increment n printNl.
""", workdir(tmp_path))
    assert p.readline() == "1"
    redis.command("DEL", "grain:{Counter/l}:lease")
    rc, out, err = p.finish()
    assert (rc, err, out) == (0, "", "1\n2\n")
    assert redis.command("GET", "grain:{Counter/l}:fence") == "2"    # the second call activated it again


def test_a_killed_nodes_ids_come_back_on_another_after_the_lease(redis, tmp_path):  # noqa: F811
    """kill -9 of a process under load: another process activates its ids once their leases
    expire, from the last state written; nothing acknowledged is lost."""
    a = LPProcess(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: ((RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:1') ttl: 1000).
#('k1' 'k2' 'k3') do: [:id | Actor spawn: [:me |
    1 to: 100000 do: [:i | ('ack ' , id , ' ' , (counters id: id) increment n printString) displayNl]]].
Actor sleep: 60000.
""", workdir(tmp_path / "a"))
    acked = {}
    try:
        while len(acked) < 3 or min(acked.values()) < 5:
            _, gid, n = a.readline().split()
            acked[gid] = int(n)
    finally:
        os.kill(a.proc.pid, signal.SIGKILL)
        a.proc.wait()
    while True:   # what A printed before it died
        line = a.lines.get(timeout=10)
        if line is None:
            break
        _, gid, n = line.split()
        acked[gid] = max(acked[gid], int(n))
    start = time.monotonic()
    rc, out, err = run(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: (RedisGrainStore url: '{redis.url}' node: 'http://127.0.0.1:2').
#('k1' 'k2' 'k3') do: [:id | (id , ' ' , (counters id: id) increment n printString) displayNl].
""", workdir(tmp_path / "b"))
    took = time.monotonic() - start
    assert (rc, err) == (0, "")
    got = {gid: int(n) for gid, n in (line.split() for line in out.splitlines())}
    for gid in ("k1", "k2", "k3"):
        # A's last acknowledged increment is kept; at most one more of A's (written, not yet printed)
        assert acked[gid] + 1 <= got[gid] <= acked[gid] + 2, (gid, acked, got)
    assert took < 30


def test_the_stored_form_is_remotes_json_exact(redis, tmp_path):  # noqa: F811
    """docs/grains.md, "The stored form": every tag as stored in Redis, read back as the same value
    by another process; a stored instance with other fields is #badState."""
    prog = f"""
Import module: #Grain.
Object subclass: #Point fields: (x y).
Object subclass: #Box fields: (sym ch some none bytes pair byInt byName p).
Box >> get = self.
Box >> touch = self with: {{ p: Point fields: {{ x: 3. y: 4 }} }}.
boxes := Grain for: Box initial: (Box fields: {{
    sym: #ok. ch: $c. some: (Maybe some: 1). none: Maybe none. bytes: (ByteArray withAll: #(1 2 255)).
    pair: 'k' -> 2. byInt: (Dictionary new at: 1 put: 'one'). byName: (Dictionary new at: 'a' put: nil).
    p: Point fields: {{ x: 1. y: 2 }} }}) redis: '{redis.url}'.
"""
    rc, out, err = run(prog + """
(boxes id: 'b') touch.
""", tmp_path)
    assert (rc, out, err) == (0, "", "")
    assert stored(redis, "Box/b") == {
        "$class": "Box", "sym": {"$symbol": "ok"}, "ch": {"$char": "c"}, "some": {"$maybe": [1]},
        "none": {"$maybe": []}, "bytes": {"$bytes": "AQL/"}, "pair": {"$assoc": ["k", 2]},
        "byInt": {"$dict": [[1, "one"]]}, "byName": {"a": None}, "p": {"$class": "Point", "x": 3, "y": 4}}
    rc, out, err = run(prog + "(boxes id: 'b') get printNl.\n", tmp_path)
    assert (rc, err) == (0, "")
    assert out == ("Box(sym: #ok, ch: $c, some: Maybe some: 1, none: Maybe none, bytes: #[1 2 255], "
                   "pair: 'k' -> 2, byInt: Dictionary(1 -> 'one'), byName: Dictionary('a' -> nil), "
                   "p: Point(x: 3, y: 4))\n")
    redis.command("SET", "grain:{Box/c}:state", '{"$class":"Point","x":1}')
    rc, out, err = run(prog + """
(GrainError try: [(boxes id: 'c') get printString] onError: [:e | e kind printString , ' ' , e message]) displayNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out == "#badState grain Box/c: a stored Point does not have the fields of Point (the field y differs)\n"
