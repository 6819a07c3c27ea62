"""A failed assertion inside any actor fails the run at once (Runtime.run raises it) instead of
leaving the others waiting; the deadlock hook fires for the Python binding too."""
import gc
import time

import pytest

from lp.runtime import DROP, EDEADLOCK, NORMAL, Receive, Runtime, Sleep


def test_an_assertion_failing_in_another_actor_stops_the_run(domains):
    rt = Runtime(domains=domains, on_unobserved=lambda *a: None)

    def checker(me):
        yield Receive()
        assert 1 + 1 == 3, "inside an actor"

    def main(me, rt):
        c = rt.spawn_gen(checker)
        c.send("check")
        yield Receive(lambda m: m == "never sent")   # would wait forever

    m = rt.spawn_gen(main, rt)
    t0 = time.monotonic()
    with pytest.raises(AssertionError, match="inside an actor"):
        rt.run(m)
    assert time.monotonic() - t0 < 30


def test_other_exceptions_stay_the_actors_exit_reason(domains):
    rt = Runtime(domains=domains, on_unobserved=lambda *a: None)

    def bad(me):
        raise KeyError("k")

    def main(me, rt):
        rt.spawn(bad)
        yield Sleep(1)

    assert rt.run(rt.spawn_gen(main, rt)) == NORMAL
    assert [type(e) for e in rt.step_errors] == [KeyError]


def test_deadlock_hook_and_result(domains):
    seen = []

    def stuck(me):
        yield Receive()

    def main(me, rt):
        rt.spawn_gen(stuck)
        yield Sleep(2)
        yield Receive()

    rt = Runtime(domains=domains, on_deadlock=lambda: seen.append(sorted(a["state"] for a in rt.snapshot())))
    m = rt.spawn_gen(main, rt)
    assert rt.run(m) == EDEADLOCK
    assert seen == [["waiting", "waiting"]]
    del m
    gc.collect()
    assert rt.live_values == 0


def test_select_drops_and_takes(domains):
    out = {}

    def main(me, rt):
        for v in ["stale", 1, "stale", 2, 3]:
            me.send(v)
        yield Sleep(0)
        m, payload, verdict = me.select(lambda p: DROP if p == "stale" else (p if p == 2 else None))
        out["hit"] = (payload, verdict)
        me.raw_take(m)
        m, cursor, verdict = me.select(lambda p: None)
        out["rest"] = [x.payload for x in me.messages()]
        out["end"] = (m, verdict, cursor > 0)

    rt = Runtime(domains=domains)
    rt.run(rt.spawn_gen(main, rt))
    assert out == {"hit": (2, 2), "rest": [1, 3], "end": (None, None, True)}
