"""TCP for LP programs: `TCP connect:port:timeout:`, `TCP listen:` / `listenHost:port:`,
`TCPListener accept:`, `TCPSocket readLine:`, `readBytes:timeout:`, `write:` ... over the
runtime's non-blocking socket layer (runtime/net_*.c).

No call blocks a domain thread. A call that would block registers an fd wait with its
deadline (lprt_wait_fd), records it in the frame and answers SUSPEND; when the actor wakes,
the machine repeats the same send, which finds `frame.wait` and carries on. The one rule for
bounded reads: clean end of stream answers `Maybe none`, a passed deadline raises `Timeout`,
and refused / reset / DNS failures raise their own NetworkError subclasses."""
from __future__ import annotations

import errno
import ipaddress
import os
import socket as pysocket
import time

from lp.interp.actors import deadline_after
from lp.interp.errors import LPRaise, make_error, said
from lp.interp.net_values import Connecting, Listener, Socket
from lp.interp.registry import prim
from lp.interp.values import NONE, Maybe
from lp.interp.vm import SUSPEND
from lp.runtime import binding as rt
from lp.runtime.binding import ffi, lib

LINE_LIMIT = 65536
WANT_READ, WANT_WRITE = lib.LPRT_NET_WANT_READ, lib.LPRT_NET_WANT_WRITE
EOF_, TOO_LONG, TRUNCATED = lib.LPRT_NET_EOF, lib.LPRT_NET_TOO_LONG, lib.LPRT_NET_TRUNCATED
_RESET = {errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED}


def fail(p, cls, text):
    p.stack[-1].wait = None
    raise LPRaise(make_error(p.interp, text, cls))


def os_error(p, code, what):
    """The LP error for -errno `code` during `what`."""
    e = -code
    text = os.strerror(e)
    if e == errno.ECONNREFUSED:
        fail(p, "ConnectionRefused", said(what, "connection refused"))
    if e in _RESET:
        fail(p, "ConnectionReset", said(what, f"connection reset by the peer ({text})"))
    if e == errno.ETIMEDOUT:
        fail(p, "Timeout", said(what, f"the network timed out ({text})"))
    fail(p, "NetworkError", said(what, text))


def _ms(p, ms, what):
    """The deadline `ms` milliseconds from now, as lprt_deadline_ms makes it. Computed here when the
    runtime's clock is the monotonic clock (not `lp test`'s simulated one): a call into C releases the
    interpreter's lock, and on two domains each release can hand it to the other domain's thread."""
    r = p.interp.runtime
    if r is None or r.deterministic or (type(ms) is not int and type(ms) is not float):
        return deadline_after(p.interp, ms, what + " timeout")
    return rt.monotonic_deadline_after(ms)


def now(p):
    """The runtime's clock (lprt_now), read as _ms reads it."""
    r = p.interp.runtime
    return lib.lprt_now() if r is None or r.deterministic else time.monotonic_ns()


def no_waits_in_simulation(p, what):
    """`lp test`'s deterministic mode owns time and the schedule, and the network owns neither:
    the network library's waits are not supported there (docs/testing.md)."""
    if p.interp.runtime is not None and p.interp.runtime.deterministic:
        fail(p, "NetworkError", f"{what} would wait for the network, which deterministic mode "
                                "(lp test --seed) does not support; run the test with --real")


def wait_for(p, fd, code, deadline, state, what, ms, mail=False):
    """`code` said "would block": raise Timeout if the deadline has passed, else register
    the fd wait and answer SUSPEND (the send runs again when the actor wakes). With `mail`,
    a message reaching the actor's mailbox also ends the wait."""
    frame = p.stack[-1]
    no_waits_in_simulation(p, what)
    if deadline != -1 and now(p) >= deadline:
        fail(p, "Timeout", f"{what} timed out after {_fmt(ms)} ms")
    frame.wait = ("net", deadline, state)
    events = rt.WRITE if code == WANT_WRITE else rt.READ
    if mail:
        p.ctx.wait_fd_or_receive(fd, events, 0, deadline)
    else:
        p.ctx.wait_fd(fd, events, deadline=deadline)
    return SUSPEND


def _fmt(ms):
    ms = ms if ms > 0 else 0   # a negative timeout counts as 0
    return str(int(ms)) if type(ms) is float and ms == int(ms) else str(ms)


def _started(p, ms, what):
    """(deadline, state) of this send: fresh, or the ones its previous run recorded."""
    w = p.stack[-1].wait
    if w is None:
        return _ms(p, ms, what), None
    return w[1], w[2]


def _int_arg(p, v, what):
    if type(v) is not int:
        fail(p, "Error", f"{what} expects an Integer, not {p.interp.describe(v)}")
    return v


def limit_arg(p, v, what, name="the limit"):
    """An Integer argument that bounds a read: between 1 and 2^30."""
    _int_arg(p, v, what)
    if not 0 < v <= 1 << 30:
        fail(p, "Error", f"{what} {name} must be between 1 and 2^30, not {v}")
    return v


def _str_arg(p, v, what):
    if type(v) is not str:
        fail(p, "Error", f"{what} expects a String, not {p.interp.describe(v)}")
    return v


def use(p, s, what):
    """Marks a socket busy for one call into C (which releases the GIL); the caller clears
    s.busy when the call returns (_Use does both, for calls off the request path)."""
    if type(s) is Socket and s.conn is None or type(s) is not Socket and s.fd < 0:
        fail(p, "NetworkError", said(what, "the socket is closed"))
    if s.busy:
        fail(p, "NetworkError", said(what, "the socket is in use by another actor"))
    s.busy = True


class _Use:
    """Marks a socket busy for one call into C, as a context manager."""
    __slots__ = ("s",)

    def __init__(self, p, s, what):
        use(p, s, what)
        self.s = s

    def __enter__(self):
        return self.s

    def __exit__(self, *a):
        self.s.busy = False


# ---- connecting

def _numeric(host):
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


@prim("TCP", "connect:port:timeout:", class_side=True)
def _connect(p, cls, host, port, ms):
    what = "TCP connect:port:timeout:"
    frame = p.stack[-1]
    w = frame.wait
    ctx = p.ctx
    if w is None:
        _str_arg(p, host, what)
        _int_arg(p, port, what)
        if not 0 < port < 65536:
            fail(p, "Error", said(what, f"port {port} is not between 1 and 65535"))
        deadline = _ms(p, ms, what)
        if _numeric(host):
            st = Connecting(host, port, [host])
        else:
            st = Connecting(host, port, None)
            no_waits_in_simulation(p, f"connect to {host}:{port}")
            frame.wait = ("dns", deadline, st)
            lib.lprt_wait_resolve(ctx._ptr, host.encode(), ffi.NULL, pysocket.AF_UNSPEC, pysocket.SOCK_STREAM,
                                  deadline)
            return SUSPEND
    else:
        deadline, st = w[1], w[2]
        if w[0] == "dns":
            if ctx.wake_reason != rt.WAKE_RESOLVED:
                fail(p, "Timeout", f"connect to {host}:{port} timed out after {_fmt(ms)} ms "
                                   "(resolving the name)")
            status, found = ctx.resolved()
            if status != 0 or not found:
                msg = ffi.string(lib.lprt_py_gai_strerror(status)).decode() if status else "no address"
                fail(p, "DNSError", f"cannot resolve host '{host}': {msg}")
            st.addrs = list(dict.fromkeys(a for _fam, a, _port in found))
    fdp = ffi.new("int *")
    while True:
        if st.fd < 0:
            if not st.addrs:
                frame.wait = None
                raise st.last_error
            addr = st.addrs.pop(0)
            r = lib.lprt_net_connect(addr.encode(), port, fdp)
            st.fd = fdp[0]
        else:
            r = lib.lprt_net_connect_result(st.fd)
        if r == 0:
            fd, st.fd = st.fd, -1
            frame.wait = None
            return Socket(fd, f"{host}:{port}")
        if r == WANT_WRITE:
            if deadline != -1 and lib.lprt_now() >= deadline:
                st.close()
                fail(p, "Timeout", f"connect to {host}:{port} timed out after {_fmt(ms)} ms")
            no_waits_in_simulation(p, f"connect to {host}:{port}")
            frame.wait = ("connect", deadline, st)
            ctx.wait_fd(st.fd, rt.WRITE, deadline=deadline)
            return SUSPEND
        st.close()
        try:
            os_error(p, r, f"connect to {host}:{port}")
        except LPRaise as e:
            st.last_error = e


# ---- listening

def _listen(p, addr, port, what):
    _int_arg(p, port, what)
    if not 0 <= port < 65536:
        fail(p, "Error", said(what, f"port {port} is not between 0 and 65535"))
    if addr is not None:
        _str_arg(p, addr, what)
        if addr == "localhost":
            addr = "127.0.0.1"
        if not _numeric(addr):
            fail(p, "Error", f"{what} needs a numeric local address such as 127.0.0.1 or ::1, not '{addr}'")
    fdp = ffi.new("int *")
    r = lib.lprt_net_listen(addr.encode() if addr else ffi.NULL, port, 1024, fdp)
    where = f"{addr or '*'}:{port}"
    if r != 0:
        if -r == errno.EADDRINUSE:
            fail(p, "NetworkError", f"cannot listen on {where}: the address is already in use")
        os_error(p, r, f"cannot listen on {where}")
    return Listener(fdp[0], f"{addr or '*'}:{lib.lprt_net_local_port(fdp[0])}")   # the port 0 picked


@prim("TCP", "listen:", class_side=True)
def _listen_any(p, cls, port):
    return _listen(p, None, port, "TCP listen:")


@prim("TCP", "listenHost:port:", class_side=True)
def _listen_host(p, cls, addr, port):
    return _listen(p, addr, port, "TCP listenHost:port:")


# a listener's and a UDP socket's (net_values.BoundSocket)
@prim("TCPListener", "port")
@prim("UDPSocket", "port")
def _port(p, s):
    return s.port


@prim("TCPListener", "close")
@prim("UDPSocket", "close")
def _bound_close(p, s):
    if s.busy:
        what = "listener" if type(s) is Listener else "socket"
        fail(p, "NetworkError", f"close: the {what} is in use by another actor")
    s.close()
    return None


@prim("TCPListener", "accept:")
def _accept(p, ls, ms):
    what = "accept:"
    deadline, _ = _started(p, ms, what)
    fdp = ffi.new("int *")
    with _Use(p, ls, what):
        r = lib.lprt_net_accept(ls.fd, fdp)
    if r == 0:
        p.stack[-1].wait = None
        return Socket(fdp[0], f"a client of {ls.where}")
    if r == WANT_READ:
        return wait_for(p, ls.fd, r, deadline, None, what, ms)
    os_error(p, r, what)


# ---- reading

def would_block(r) -> bool:
    return r == WANT_READ or r == WANT_WRITE    # TLS may need to write before it can read


def read_some(p, s, what, read, *args):
    """One non-blocking read of the socket's C layer, `read(conn, *args, out)` (lprt_conn_read_line,
    lprt_ws_read_frame, ...), run with the socket marked busy: (r, the bytes it answered when
    r >= 0, else None). A negative r is "would block" (would_block) or how the read ended."""
    out = ffi.new("char **")
    with _Use(p, s, what):
        r = read(s.conn, *args, out)
    return r, (bytes(ffi.buffer(out[0], r)) if r >= 0 else None)


def _read_result(p, s, r, data, what, ms, deadline, decode):
    if r >= 0:
        p.stack[-1].wait = None
        if not decode:
            return Maybe(True, data)
        return Maybe(True, data.decode("utf-8"))     # lprt_conn_read_line checked it
    if would_block(r):
        return wait_for(p, s.fd, r, deadline, None, what, ms)
    p.stack[-1].wait = None
    if r == EOF_:
        return NONE
    if r == TOO_LONG:
        fail(p, "LimitExceeded", said(what, f"the line is longer than {decode} bytes"))
    if r == lib.LPRT_NET_NOT_TEXT:
        fail(p, "NetworkError", said(what, "the line is not UTF-8 text (it is still unread: read it with "
                                            "readBytes:timeout:)"))
    if r == TRUNCATED:
        fail(p, "ConnectionClosed", said(what, f"the peer ({s.peer}) closed the connection in the middle of the data"))
    if r == lib.LPRT_NET_TLS:
        tls_error(p, s, what)
    os_error(p, r, f"{what} from {s.peer}")


def tls_error(p, s, what):
    fail(p, "TLSError", f"{what} {s.peer}: {ffi.string(lib.lprt_tls_error(s.conn)).decode(errors='replace')}")


def read_line(p, s, ms, limit, what):
    deadline, _ = _started(p, ms, what)
    r, data = read_some(p, s, what, lib.lprt_conn_read_line, limit)
    return _read_result(p, s, r, data, what, ms, deadline, limit)


@prim("TCPSocket", "readLine:")
def _read_line(p, s, ms):
    return read_line(p, s, ms, LINE_LIMIT, "readLine:")


@prim("TCPSocket", "readLine:limit:")
def _read_line_limit(p, s, ms, limit):
    return read_line(p, s, ms, limit_arg(p, limit, "readLine:limit:"), "readLine:limit:")


@prim("TCPSocket", "readBytes:timeout:")
def _read_bytes(p, s, n, ms):
    what = "readBytes:timeout:"
    limit_arg(p, n, what, "the count")
    deadline, _ = _started(p, ms, what)
    r, data = read_some(p, s, what, lib.lprt_conn_read_exact, n)
    return _read_result(p, s, r, data, what, ms, deadline, None)


# ---- writing

def write_some(p, s, data, off: int, what, size=None):
    """Write data[off:size] (bytes, or a cdata buffer of `size` bytes) until all is written, the
    socket would block or the write fails, with the socket marked busy: (the offset reached, the
    last C result)."""
    if size is None:
        size = len(data)
        data = ffi.from_buffer(data)
    r = 0
    use(p, s, what)
    try:
        while off < size:
            r = lib.lprt_conn_write(s.conn, data + off, size - off)
            if r <= 0:
                break
            off += r
    finally:
        s.busy = False
    return off, r


def write(p, s, data, ms, what, first=None):
    """Write all of `data` (bytes), waiting while the socket's buffer is full. `first` is the
    (offset, C result) of a write_some the caller already made from the same bytes. When the send
    runs again after a wait, the bytes are the ones the write began with (`data` is not used)."""
    frame = p.stack[-1]
    w = frame.wait
    if w is not None:
        deadline, (off, data) = w[1], w[2]
        off, r = write_some(p, s, data, off, what)
    else:
        deadline = -1 if ms is None else _ms(p, ms, what)
        off, r = first if first is not None else write_some(p, s, data, 0, what)
    if off >= len(data):
        frame.wait = None
        return len(data)
    if would_block(r):
        return wait_for(p, s.fd, r, deadline, (off, data), what, ms)
    if r == lib.LPRT_NET_TLS:
        tls_error(p, s, what)
    os_error(p, r, f"{what} to {s.peer}")


@prim("TCPSocket", "write:")
def _write(p, s, text):
    return write(p, s, _str_arg(p, text, "write:").encode("utf-8"), None, "write:")


@prim("TCPSocket", "write:timeout:")
def _write_timeout(p, s, text, ms):
    return write(p, s, _str_arg(p, text, "write:timeout:").encode("utf-8"), ms, "write:timeout:")


def _bytes_arg(p, v, what):
    if type(v) is not bytes:
        fail(p, "Error", f"{what} expects a ByteArray, not {p.interp.describe(v)}")
    return v


@prim("TCPSocket", "writeBytes:")
def _write_bytes(p, s, data):
    return write(p, s, _bytes_arg(p, data, "writeBytes:"), None, "writeBytes:")


@prim("TCPSocket", "writeBytes:timeout:")
def _write_bytes_timeout(p, s, data, ms):
    return write(p, s, _bytes_arg(p, data, "writeBytes:timeout:"), ms, "writeBytes:timeout:")


@prim("TCPSocket", "close")
def _close(p, s):
    if s.busy:
        fail(p, "NetworkError", "close: the socket is in use by another actor")
    s.close()
    return None


@prim("TCPSocket", "isClosed")
def _is_closed(p, s):
    return s.conn is None
