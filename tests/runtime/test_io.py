"""fd readiness and DNS from Python step actors: the domain thread never blocks."""
import socket

from lp.runtime import (DONE, READ, WAKE_FD, WAKE_RESOLVED, WAKE_START, WAKE_TIMEOUT,
                        Runtime)


def test_fd_wait_and_timeout(domains):
    a, b = socket.socketpair()
    a.setblocking(False)
    rt = Runtime(domains=domains)
    seen = []

    def reader(me):
        r = me.wake_reason
        if r == WAKE_START:
            return me.wait_fd(a.fileno(), READ, timeout_ms=5)
        if r == WAKE_TIMEOUT and not seen:
            seen.append("timeout")
            b.send(b"x")  # now data is there: the next wait completes
            return me.wait_fd(a.fileno(), READ)
        assert r == WAKE_FD
        seen.append(a.recv(1))
        return DONE

    m = rt.spawn(reader)
    rt.run(m)
    assert seen == ["timeout", b"x"]
    a.close()
    b.close()


def test_resolver(domains):
    rt = Runtime(domains=domains)
    out = {}

    def resolver(me):
        if me.wake_reason == WAKE_START:
            return me.wait_resolve("127.0.0.1", 8080, family=socket.AF_INET, socktype=socket.SOCK_STREAM)
        assert me.wake_reason == WAKE_RESOLVED
        out["r"] = me.resolved()
        return DONE

    m = rt.spawn(resolver)
    rt.run(m)
    status, addrs = out["r"]
    assert status == 0 and addrs[0] == (socket.AF_INET, "127.0.0.1", 8080)
