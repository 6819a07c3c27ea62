"""Fault injection on 2 domains: children crash at random points over many runs, and
the supervisor's events and restart counts are predicted exactly by a model.

The randomness is in the plan (seeded in Python): how many children, on which
Work message each child's incarnations crash, and which child gets each Work
message. The LP driver sends the messages; a child that reaches its crash point
answers #crashing and raises. The driver then waits for the child's Down and
asks the supervisor, which has handled every death it knows of before it
answers, so the transcript is exact whatever the scheduling.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.supervision.helpers import run_ok

STRATEGIES = ["oneForOne", "oneForAll", "restForOne"]


def plan(seed: int):
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    ids = [f"c{i}" for i in range(1, n + 1)]
    crash_on = {c: rng.randint(1, 4) for c in ids}
    targets = [rng.choice(ids) for _ in range(rng.randint(20, 40))]
    return ids, crash_on, targets


def specs(ids, crash_on) -> str:
    return ".\n".join(f"ChildSpec id: #{c} start: [Worker start: '{c}' crashOn: {crash_on[c]}]" for c in ids)


class Model:
    """What the supervisor must do, step by step (every child is permanent)."""

    def __init__(self, name, strategy, ids, crash_on):
        self.name, self.strategy, self.ids, self.crash_on = name, strategy, ids, crash_on
        self.count = {c: 0 for c in ids}
        self.restarts = {c: 0 for c in ids}

    def group(self, c):
        i = self.ids.index(c)
        if self.strategy == "oneForOne":
            return []
        if self.strategy == "oneForAll":
            return [x for x in self.ids if x != c]
        return self.ids[i + 1:]

    def work(self, c) -> tuple[bool, list[str]]:
        """Deliver one Work message to c: (crashed?, supervisor events)."""
        self.count[c] += 1
        if self.count[c] != self.crash_on[c]:
            return False, []
        group = self.group(c)
        out = [f"[{self.name}] exited #{c} (Error: {c} crashed)"]
        out += [f"[{self.name}] stopped #{g} (shutdown)" for g in reversed(group)]
        for x in self.ids:
            if x == c or x in group:
                out.append(f"[{self.name}] started #{x}")
                self.count[x] = 0
                self.restarts[x] += 1
        return True, out


SEQUENTIAL = """
T class >> drive: sup targets: ts =
    ts do: [:id |
        ('work ' , id printString) displayNl.
        a := sup at: id.
        r := (a ask: Work new) await.
        r = #crashing ifTrue: [
            Actor self monitor: a.
            T waitFor: a.
            sup children
        ]
    ].

spec := (SupervisorSpec name: #sup strategy: #{strategy} children: {{
{specs}
}}) onEvent: ev.
sup := Supervisor start: (spec maxRestarts: 100000 within: 60000).
T drive: sup targets: #({targets}).
(T restarts: sup) printNl.
sup stop.
'done' displayNl.
"""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("seed", range(8))
def test_random_crashes_sequential(tmp_path, strategy, seed):
    ids, crash_on, targets = plan(seed * 7 + STRATEGIES.index(strategy))
    src = SEQUENTIAL.format(strategy=strategy, specs=specs(ids, crash_on), targets=" ".join(targets))
    out = run_ok(src, tmp_path, domains=2).splitlines()

    m = Model("sup", strategy, ids, crash_on)
    expected = [f"[sup] started #{c}" for c in ids]
    crashes = 0
    for t in targets:
        expected.append(f"work #{t}")
        crashed, events = m.work(t)
        crashes += crashed
        expected += events
    expected.append("#(" + " ".join(str(m.restarts[c]) for c in ids) + ")")
    expected += [f"[sup] stopped #{c} (shutdown)" for c in reversed(ids)]
    expected.append("done")
    assert crashes > 0
    assert out == expected


PARALLEL = """
"Wait for the Downs of all these actors, in whatever order they come."
T class >> waitAll: actors =
    actors isEmpty ifTrue: [nil] ifFalse: [
        Actor self receive: {{ Down -> [:d | T waitAll: (actors reject: [:a | a = d actor])] }}
    ].

"Each round sends Work to several children at once; the crashing ones die concurrently."
T class >> drive: sup rounds: rounds =
    rounds do: [:ids |
        ('round ' , ids printString) displayNl.
        actors := ids collect: [:id | sup at: id].
        futures := actors collect: [:a | a ask: Work new].
        answers := futures collect: [:f | f await].
        crashed := (1 to: actors size collect: [:i | i]) inject: {{}} into: [:acc :i |
            (answers at: i) = #crashing ifTrue: [acc with: (actors at: i)] ifFalse: [acc]].
        crashed do: [:a | Actor self monitor: a].
        T waitAll: crashed.
        sup children
    ].

spec := (SupervisorSpec name: #par strategy: #oneForOne children: {{
{specs}
}}) onEvent: ev.
sup := Supervisor start: (spec maxRestarts: 100000 within: 60000).
T drive: sup rounds: #({rounds}).
(T restarts: sup) printNl.
sup stop.
'done' displayNl.
"""


@pytest.mark.parametrize("seed", range(8))
def test_random_concurrent_crashes_one_for_one(tmp_path, seed):
    rng = random.Random(1000 + seed)
    ids, crash_on, _ = plan(1000 + seed)
    rounds = [rng.sample(ids, rng.randint(2, len(ids))) for _ in range(12)]
    src = PARALLEL.format(specs=specs(ids, crash_on),
                          rounds=" ".join("(" + " ".join(r) + ")" for r in rounds))
    out = run_ok(src, tmp_path, domains=2).splitlines()

    m = Model("par", "oneForOne", ids, crash_on)
    assert out[:len(ids)] == [f"[par] started #{c}" for c in ids]
    pos = len(ids)
    for r in rounds:
        assert out[pos] == "round #(" + " ".join(f"#{c}" for c in r) + ")"
        pos += 1
        expected = []
        for c in r:
            expected += m.work(c)[1]
        got = out[pos:pos + len(expected)]
        pos += len(expected)
        # Concurrent deaths are handled in the order their Downs arrive: the same
        # events, and for each child its exit comes before its restart.
        assert Counter(got) == Counter(expected)
        for c in r:
            mine = [x for x in got if f"#{c} " in x or x.endswith(f"#{c}")]
            assert mine == [x for x in expected if f"#{c} " in x or x.endswith(f"#{c}")]
    assert out[pos] == "#(" + " ".join(str(m.restarts[c]) for c in ids) + ")"
    assert out[pos + 1:] == [f"[par] stopped #{c} (shutdown)" for c in reversed(ids)] + ["done"]
    assert sum(m.restarts.values()) > 0
