"""The default store of `Grain for:initial:` (docs/grains.md, "The default store"): SQLite in
lp-data/grains.sqlite under the working directory; states outlive the process, and processes sharing
the directory take turns with an id (SqliteGrainStore's leases), also when one is killed."""
from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest

from tests.conftest import run_lp
from tests.grains.helpers import COUNTER, MODES, run, workdir
from tests.net.helpers import LPProcess


def test_a_state_survives_a_restart_with_the_default_store(tmp_path):
    prog = COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
(counters id: 'a') increment n printNl.
(counters id: 'b') n printNl.
"""
    assert run(prog, tmp_path) == (0, "1\n0\n", "")
    assert run(prog, tmp_path) == (0, "2\n0\n", "")
    db = sqlite3.connect(tmp_path / "lp-data" / "grains.sqlite")
    assert db.execute("SELECT key, json FROM grains WHERE json IS NOT NULL").fetchall() == [
        ("Counter/a", '{"$class":"Counter","n":2}')]


def test_the_memory_store_forgets_at_exit(tmp_path):
    prog = COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }) store: MemoryGrainStore start.
(counters id: 'a') increment n printNl.
"""
    assert run(prog, tmp_path) == (0, "1\n", "")
    assert run(prog, tmp_path) == (0, "1\n", "")
    assert not (tmp_path / "lp-data").exists()


# the default file with a 10 s TTL, so that a holder starved of the CPU on a loaded machine still
# renews its row in time
HOLDER = COUNTER + """
Import module: #SqliteGrainStore.
counters := Grain for: Counter initial: (Counter fields: { n: 0 })
    store: (SqliteGrainStore at: 'lp-data/grains.sqlite' ttl: 10000)
    options: (GrainOptions default with: { idle: 600000 }).
(counters id: 'a') increment n printNl.
'holding' displayNl.
Actor sleep: 600000.
"""

WAITER = COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 })
    options: (GrainOptions default with: { acquireTimeout: 1000 }).
(Error try: [(counters id: 'a') increment n printString] onError: [:e | e messageText])
    displayNl.
(counters id: 'b') increment n printNl.
"""


def test_a_second_process_on_the_data_dir_does_not_own_an_active_id(tmp_path):
    """While one process has `a` active (and is alive), another waits acquireTimeout and fails with
    #leaseHeld; other ids are its to take."""
    d = workdir(tmp_path)
    with LPProcess(HOLDER, d, cwd=d) as holder:
        assert holder.readline(timeout=60) == "1"
        assert holder.readline(timeout=60) == "holding"
        assert run(WAITER, d) == (
            0, "grain Counter/a: another node holds the lease (waited 1000 ms)\n1\n", "")


def test_a_killed_processs_ids_are_taken_over_after_the_lease_and_keep_their_state(tmp_path):
    d = workdir(tmp_path)
    with LPProcess(HOLDER, d, cwd=d) as holder:
        assert holder.readline(timeout=60) == "1"
        assert holder.readline(timeout=60) == "holding"
        holder.proc.kill()
        holder.proc.wait()
    # the dead process's row expires within 10 s; the default acquireTimeout (30 s) waits for it
    assert run(COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 }).
(counters id: 'a') increment n printNl.
""", d) == (0, "2\n", "")


def sharer(seed: int) -> str:
    """Four callers increment three ids 25 times each, with a 1-20 ms idle timeout, so each id is
    activated and deactivated over and over, by turns with the other process (a 5 s TTL: a process
    starved of the CPU still renews in time)."""
    return COUNTER + f"""
Import module: #SqliteGrainStore.
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: (SqliteGrainStore at: 'lp-data/grains.sqlite' ttl: 5000)
    options: (GrainOptions default with: {{ idle: {seed % 20 + 1} }}).
main := Actor self.
ids := #('a' 'b' 'c').
1 to: 4 do: [:i | Actor spawn: [:me |
    id := ids at: i \\\\ 3 + 1.
    ok := (1 to: 25) inject: 0 into: [:acc :k |
        (k \\\\ 5 = 0) ifTrue: [Actor sleep: (i * {seed}) \\\\ 7].
        Error try: [(counters id: id) increment. acc + 1] onError: [:e | e messageText displayNl. acc]].
    main ! ok]].
((1 to: 4) inject: 0 into: [:acc :i | acc + (main receive: {{ Integer -> [:x | x] }})]) printNl.
"""


def test_two_processes_sharing_ids_count_every_increment_once(tmp_path):
    """Two processes on one data dir, each activating the same three ids again and again: no call
    fails (no fenced write: never two owners writing one id) and the stored counts add up."""
    d = workdir(tmp_path)
    procs = [LPProcess(sharer(seed), workdir(d / f"p{seed}"), cwd=d) for seed in (3, 11)]
    outs = []
    for p in procs:
        with p:
            rc, out, err = p.finish(timeout=240)
            outs.append((rc, out, err))
    assert outs == [(0, "100\n", ""), (0, "100\n", "")]
    db = sqlite3.connect(d / "lp-data" / "grains.sqlite")
    total = sum(json.loads(j)["n"] for (j,) in db.execute("SELECT json FROM grains"))
    assert total == 200   # (a process may end with an id active: its lease stays until its row expires)


def test_two_servers_of_one_class_share_the_default_stores_grains(tmp_path):
    assert run(COUNTER + """
s1 := Grain for: Counter initial: (Counter fields: { n: 0 }) options: (GrainOptions default with: { idle: 20 }).
s2 := Grain for: Counter initial: (Counter fields: { n: 0 }).
(s1 id: 'a') increment.
Actor sleep: 300.
(s2 id: 'a') increment n printNl.
""", tmp_path) == (0, "2\n", "")


# Three servers of one class on the default file, each with its own lease holder; a's store cannot
# read a state (its other methods are the SQLite store's)
FAILING = COUNTER + """
Import module: #SqliteGrainStore.
Object subclass: #Unreadable fields: (inner).
Unreadable >> stateFor: key = Error raise: 'the disk is on fire'.
Unreadable >> acquireFor: key = self inner acquireFor: key.
Unreadable >> persist: key json: json token: t = self inner persist: key json: json token: t.
Unreadable >> renew: key token: t = self inner renew: key token: t.
Unreadable >> release: key token: t = self inner release: key token: t.
Unreadable >> renewEvery = self inner renewEvery.
options := GrainOptions default with: { acquireTimeout: 5000 }.
a := Grain for: Counter initial: (Counter fields: { n: 0 })
    store: (Unreadable fields: { inner: SqliteGrainStore at: 'lp-data/grains.sqlite' })
    options: options.
b := Grain for: Counter initial: (Counter fields: { n: 0 }) options: options.
c := Grain for: Counter initial: (Counter fields: { n: 0 }) options: options.
(Error try: [(a id: 'x') increment n printString] onError: [:e | e messageText]) displayNl.
(Error try: [(b id: 'x') increment n printString] onError: [:e | e messageText]) displayNl.
(Error try: [(b id: 'bad') n printString] onError: [:e | e messageText]) displayNl.
(Error try: [(c id: 'bad') n printString] onError: [:e | e messageText]) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_failed_activation_gives_its_lease_back_at_once(tmp_path, mode):
    """An activation that took its lease and then failed (the store raised reading the state; the
    stored state does not decode) answers its caller with the error and releases the lease before
    that: another server of the class on the same file activates the id at once, where it used to
    wait acquireTimeout and fail with #leaseHeld (the failed owner's process is alive and renews
    its row, so the lease never expired)."""
    d = workdir(tmp_path)
    (d / "lp-data").mkdir()
    db = sqlite3.connect(d / "lp-data" / "grains.sqlite")
    db.execute("CREATE TABLE grains (key TEXT PRIMARY KEY, json TEXT, token INTEGER NOT NULL)")
    db.execute("""INSERT INTO grains VALUES ('Counter/bad', '{"$class":"Counter","n":"oops"}', 0)""")
    db.commit()
    db.close()
    bad = ("grain Counter/bad: a stored grain state does not have the program's state type: "
           "state.n: expected Integer, found the String 'oops'")
    assert run(FAILING, d, mode=mode) == (0, f"the disk is on fire\n1\n{bad}\n{bad}\n", "")
    db = sqlite3.connect(d / "lp-data" / "grains.sqlite")
    assert db.execute("SELECT key FROM leases").fetchall() == [("Counter/x",)]   # b's, active at exit


def test_a_binarys_lease_renewer_outlives_many_leases(tmp_path):
    """The default store's renewing actor hears of every lease taken and given up. In a binary it
    used to loop through a block calling a six-argument method, a call that is not a jump there
    (docs/native.md, "Tail calls and stack arguments"): its stack grew by a frame per lease until
    it died of a stack overflow after about 800, and this process's leases were no longer renewed.
    600 ids activated and deactivated: 1,200 messages to it, and it is still alive."""
    prog = COUNTER + """
counters := Grain for: Counter initial: (Counter fields: { n: 0 })
    options: (GrainOptions default with: { idle: 20 }).
((1 to: 600) inject: 0 into: [:acc :i | acc + (counters id: i printString) increment n]) printNl.
Actor sleep: 300.
(counters id: '1') increment n printNl.
"""
    assert run(prog, tmp_path, mode="build") == (0, "600\n2\n", "")


def test_a_binary_uses_the_default_store_as_lp_run_does(tmp_path):
    """One binary (`lp build`) on the default store: its states outlive it, `lp run` goes on from
    them (one file, one format; each run waits for the leases the run before left, at most 2 s),
    and while an `lp run` process holds an id the binary waits acquireTimeout and fails with the
    same message."""
    prog = WAITER.replace("acquireTimeout: 1000", "acquireTimeout: 4000")
    d = workdir(tmp_path)
    (d / "prog.lp").write_text(prog)
    b = run_lp("build", "prog.lp", "-o", "prog", cwd=d, timeout=300)
    assert b.returncode == 0, b.stderr.decode()

    def binary():
        r = subprocess.run([str(d / "prog")], cwd=d, capture_output=True, text=True, timeout=120)
        return r.returncode, r.stdout, r.stderr
    assert binary() == (0, "1\n1\n", "")
    assert binary() == (0, "2\n2\n", "")
    assert run(prog, d) == (0, "3\n3\n", "")
    with LPProcess(HOLDER, d, cwd=d) as holder:
        assert holder.readline(timeout=60) == "4"
        assert holder.readline(timeout=60) == "holding"
        assert binary() == (0, "grain Counter/a: another node holds the lease (waited 4000 ms)\n4\n", "")
