"""UDP for LP programs: `UDPSocket bind:` / `bindHost:port:`, `sendTo:port:data:`,
`receiveFrom:` answering a Datagram (data, host, port), over runtime/net_udp.c. The waits are
prims_net's: "would block" registers an fd wait with the deadline and the send repeats on wake.
A receive follows the one rule for bounded reads: a datagram, Timeout past the deadline, and
`Maybe none` once the socket is closed. `port` and `close` are prims_net's, shared with listeners."""
from __future__ import annotations

from lp.interp.errors import said
from lp.interp.net_values import UDPSock
from lp.interp.prims_net import _bytes_arg, _int_arg, _numeric, _started, _str_arg, _Use, fail, os_error, wait_for
from lp.interp.registry import prim
from lp.interp.values import NONE, Instance, Maybe
from lp.runtime.binding import ffi, lib

MAX_DATAGRAM = 65536


def _addr(p, host, what):
    _str_arg(p, host, what)
    if host == "localhost":
        return "127.0.0.1"
    if not _numeric(host):
        fail(p, "Error", f"{what} needs a numeric address such as 127.0.0.1 or ::1, not '{host}'")
    return host


def _bind(p, addr, port, what):
    _int_arg(p, port, what)
    if not 0 <= port < 65536:
        fail(p, "Error", said(what, f"port {port} is not between 0 and 65535"))
    fdp = ffi.new("int *")
    r = lib.lprt_udp_bind(addr.encode() if addr else ffi.NULL, port, fdp)
    where = f"{addr or '*'}:{port}"
    if r != 0:
        os_error(p, r, f"cannot bind UDP {where}")
    return UDPSock(fdp[0], where)


@prim("UDPSocket", "bind:", class_side=True)
def _bind_any(p, cls, port):
    return _bind(p, None, port, "UDPSocket bind:")


@prim("UDPSocket", "bindHost:port:", class_side=True)
def _bind_host(p, cls, host, port):
    return _bind(p, _addr(p, host, "UDPSocket bindHost:port:"), port, "UDPSocket bindHost:port:")


@prim("UDPSocket", "sendTo:port:data:")
def _send(p, u, host, port, data):
    what = "sendTo:port:data:"
    addr = _addr(p, host, what)
    _int_arg(p, port, what)
    if not 0 < port < 65536:
        fail(p, "Error", f"{what} port {port} is not between 1 and 65535")
    _bytes_arg(p, data, what)
    if len(data) > 65507:
        fail(p, "LimitExceeded", f"{what} a datagram holds at most 65,507 bytes, not {len(data)}")
    with _Use(p, u, what):
        r = lib.lprt_udp_send(u.fd, addr.encode(), port, data, len(data))
    if r >= 0:
        p.stack[-1].wait = None
        return r
    if r == lib.LPRT_NET_WANT_WRITE:
        return wait_for(p, u.fd, r, -1, None, what, None)
    os_error(p, r, f"{what} {addr}:{port}")


@prim("UDPSocket", "receiveFrom:")
def _receive(p, u, ms):
    what = "receiveFrom:"
    if u.fd < 0:
        p.stack[-1].wait = None
        return NONE
    deadline, _ = _started(p, ms, what)
    if u.buf is None:
        u.buf = ffi.new("char[]", MAX_DATAGRAM)
    host, port = ffi.new("char[64]"), ffi.new("int *")
    with _Use(p, u, what):
        r = lib.lprt_udp_receive(u.fd, u.buf, MAX_DATAGRAM, host, 64, port)
    if r >= 0:
        p.stack[-1].wait = None
        cls = p.interp.classes["Datagram"]
        return Maybe(True, Instance(cls, (bytes(ffi.buffer(u.buf, r)), ffi.string(host).decode(), port[0])))
    if r == lib.LPRT_NET_WANT_READ:
        return wait_for(p, u.fd, r, deadline, None, what, ms)
    os_error(p, r, what)
