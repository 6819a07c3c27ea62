"""The run-time values of the network library: a connected TCP socket (over the runtime's
buffered `lprt_conn`), the sockets bound to a local address (a listener, a UDP socket) and a
connect in progress. They own their file descriptors (OwnedFd) and close them when closed or
when no value refers to them any more.

A socket belongs to whichever actor uses it, one at a time: `busy` is set (under the GIL)
around each call into C, which releases the GIL, so two actors on two domains can never
run C code on one connection at once; the second gets an LP error instead."""
from __future__ import annotations

from lp.runtime.binding import ffi, lib


class Socket:
    __slots__ = ("conn", "fd", "peer", "busy", "pool_key", "reused", "tls")

    def __init__(self, fd: int, peer: str):
        self.conn = lib.lprt_conn_new(fd)
        if self.conn == ffi.NULL:
            lib.lprt_net_close(fd)
            raise MemoryError("lprt_conn_new")
        self.fd = fd
        self.peer = peer
        self.busy = False
        self.pool_key = None   # (host, port) when it came from TCP pooledConnect:...
        self.reused = False    # taken from the pool rather than freshly connected
        self.tls = False       # a TLS handshake has begun on it

    def close(self):
        c, self.conn = self.conn, None
        if c is not None:
            lib.lprt_conn_free(c)

    def __del__(self):
        self.close()


class OwnedFd:
    """A file descriptor this value owns: closed by `close` or when no value refers to it any more
    (-1 once closed)."""
    __slots__ = ("fd",)

    def close(self):
        fd, self.fd = self.fd, -1
        if fd >= 0:
            lib.lprt_net_close(fd)

    def __del__(self):
        self.close()


class BoundSocket(OwnedFd):
    """A socket bound to a local address: its port (also when the system picked it) and where it
    is bound, for messages; `busy` as for Socket."""
    __slots__ = ("port", "where", "busy")

    def __init__(self, fd: int, where: str):
        self.fd = fd
        self.port = lib.lprt_net_local_port(fd)
        self.where = where
        self.busy = False


class Listener(BoundSocket):
    __slots__ = ()


class Connecting(OwnedFd):
    """A connect in progress: the addresses still to try, the socket being connected (its fd), the
    error of the last address tried. Closes its socket if the actor gives up (dies)."""
    __slots__ = ("host", "port", "addrs", "last_error", "__weakref__")

    def __init__(self, host, port, addrs):
        self.host, self.port, self.addrs = host, port, addrs
        self.fd = -1
        self.last_error = None


class UDPSock(BoundSocket):
    """A bound UDP socket; its receive buffer holds one datagram of the largest size."""
    __slots__ = ("buf",)

    def __init__(self, fd: int, where: str):
        super().__init__(fd, where)
        self.buf = None


class WebSock:
    """A WebSocket over a connected socket: the role (clients mask their frames), the subprotocol
    its handshake chose ('' for none), a message being reassembled from fragments, the close
    handshake's state, and control frames (pong, close) waiting to be written."""
    __slots__ = ("sock", "client", "protocol", "frags", "frag_text", "close_sent", "close_code", "close_reason",
                 "out")

    def __init__(self, sock, client: bool, protocol: str = ""):
        self.sock = sock
        self.client = client
        self.protocol = protocol
        self.frags = None
        self.frag_text = False
        self.close_sent = False
        self.close_code = None
        self.close_reason = ""
        self.out = b""


class RemoteProxy:
    """`Remote at: url for: #Class id: x`: where the object lives (the JSON-RPC endpoint), the
    class that names it there, its id and the id's JSON (what `=` compares, as binaries do: the id
    1 and the id 1.0 are two objects, as the server sees them), and the deadline of each call in
    milliseconds."""
    __slots__ = ("url", "class_name", "id", "id_json", "timeout")

    def __init__(self, url: str, class_name: str, id_, timeout, id_json: str):
        self.url, self.class_name, self.id, self.timeout, self.id_json = url, class_name, id_, timeout, id_json

    def __eq__(self, other):
        return type(other) is RemoteProxy and (self.url, self.class_name, self.id_json) == (
            other.url, other.class_name, other.id_json)

    def __hash__(self):
        return hash((self.url, self.class_name))
