"""TLS for LP programs, over runtime/net_tls.c (OpenSSL): `TLS wrapClient: sock host: h timeout: ms`
(the system's CAs), `TLS wrapClient:host:caFile:timeout:` (a private CA), and
`TLS wrapServer: sock certFile: c keyFile: k timeout: ms`. Each answers the same socket, now
reading and writing through TLS, once the handshake is done; the handshake waits like every
socket call (an fd wait in the direction OpenSSL asks for, with the deadline). A client
verifies the peer's certificate chain and host name; any TLS failure raises TLSError with
OpenSSL's reason. Contexts (CA stores, certificates) are made once per program and file."""
from __future__ import annotations

from lp.interp.errors import said
from lp.interp.net_values import Socket
from lp.interp.prims_net import _started, _str_arg, _Use, fail, os_error, wait_for
from lp.interp.registry import prim
from lp.runtime.binding import ffi, lib


class _Ctx:
    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        lib.lprt_tls_ctx_free(self.ptr)


def _context(p, key, make, what):
    cache = getattr(p.interp, "tls_contexts", None)
    if cache is None:
        cache = p.interp.tls_contexts = {}
    ctx = cache.get(key)
    if ctx is None:
        err = ffi.new("char[200]")
        ptr = make(err)
        if ptr == ffi.NULL:
            fail(p, "TLSError", said(what, ffi.string(err).decode(errors='replace')))
        ctx = cache[key] = _Ctx(ptr)
    return ctx


def _handshake(p, s, ms, what, start):
    deadline, _ = _started(p, ms, what)
    if type(s) is not Socket:
        fail(p, "Error", f"{what} expects a TCPSocket, not {p.interp.describe(s)}")
    with _Use(p, s, what):
        if p.stack[-1].wait is None:
            if s.tls:
                fail(p, "NetworkError", f"{what} the socket is already TLS (a handshake was begun on it)")
            r = start()
            s.tls = r == 0
            if r != 0:
                os_error(p, r, f"{what} cannot start TLS on this socket")
        r = lib.lprt_tls_handshake(s.conn)
    if r == 0:
        p.stack[-1].wait = None
        return s
    if r in (lib.LPRT_NET_WANT_READ, lib.LPRT_NET_WANT_WRITE):
        return wait_for(p, s.fd, r, deadline, None, what, ms)
    if r == lib.LPRT_NET_TLS:
        fail(p, "TLSError", f"{what} with {s.peer}: {ffi.string(lib.lprt_tls_error(s.conn)).decode(errors='replace')}")
    os_error(p, r, f"{what} with {s.peer}")


def _client(p, s, host, ca_file, ms, what):
    _str_arg(p, host, what)
    if ca_file is not None:
        _str_arg(p, ca_file, what)
    ctx = _context(p, ("client", ca_file),
                   lambda err: lib.lprt_tls_client_ctx(ca_file.encode() if ca_file else ffi.NULL, err, 200), what)
    return _handshake(p, s, ms, what, lambda: lib.lprt_tls_start(s.conn, ctx.ptr, host.encode()))


@prim("TLS", "wrapClient:host:timeout:", class_side=True)
def _wrap_client(p, cls, s, host, ms):
    return _client(p, s, host, None, ms, "TLS wrapClient:host:timeout:")


@prim("TLS", "wrapClient:host:caFile:timeout:", class_side=True)
def _wrap_client_ca(p, cls, s, host, ca_file, ms):
    return _client(p, s, host, ca_file, ms, "TLS wrapClient:host:caFile:timeout:")


@prim("TLS", "wrapServer:certFile:keyFile:timeout:", class_side=True)
def _wrap_server(p, cls, s, cert, key, ms):
    what = "TLS wrapServer:certFile:keyFile:timeout:"
    _str_arg(p, cert, what)
    _str_arg(p, key, what)
    ctx = _context(p, ("server", cert, key),
                   lambda err: lib.lprt_tls_server_ctx(cert.encode(), key.encode(), err, 200), what)
    return _handshake(p, s, ms, what, lambda: lib.lprt_tls_start(s.conn, ctx.ptr, ffi.NULL))
