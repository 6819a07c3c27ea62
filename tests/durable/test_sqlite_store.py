"""SqliteGrainStore (docs/durable.md, "The SQLite grain store"): the GrainStore protocol in one
SQLite file, its fencing, grain states that outlive the process, and concurrent callers."""
from __future__ import annotations

import sqlite3

from tests.durable.helpers import run

COUNTER = """
Import module: #Grain.
Import module: #SqliteGrainStore.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
"""


def test_the_protocol_and_its_fence(tmp_path):
    db = tmp_path / "g.sqlite"
    rc, out, err = run(COUNTER + f"""
store := SqliteGrainStore at: '{db}'.
(store stateFor: 'C/a') printNl.
(store acquireFor: 'C/a') printNl.
(store acquireFor: 'C/a') printNl.
(store persist: 'C/a' json: 'old' token: 1) printNl.
(store persist: 'C/a' json: 'new' token: 2) printNl.
(store stateFor: 'C/a') printNl.
(store acquireFor: 'C/b') printNl.
(store renew: 'C/a' token: 2) printNl.
""", tmp_path)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["Maybe none", "Maybe some: 1", "Maybe some: 2", "false", "true",
                                "Maybe some: 'new'", "Maybe some: 1", "true"]
    assert sqlite3.connect(db).execute("SELECT key, json, token FROM grains ORDER BY key").fetchall() == [
        ("C/a", "new", 2), ("C/b", None, 1)]


def test_grain_states_outlive_the_process(tmp_path):
    prog = COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: (SqliteGrainStore at: '{tmp_path}/g.sqlite').
(counters id: 'a') increment n printNl.
(counters id: 'b') n printNl.
"""
    assert run(prog, tmp_path)[:3] == (0, "1\n0\n", "")
    assert run(prog, tmp_path)[:3] == (0, "2\n0\n", "")


def test_concurrent_callers_on_short_lived_activations_count_every_call(tmp_path):
    rc, out, err = run(COUNTER + f"""
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: (SqliteGrainStore at: '{tmp_path}/g.sqlite')
    options: (GrainOptions default with: {{ idle: 3 }}).
main := Actor self.
ids := #('a' 'b' 'c').
1 to: 12 do: [:i | Actor spawn: [:me |
    id := ids at: i \\\\ 3 + 1.
    1 to: 10 do: [:k | (counters id: id) increment. (k \\\\ 4 = 0) ifTrue: [Actor sleep: i \\\\ 5]].
    main ! i]].
1 to: 12 do: [:i | main receive: {{ Integer -> [:x | x] }}].
(ids inject: 0 into: [:acc :x | acc + (counters id: x) n]) printNl.
""", tmp_path, timeout=240)
    assert (rc, err) == (0, "")
    assert out == "120\n"
