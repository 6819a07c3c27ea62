"""Building collections costs one persistent insertion per element, never a copy of the whole
collection: checked by counting the operations, not by timing."""
from __future__ import annotations

import pytest

from lp.interp import values as V
from tests.library.helpers import run


@pytest.fixture
def counts(monkeypatch):
    seen = {"put": 0, "entries": 0}
    put, entries = V.LPDict.put, V.LPDict.entries

    def counting_put(self, k, v):
        seen["put"] += 1
        return put(self, k, v)

    def counting_entries(self):
        seen["entries"] += 1
        return entries(self)
    monkeypatch.setattr(V.LPDict, "put", counting_put)
    monkeypatch.setattr(V.LPDict, "entries", counting_entries)
    return seen


def test_dictionary_at_put_in_a_loop_never_walks_the_dictionary(counts):
    status, out, err = run("Object subclass: #Fill.\n"
                           "Fill class >> into: d from: i to: n = i > n ifTrue: [d] ifFalse: "
                           "[self into: (d at: i put: i) from: i + 1 to: n].\n"
                           "(Fill into: Dictionary new from: 1 to: 3000) size printNl.\n")
    assert (status, out, err) == (0, "3000\n", "")
    assert counts == {"put": 3000, "entries": 0}


@pytest.mark.parametrize("expr, puts", [
    ("(1 to: 1000) asArray collect: [:x | x]", 1000),
    ("(1 to: 1000) asArray select: [:x | x even]", 500),
    ("1 to: 1000 collect: [:x | x]", 1000),
    ("(1 to: 1000) asArray with: (1 to: 1000) asArray collect: [:x :y | x + y]", 1000),
])
def test_collect_and_select_insert_each_element_once(counts, expr, puts):
    status, out, err = run(f"({expr}) size printNl.\n")
    assert (status, out, err) == (0, f"{puts}\n", "")
    assert counts == {"put": puts, "entries": 1}


def test_sort_merges_with_n_log_n_insertions(counts):
    status, out, err = run("((1 to: 1024) asArray reversed sort: [:a :b | a <= b]) first printNl.\n")
    assert (status, out, err) == (0, "1\n", "")
    assert counts["put"] == 1024 * 10
