"""Connection pooling for request/response clients (the Http module, later Remote):
`TCP pooledConnect: host port: p timeout: ms` answers an idle pooled connection to host:port
that still looks usable (the peer has not closed it nor sent anything unasked), or a fresh one;
`sock release` gives it back (at most 8 idle per host:port, the rest are closed); `sock isReused`
tells a caller whether to retry once on a fresh connection when a reused one turns out dead.
The pool belongs to the running program (the Interpreter), shared by all its actors; it is
only touched under the GIL, and a socket taken out of it is owned by its taker alone."""
from __future__ import annotations

from lp.interp.net_values import Socket
from lp.interp.prims_net import _connect, _int_arg, _str_arg, fail
from lp.interp.registry import prim
from lp.runtime.binding import lib

MAX_IDLE = 8


def _pool(interp) -> dict:
    pool = getattr(interp, "net_pool", None)
    if pool is None:
        pool = interp.net_pool = {}
    return pool


@prim("TCP", "pooledConnect:port:timeout:", class_side=True)
def _pooled(p, cls, host, port, ms):
    what = "TCP pooledConnect:port:timeout:"
    if p.stack[-1].wait is None:       # not resuming a fresh connect
        _str_arg(p, host, what)
        _int_arg(p, port, what)
        idle = _pool(p.interp).get((host, port))
        while idle:
            s = idle.pop()
            if s.conn is not None and not s.busy and lib.lprt_conn_reusable(s.conn):
                s.reused = True
                return s
            s.close()
    s = _connect(p, cls, host, port, ms)
    if type(s) is Socket:
        s.pool_key = (host, port)
    return s


@prim("TCPSocket", "release")
def _release(p, s):
    if s.busy:
        fail(p, "NetworkError", "release: the socket is in use by another actor")
    if s.conn is None or s.pool_key is None:
        s.close()
        return None
    idle = _pool(p.interp).setdefault(s.pool_key, [])
    if len(idle) < MAX_IDLE and s not in idle:
        idle.append(s)
    else:
        s.close()
    return None


@prim("TCPSocket", "isReused")
def _is_reused(p, s):
    return s.reused
