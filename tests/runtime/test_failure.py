"""Links, monitors, exit trapping, exit signals and error reasons from Python step actors."""
import gc

from lp.runtime import (EDEADLOCK, ERROR, KILLED, NORMAL, TIMEOUT, YIELD, Down, Exit, Receive, Runtime,
                        Sleep)


class Boom(Exception):
    pass


def run_main(domains, genfn, **kw):
    unobserved = []
    # deadlock detection on: a test whose actors wait for what never comes fails at once
    rt = Runtime(domains=domains, on_unobserved=lambda aid, kind, reason: unobserved.append((aid, kind, reason)),
                 on_deadlock=lambda: None)
    out = {}
    main = rt.spawn_gen(genfn, rt, out, **kw)
    assert rt.run(main) != EDEADLOCK, "every actor is waiting for good"
    del main
    gc.collect()
    assert rt.live_values == 0
    out["unobserved"] = unobserved
    return out


def crasher(me, delay=0):
    if delay:
        yield Sleep(delay)
    yield Receive(lambda m: m == "crash")
    raise Boom("bad")


def waiter(me):
    yield Receive(lambda m: False)


def quick(me):
    return
    yield


def test_monitor_gets_down_with_exception_reason(domains):
    def main(me, rt, out):
        c, ref = rt.spawn_gen(crasher, monitor=me)
        c.send("crash")
        d = yield Receive(lambda m: isinstance(m, Down))
        out["down"] = (d.actor == c, d.ref == ref, d.reason, type(d.reason_value), str(d.reason_value))
        out["dead"] = c.dead_reason()[0]

    out = run_main(domains, main)
    assert out["down"] == (True, True, ERROR, Boom, "bad")
    assert out["dead"] == ERROR
    assert out["unobserved"] == []


def test_link_propagates_and_trap_turns_it_into_exit(domains):
    def main(me, rt, out):
        me.trap_exits(True)
        c = rt.spawn_gen(crasher)
        w = rt.spawn_gen(waiter)
        _, wref = rt.spawn_gen(waiter, monitor=me)  # unrelated, stays alive
        assert me.link(c) == 0
        wm = me.monitor(w)
        # w <-> c linked before c can run
        c2 = rt.spawn_gen(crasher, link=w)
        c2.send("crash")
        d = yield Receive(lambda m: isinstance(m, Down) and m.ref == wm)
        out["w_reason"] = (d.reason, str(d.reason_value))
        c.send("crash")
        e = yield Receive(lambda m: isinstance(m, Exit))
        out["exit"] = (e.actor == c, e.reason, str(e.reason_value))
        out["alive"] = me.state

    out = run_main(domains, main)
    assert out["w_reason"] == (ERROR, "bad")
    assert out["exit"] == (True, ERROR, "bad")
    assert out["alive"] == "running"


def test_late_registration(domains):
    def main(me, rt, out):
        a, _ = rt.spawn_gen(quick, monitor=me)
        yield Receive(lambda m: isinstance(m, Down))
        b, _ = rt.spawn_gen(crasher, monitor=me)
        b.send("crash")
        yield Receive(lambda m: isinstance(m, Down))
        # monitor of a dead actor: Down at once with the recorded reason
        ref = me.monitor(b)
        d = yield Receive(lambda m: isinstance(m, Down), timeout_ms=1000)
        out["late_down"] = (d.ref == ref, d.reason, str(d.reason_value))
        # link to a dead actor: error code, or an Exit when trapping
        out["link_dead"] = me.link(a)
        me.trap_exits(True)
        out["link_dead_trapping"] = me.link(b)
        e = yield Receive(lambda m: isinstance(m, Exit), timeout_ms=1000)
        out["late_exit"] = (e.actor == b, e.reason)

    out = run_main(domains, main)
    assert out["late_down"] == (True, ERROR, "bad")
    assert out["link_dead"] == -1
    assert out["link_dead_trapping"] == 1
    assert out["late_exit"] == (True, ERROR)


def test_demonitor(domains):
    def main(me, rt, out):
        c, ref = rt.spawn_gen(crasher, monitor=me)
        out["removed"] = me.demonitor(c, ref)
        c.send("crash")
        ref2 = me.monitor(c)
        d = yield Receive(lambda m: isinstance(m, Down))
        out["ref"] = d.ref == ref2
        out["more"] = yield Receive(lambda m: isinstance(m, Down), timeout_ms=20)

    out = run_main(domains, main)
    assert out["removed"] is True and out["ref"] is True and out["more"] is TIMEOUT


def test_kill_running_and_waiting_actors(domains):
    exits = []

    def spinner(me):
        while True:
            if me.reductions(50):
                return YIELD

    def main(me, rt, out):
        s, sref = rt.spawn(spinner, monitor=me, on_exit=lambda a, k, v: exits.append(("spin", k)))
        w, wref = rt.spawn_gen(waiter, monitor=me)
        t, tref = rt.spawn_gen(waiter, monitor=me, trap_exits=True)
        yield Sleep(2)
        w.exit(NORMAL)                # ignored: not trapping
        t.exit(ERROR, "why", sender=me)  # trapped: becomes a message
        s.exit(KILLED)
        w.exit(ERROR, "stop")
        reasons = {}
        for _ in range(2):
            d = yield Receive(lambda m: isinstance(m, Down))
            reasons[d.ref] = (d.reason, d.reason_value)
        out["spin"] = reasons[sref]
        out["wait"] = reasons[wref]
        out["t_mail"] = t.mailbox_len
        t.exit(KILLED)                # untrappable
        d = yield Receive(lambda m: isinstance(m, Down))
        out["t"] = (d.ref == tref, d.reason)

    out = run_main(domains, main)
    assert out["spin"] == (KILLED, None)
    assert out["wait"] == (ERROR, "stop")
    assert out["t_mail"] == 1
    assert out["t"] == (True, KILLED)
    assert exits == [("spin", KILLED)]


def test_unobserved_abnormal_death_is_reported(domains):
    def main(me, rt, out):
        c = rt.spawn_gen(crasher)
        out["id"] = c.id
        c.send("crash")
        while c.dead_reason() is None:
            yield Sleep(1)
        q = rt.spawn_gen(quick)  # normal death: not reported
        while q.dead_reason() is None:
            yield Sleep(1)

    out = run_main(domains, main)
    assert len(out["unobserved"]) == 1
    aid, kind, reason = out["unobserved"][0]
    assert aid == out["id"] and kind == ERROR and isinstance(reason, Boom)


def test_exception_in_raw_step_becomes_error_reason(domains):
    rt = Runtime(domains=domains, on_unobserved=lambda *a: None)

    def bad(me):
        raise ValueError("nope")

    seen = {}

    def main(me, rt):
        b, ref = rt.spawn(bad, monitor=me)
        d = yield Receive(lambda m: isinstance(m, Down))
        seen["r"] = (d.reason, type(d.reason_value).__name__)

    m = rt.spawn_gen(main, rt)
    assert rt.run(m) == NORMAL
    assert seen["r"] == (ERROR, "ValueError")


def test_main_error_reason_is_returned(domains):
    rt = Runtime(domains=domains, on_unobserved=lambda *a: None)

    def main(me):
        raise Boom("main")
        yield

    m = rt.spawn_gen(main)
    assert rt.run(m) == ERROR
    assert m.dead_reason()[0] == ERROR


def test_remaining_actors_are_stopped_at_shutdown(domains):
    exits = []
    rt = Runtime(domains=domains)

    def main(me, rt):
        for i in range(10):
            rt.spawn_gen(waiter, on_exit=lambda a, k, v: exits.append(k))
        yield Sleep(1)

    m = rt.spawn_gen(main, rt)
    rt.run(m)
    assert exits == [KILLED] * 10
    del m
    gc.collect()
    assert rt.live_values == 0
