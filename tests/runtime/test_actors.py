"""Step actors driven from Python through the C runtime: messaging, selective
receive, timeouts, snapshots. Assertions are about behaviour, never timing."""
import gc

from lp.runtime import (BLOCK, DONE, EDEADLOCK, TIMEOUT, YIELD, Receive, Runtime, Sleep, WAKE_MESSAGE,
                        WAKE_START, WAKE_YIELD)


def run_main(domains, genfn, *args):
    # deadlock detection on: a test whose actors wait for what never comes fails at once
    rt = Runtime(domains=domains, on_deadlock=lambda: None)
    out = {}
    main = rt.spawn_gen(genfn, rt, out, *args)
    assert rt.run(main) != EDEADLOCK, "every actor is waiting for good"
    del main
    gc.collect()
    assert rt.live_values == 0
    return out


def test_ping_pong_generators(domains):
    def pong(me):
        while True:
            msg = yield Receive()
            if msg == "stop":
                return
            sender, n = msg
            sender.send(("pong", n))

    def main(me, rt, out):
        p = rt.spawn_gen(pong)
        total = 0
        for i in range(300):
            p.send((me, i))
            tag, n = yield Receive()
            assert tag == "pong" and n == i
            total += n
        p.send("stop")
        out["total"] = total

    assert run_main(domains, main)["total"] == sum(range(300))


def test_ping_pong_raw_step_functions(domains):
    rt = Runtime(domains=domains)
    log = []

    def make_pong():
        def step(me):
            for m in me.messages():
                v = me.take(m)
                if v is None:
                    return DONE
                v[0].send(v[1] + 1)
            me.wait_receive(0)
            return BLOCK
        return step

    pong = rt.spawn(make_pong())
    state = {"n": 0, "sent": False, "ended": None}
    expected_wake = {None: WAKE_START, BLOCK: WAKE_MESSAGE, YIELD: WAKE_YIELD}

    def main_step(me):
        assert me.wake_reason == expected_wake[state["ended"]]
        if me.wake_reason == WAKE_START:
            assert not state["sent"]
        while True:
            if not state["sent"]:
                pong.send((me, state["n"]))
                state["sent"] = True
            m = me.first()
            if m is None:
                me.wait_receive(0)
                state["ended"] = BLOCK
                return BLOCK
            v = me.take(m)
            log.append(v)
            state["n"] = v
            state["sent"] = False
            if v >= 200:
                pong.send(None)
                return DONE
            if me.reductions(10):
                state["ended"] = YIELD
                return YIELD

    main = rt.spawn(main_step)
    rt.run(main)
    assert log == list(range(1, 201))


def test_selective_receive_keeps_order_of_the_rest(domains):
    def main(me, rt, out):
        for i in range(20):
            me.send(("a", i))
            me.send(("b", i))
        bs = []
        for _ in range(20):
            bs.append((yield Receive(lambda m: m[0] == "b"))[1])
        rest = []
        for _ in range(20):
            rest.append((yield Receive())[1])
        out["bs"], out["rest"] = bs, rest

    out = run_main(domains, main)
    assert out["bs"] == list(range(20))
    assert out["rest"] == list(range(20))


def test_selective_receive_wakes_on_later_match(domains):
    def sender(me, target):
        for i in range(50):
            target.send(("noise", i))
            if i % 10 == 0:
                yield Sleep(1)
        target.send(("wanted", 99))

    def main(me, rt, out):
        rt.spawn_gen(sender, me)
        got = yield Receive(lambda m: m[0] == "wanted")
        out["got"] = got
        out["left"] = me.mailbox_len
        noise = []
        while True:
            m = yield Receive(timeout_ms=0)
            if m is TIMEOUT:
                break
            noise.append(m[1])
        out["noise"] = noise

    out = run_main(domains, main)
    assert out["got"] == ("wanted", 99)
    assert out["left"] == 50
    assert out["noise"] == list(range(50))


def test_receive_timeout_and_late_message_is_kept(domains):
    def late(me, target):
        msg = yield Receive()
        assert msg == "go"
        target.send("late")

    def main(me, rt, out):
        helper = rt.spawn_gen(late, me)
        out["first"] = yield Receive(timeout_ms=5)
        helper.send("go")
        out["second"] = yield Receive()

    out = run_main(domains, main)
    assert out["first"] is TIMEOUT
    assert out["second"] == "late"


def test_sleep_then_receive(domains):
    def main(me, rt, out):
        yield Sleep(3)
        me.send(1)
        out["v"] = yield Receive(timeout_ms=1000)

    assert run_main(domains, main)["v"] == 1


def test_many_actors_and_snapshot(domains):
    def idle(me):
        yield Receive(lambda m: m == "never")

    def main(me, rt, out):
        kids = [rt.spawn_gen(idle) for _ in range(30)]
        for k in kids[:10]:
            k.send("x")
            k.send("y")
        yield Sleep(5)
        snap = {a["id"]: a for a in rt.snapshot()}
        out["snap"] = [snap[k.id] for k in kids]
        out["me"] = snap[me.id]

    out = run_main(domains, main)
    assert all(s["kind"] == "step" for s in out["snap"])
    assert [s["mailbox"] for s in out["snap"]] == [2] * 10 + [0] * 20
    assert out["me"]["state"] == "running"


def test_values_are_released_when_mailboxes_are_dropped(domains):
    rt = Runtime(domains=domains)

    def sink(me):
        yield Receive(lambda m: False)

    def main(me, rt):
        s = rt.spawn_gen(sink)
        for i in range(100):
            s.send({"payload": i})
        yield Sleep(1)

    m = rt.spawn_gen(main, rt)
    rt.run(m)
    del m
    gc.collect()
    assert rt.live_values == 0


def test_timeouts_saturate_and_negative_ones_count_as_zero(domains):
    def late(me, target):
        yield Sleep(20)
        target.send("late")

    def main(me, rt, out):
        rt.spawn_gen(late, me)
        out["huge"] = yield Receive(timeout_ms=10 ** 30)
        out["negative"] = yield Receive(timeout_ms=-5)
        me.send("here")
        out["negative_here"] = yield Receive(timeout_ms=-5)
        yield Sleep(-10)

    out = run_main(domains, main)
    assert out == {"huge": "late", "negative": TIMEOUT, "negative_here": "here"}
