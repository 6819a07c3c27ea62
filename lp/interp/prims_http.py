"""HTTP/1.1 framing for the HttpServer module (stdlib/http_server.lp): the request head and
chunked bodies are read by the runtime's C parser (runtime/net_http.c), which docs/network.md
explains by measurement. The waits follow prims_net: "would block" registers an fd wait with
the deadline and the send repeats when the actor wakes.

`sock readHttpHead: idleMs timeout: headMs maxLine: a maxHeaders: b maxHead: c` answers
`Maybe some:` an HttpHead (method, target, version, headers with lowercase names; repeated
fields joined with ', '), or `Maybe none` when the stream ends before a request. Waiting for
a request's first byte longer than idleMs raises Timeout; once a byte is there, the whole head
must follow within headMs, else HttpWireError 408. Malformed or too large heads raise
HttpWireError with the status to answer (400, 414, 431, 505).
`sock readHttpChunked: maxBody timeout: ms` answers a chunked body's data (a ByteArray);
HttpWireError 400 / 413; Timeout after ms."""
from __future__ import annotations

from lp.interp.errors import LPRaise
from lp.interp.net_values import Socket  # noqa: F401 (the receiver's class)
from lp.interp.prims_net import _fmt, _int_arg, _ms, _Use, fail, os_error, read_some, wait_for, would_block
from lp.interp.registry import prim
from lp.interp.values import NONE, Instance, LPDict, Maybe
from lp.runtime.binding import ffi, lib

MAX_FIELDS = 2 * 1024 + 3

_TEXT = {400: "malformed request", 413: "the request body is too large", 414: "the request line is too long",
         431: "the request head is too large", 501: "not implemented",
         505: "only HTTP/1.0 and HTTP/1.1 are supported"}


def wire_error(p, status, text):
    p.stack[-1].wait = None
    cls = p.interp.classes["HttpWireError"]
    values = [None] * len(cls.fields)
    values[cls.field_index["message"]] = text
    values[cls.field_index["status"]] = status
    raise LPRaise(Instance(cls, tuple(values)))


def _text(field):
    b = bytes(ffi.buffer(field.p, field.n))
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


class _HeadWait:
    __slots__ = ("phase", "limits", "fields")

    def __init__(self, limits):
        self.phase = "idle"
        self.limits = limits
        self.fields = ffi.new("lprt_http_field[]", MAX_FIELDS)


@prim("TCPSocket", "readHttpHead:timeout:maxLine:maxHeaders:maxHead:")
def _read_head(p, s, idle_ms, head_ms, max_line, max_headers, max_head):
    what = "readHttpHead:"
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        for v in (max_line, max_headers, max_head):
            _int_arg(p, v, what)
        if min(max_line, max_headers, max_head) < 1 or max(max_line, max_head) > 1 << 24 or max_headers > 1024:
            fail(p, "Error", f"{what} the limits must be positive (lines and head at most 2^24, headers 1024)")
        st = _HeadWait(ffi.new("lprt_http_limits *", (max_line, max_headers, max_head)))
        deadline = _ms(p, idle_ms, what)
    else:
        deadline, st = w[1], w[2]
    with _Use(p, s, what):
        r = lib.lprt_http_read_head(s.conn, st.limits, st.fields, MAX_FIELDS)
        buffered = lib.lprt_conn_buffered(s.conn) if r < 0 else 0
    if r >= 0:
        frame.wait = None
        f = st.fields
        headers = {}
        for i in range(r):
            name, value = _text(f[3 + 2 * i]), _text(f[4 + 2 * i])
            headers[name] = headers[name] + ", " + value if name in headers else value
        cls = p.interp.classes["HttpHead"]
        return Maybe(True, Instance(cls, (_text(f[0]), _text(f[1]), _text(f[2]), LPDict.of(headers.items()))))
    if would_block(r):
        if st.phase == "idle" and buffered:
            st.phase = "head"
            deadline = _ms(p, head_ms, what)
        if deadline != -1 and lib.lprt_now() >= deadline and st.phase == "head":
            wire_error(p, 408, f"the request head did not arrive within {_fmt(head_ms)} ms")
        return wait_for(p, s.fd, r, deadline, st, f"{what} (waiting for a request)", idle_ms)
    frame.wait = None
    if r == lib.LPRT_NET_EOF:
        return NONE
    if -r in _TEXT:
        wire_error(p, -r, _TEXT[-r])
    os_error(p, r, f"{what} from {s.peer}")


@prim("TCPSocket", "readHttpChunked:timeout:")
def _read_chunked(p, s, max_body, ms):
    what = "readHttpChunked:timeout:"
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        _int_arg(p, max_body, what)
        if not 0 <= max_body <= 1 << 30:
            fail(p, "Error", f"{what} the body limit must be between 0 and 2^30, not {max_body}")
        deadline = _ms(p, ms, what)
    else:
        deadline = w[1]
    r, data = read_some(p, s, what, lib.lprt_http_read_chunked, max_body)
    if r >= 0:
        frame.wait = None
        return data
    if would_block(r):
        return wait_for(p, s.fd, r, deadline, None, what, ms)
    if -r in _TEXT:
        wire_error(p, -r, "malformed chunked body" if r == lib.LPRT_HTTP_BAD_REQUEST else _TEXT[-r])
    os_error(p, r, f"{what} from {s.peer}")


@prim("TCPSocket", "readHttpStatus:maxHead:")
def _read_status(p, s, ms, max_head):
    """A response head for clients: Maybe some: an HttpStatusHead (version, status, reason,
    headers), none if the stream ends before a byte of it; Timeout; HttpWireError 502 when
    the response is malformed or its head longer than maxHead."""
    what = "readHttpStatus:maxHead:"
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        _int_arg(p, max_head, what)
        if not 0 < max_head <= 1 << 24:
            fail(p, "Error", f"{what} the head limit must be between 1 and 2^24, not {max_head}")
        st = _HeadWait(ffi.new("lprt_http_limits *", (max_head, 1024, max_head)))
        deadline = _ms(p, ms, what)
    else:
        deadline, st = w[1], w[2]
    with _Use(p, s, what):
        r = lib.lprt_http_read_status(s.conn, st.limits, st.fields, MAX_FIELDS)
    if r >= 0:
        frame.wait = None
        f = st.fields
        headers = {}
        for i in range(r):
            name, value = _text(f[3 + 2 * i]), _text(f[4 + 2 * i])
            headers[name] = headers[name] + ", " + value if name in headers else value
        cls = p.interp.classes["HttpStatusHead"]
        return Maybe(True, Instance(cls, (_text(f[0]), int(_text(f[1])), _text(f[2]), LPDict.of(headers.items()))))
    if would_block(r):
        return wait_for(p, s.fd, r, deadline, st, what, ms)
    frame.wait = None
    if r == lib.LPRT_NET_EOF:
        return NONE
    if -r in _TEXT:
        wire_error(p, 502, f"malformed HTTP response from {s.peer}" if r != lib.LPRT_HTTP_HEADERS_TOO_LARGE
                   else f"the response head from {s.peer} is longer than {max_head} bytes")
    os_error(p, r, f"{what} from {s.peer}")


@prim("TCPSocket", "readToEnd:timeout:")
def _read_to_end(p, s, max_bytes, ms):
    """Everything until the peer closes (a response framed by the end of the connection), at
    most max bytes (LimitExceeded past that); Timeout."""
    what = "readToEnd:timeout:"
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        _int_arg(p, max_bytes, what)
        deadline, acc = _ms(p, ms, what), bytearray()
    else:
        deadline, acc = w[1], w[2]
    while True:
        r, data = read_some(p, s, what, lib.lprt_conn_read_some, 65536)
        if r > 0:
            acc += data
            if len(acc) > max_bytes:
                fail(p, "LimitExceeded", f"{what} more than {max_bytes} bytes")
            continue
        if r == lib.LPRT_NET_EOF:
            frame.wait = None
            return bytes(acc)
        if would_block(r):
            return wait_for(p, s.fd, r, deadline, acc, what, ms)
        os_error(p, r, f"{what} from {s.peer}")
