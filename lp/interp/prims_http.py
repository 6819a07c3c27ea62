"""HTTP/1.1 on sockets for the HttpServer and Http modules (stdlib/http_server.lp, http.lp): the
framing and the responses are the runtime's C (runtime/net_http.c), which docs/network.md explains
by measurement. The waits follow prims_net: "would block" registers an fd wait with the deadline
and the send repeats when the actor wakes.

`sock readHttpRequest: idleMs timeout: headMs bodyTimeout: bodyMs maxLine: a maxHeaders: b
maxHead: c maxBody: d` answers `Maybe some:` an HttpRequest, the request the handler gets (method,
target, path, query, version, headers with lowercase names, a repeated field's values joined with
', ', the body as a ByteArray, and keepAlive), or `Maybe none` when the stream ends before a
request. Waiting for a request's first byte longer than idleMs raises Timeout; once a byte is there the head must follow within
headMs and then the body within bodyMs, else HttpWireError 408. A malformed or too large request
raises HttpWireError with the status to answer (400, 413, 414, 431, 501, 505).
`sock writeHttpResponse: status headers: d body: text keepAlive: k head: h` writes a whole
response in one write (HttpWireError 500 for one that cannot be sent).
`sock readHttpStatus: ms maxHead: n`, `readHttpChunked: maxBody timeout: ms` and
`readToEnd:timeout:` read responses for the client."""
from __future__ import annotations

import threading

from lp.interp.errors import LPRaise
from lp.interp.net_values import Socket  # noqa: F401 (the receiver's class)
from lp.interp.prims_net import (_fmt, _int_arg, _ms, _Use, fail, os_error, now, read_some, use, wait_for, would_block,
                                 write, write_some)
from lp.interp.registry import prim
from lp.interp.values import NONE, Instance, LPDict, Maybe
from lp.runtime.binding import ffi, lib

MAX_FIELDS = 2 * 1024 + 3


class _Scratch(threading.local):
    """Per domain thread: the C parser's field array (32 KiB, filled and read within one call, so it
    is never held across a wait) and its two out-parameters, allocated once instead of per request."""
    def __init__(self):
        self.fields = ffi.new("lprt_http_field[]", MAX_FIELDS)
        self.length, self.keep = ffi.new("long long *"), ffi.new("int *")
        self.framing, self.buffered = ffi.new("long *"), ffi.new("int *")
        self.size = ffi.new("size_t *")


_scratch = _Scratch()
_limits: dict[tuple, "_RequestLimits"] = {}


def _refusal(status):
    """What HttpWireError says for a request refused with this status, None for a code that is no
    refusal (the runtime's words, which binaries use too)."""
    t = lib.lprt_http_error_text(status)
    return None if t == ffi.NULL else ffi.string(t).decode()


def wire_error(p, status, text):
    p.stack[-1].wait = None
    cls = p.interp.classes["HttpWireError"]
    values = [None] * len(cls.fields)
    values[cls.field_index["message"]] = text
    values[cls.field_index["status"]] = status
    raise LPRaise(Instance(cls, tuple(values)))


def _text(field):
    b = ffi.unpack(field.p, field.n)
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def _headers(f, n) -> LPDict:
    """The header fields f[3 ...] of a parsed head, names lowercase, a repeated field's values joined."""
    headers = {}
    for i in range(n):
        name, value = _text(f[3 + 2 * i]), _text(f[4 + 2 * i])
        headers[name] = headers[name] + ", " + value if name in headers else value
    return LPDict.of(headers.items())


class _RequestLimits:
    """The checked limits of readHttpRequest: (the C struct for the head, the body's, the timeouts)."""
    __slots__ = ("c", "max_body", "head_ms", "body_ms")

    def __init__(self, c, max_body, head_ms, body_ms):
        self.c, self.max_body, self.head_ms, self.body_ms = c, max_body, head_ms, body_ms


class _RequestWait:
    """A request being read: the phase ("idle" until its first byte, "head", then "length" or
    "chunked" for its body), its limits and the head once parsed."""
    __slots__ = ("phase", "limits", "head", "length")

    def __init__(self, limits):
        self.phase = "idle"
        self.limits = limits
        self.head = None
        self.length = 0


_LATE = "the request body did not arrive in time"


@prim("TCPSocket", "readHttpRequest:timeout:bodyTimeout:maxLine:maxHeaders:maxHead:maxBody:")
def _read_request(p, s, idle_ms, head_ms, body_ms, max_line, max_headers, max_head, max_body):
    what = "readHttpRequest:"
    frame = p.stack[-1]
    w = frame.wait
    if w is None:
        st = _RequestWait(_request_limits(p, head_ms, body_ms, max_line, max_headers, max_head, max_body, what))
        deadline = _ms(p, idle_ms, what)
    else:
        deadline, st = w[1], w[2]
    if st.head is None:
        r = _head(p, s, st, what)
        if r is NONE:
            return r
        if r is not True:       # would block
            if st.phase == "idle" and _scratch.buffered[0]:
                st.phase = "head"
                deadline = _ms(p, st.limits.head_ms, what)
            if st.phase == "head" and now(p) >= deadline:
                wire_error(p, 408, f"the request head did not arrive within {_fmt(st.limits.head_ms)} ms")
            return wait_for(p, s.fd, r, deadline, st, f"{what} (waiting for a request)", idle_ms)
        if st.phase == "none":
            frame.wait = None
            return Maybe(True, Instance(p.interp.classes["HttpRequest"], tuple(st.head)))
        deadline = _ms(p, st.limits.body_ms, what)
    body = _body(p, s, st, what)
    if type(body) is int:       # would block
        if now(p) >= deadline:
            wire_error(p, 408, _LATE)
        return wait_for(p, s.fd, body, deadline, st, what, st.limits.body_ms)
    frame.wait = None
    h = st.head
    h[6] = body
    return Maybe(True, Instance(p.interp.classes["HttpRequest"], tuple(h)))


def _request_limits(p, head_ms, body_ms, max_line, max_headers, max_head, max_body, what):
    """The checked limits of a readHttpRequest: send, made once per set of values (a server reads
    every request with the same ones)."""
    key = (head_ms, body_ms, max_line, max_headers, max_head, max_body)
    lim = _limits.get(key)
    if lim is not None and type(head_ms) is int and type(body_ms) is int and type(max_line) is int \
            and type(max_headers) is int and type(max_head) is int and type(max_body) is int:
        return lim
    for v in key:
        _int_arg(p, v, what)
    if min(max_line, max_headers, max_head) < 1 or max(max_line, max_head) > 1 << 24 or max_headers > 1024 \
            or not 0 <= max_body <= 1 << 30:
        fail(p, "Error", f"{what} the limits must be positive (lines and head at most 2^24, headers 1024, "
                         "the body 2^30)")
    if len(_limits) > 64:
        _limits.clear()
    lim = _limits[key] = _RequestLimits(ffi.new("lprt_http_limits *", (max_line, max_headers, max_head)),
                                        max_body, head_ms, body_ms)
    return lim


def _head(p, s, st, what):
    """Parse the head if it is complete: the "would block" code, NONE at end of stream, else True with
    st.head (method, target, version, headers, path, query, body, keepAlive) and st.phase the body's."""
    sc = _scratch
    f, length, keep = sc.fields, sc.length, sc.keep
    use(p, s, what)
    try:
        r = lib.lprt_http_read_request(s.conn, st.limits.c, f, MAX_FIELDS, st.limits.max_body, length, keep,
                                       sc.framing, sc.buffered)
    finally:
        s.busy = False
    if r >= 0:
        framing = sc.framing[0]
        if framing < 0:
            wire_error(p, -framing, ffi.string(lib.lprt_http_framing_text(framing)).decode())
        target = _text(f[1])
        path, _, query = target.partition("?")
        st.head = [_text(f[0]), target, _text(f[2]), _headers(f, r), path, query, EMPTY, keep[0] != 0]
        st.phase, st.length = ("chunked" if framing == 1 else "length" if length[0] else "none"), length[0]
        return True
    if would_block(r):
        return r
    p.stack[-1].wait = None
    if r == lib.LPRT_NET_EOF:
        return NONE
    text = _refusal(-r)
    if text:
        wire_error(p, -r, text)
    os_error(p, r, f"{what} from {s.peer}")


def _body(p, s, st, what):
    """The body (a ByteArray), or the "would block" code."""
    if st.phase == "none":
        return EMPTY
    if st.phase == "length":
        r, data = read_some(p, s, what, lib.lprt_conn_read_exact, st.length)
    else:
        r, data = read_some(p, s, what, lib.lprt_http_read_chunked, st.limits.max_body)
    if r >= 0:
        return data
    if would_block(r):
        return r
    if r in (lib.LPRT_NET_EOF, lib.LPRT_NET_TRUNCATED):
        wire_error(p, 400, "the connection ended inside the request body")
    text = _refusal(-r)
    if text:
        wire_error(p, -r, "malformed chunked body" if r == lib.LPRT_HTTP_BAD_REQUEST else text)
    os_error(p, r, f"{what} from {s.peer}")


EMPTY = b""


def _fields_of(p, headers, what):
    """A Dictionary of header names and values as an lprt_http_field array (and the bytes it points
    into, to keep alive while it is used); a line break in either is a response that cannot be sent."""
    pairs = []
    for k, v in headers.entries() if len(headers) else ():
        if type(k) is not str or type(v) is not str:
            wire_error(p, 500, f"{what} header names and values must be Strings, not {p.interp.describe(k)} -> "
                               f"{p.interp.describe(v)}")
        kb, vb = k.encode("utf-8"), v.encode("utf-8")
        kc, vc = ffi.from_buffer(kb), ffi.from_buffer(vb)
        bad = lib.lprt_http_check_header(ffi.new("lprt_http_field *", (kc, len(kb))),
                                         ffi.new("lprt_http_field *", (vc, len(vb))))
        if bad:
            wire_error(p, 500, what + " " + header_problem(bad, k, v))
        pairs += (kb, vb)
    if not pairs:
        return ffi.NULL, 0, pairs
    keep = [ffi.from_buffer(b) for b in pairs]
    return ffi.new("lprt_http_field[]", [(k, len(b)) for k, b in zip(keep, pairs)]), len(pairs) // 2, keep


def header_problem(bad, k, v):
    """What lprt_http_check_header found wrong with the header k: v (the binaries' words too)."""
    if bad == lib.LPRT_HTTP_HEADER_BREAK:
        broken = k if "\r" in k or "\n" in k else v
        return f"a header may not contain a line break: {broken!r}"
    if bad == lib.LPRT_HTTP_HEADER_NAME:
        return f"a header name must be a token (letters, digits and !#$%&'*+-.^_`|~), not {k!r}"
    if bad == lib.LPRT_HTTP_HEADER_VALUE:
        return f"a header value may not contain control characters: {v!r}"
    return f"the server writes Content-Length and Transfer-Encoding itself, not {k!r}"


def _write_response(p, s, status, headers, body, keep, head_only, ms, what):
    """Assemble the whole response in C (lprt_http_render_response) and write it in one write. A
    response that cannot be sent (a status out of range, a line break in a header, values of other
    types than the checker's, from a program run without it) raises HttpWireError 500."""
    if p.stack[-1].wait is not None:
        return write(p, s, None, ms, what)     # the rest of the bytes the write began with
    if type(status) is not int or not 200 <= status <= 999:
        wire_error(p, 500, f"{what} the status must be an Integer between 200 and 999 (a 1xx is interim: no final "
                           f"answer would follow), not {p.interp.describe(status)}")
    if type(headers) is not LPDict:
        wire_error(p, 500, f"{what} expects a Dictionary of headers, not {p.interp.describe(headers)}")
    data = body.encode("utf-8") if type(body) is str else body
    if type(data) is not bytes:
        wire_error(p, 500, f"{what} expects a String body, not {p.interp.describe(body)}")
    fields, n, alive = _fields_of(p, headers, what)
    cap = 256 + len(data) + sum(len(b) + 4 for b in alive)
    out = ffi.new("char[]", cap)
    size_p = _scratch.size
    use(p, s, what)
    try:    # rendered and written in one call (most often all of it, with no copy)
        r = lib.lprt_http_send_response(s.conn, out, cap, size_p, status, fields, n, data, len(data), keep is True,
                                        head_only is True)
    finally:
        s.busy = False
    size = size_p[0]
    if r >= size:
        return size
    assert size <= cap, "the response outgrew its buffer"
    data = ffi.buffer(out, size)[:]     # the rest waits for the socket: what the write goes on with
    return write(p, s, data, ms, what, write_some(p, s, data, r, what) if r >= 0 else (0, r))


@prim("TCPSocket", "writeHttpResponse:headers:body:keepAlive:head:")
def _write_http_response(p, s, status, headers, body, keep, head_only):
    return _write_response(p, s, status, headers, body, keep, head_only, None, "writeHttpResponse:")


@prim("TCPSocket", "writeHttpResponse:headers:body:keepAlive:head:timeout:")
def _write_http_response_timeout(p, s, status, headers, body, keep, head_only, ms):
    return _write_response(p, s, status, headers, body, keep, head_only, ms, "writeHttpResponse:")


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
    text = _refusal(-r)
    if text:
        wire_error(p, -r, "malformed chunked body" if r == lib.LPRT_HTTP_BAD_REQUEST else text)
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
        limits = ffi.new("lprt_http_limits *", (max_head, 1024, max_head))
        deadline = _ms(p, ms, what)
    else:
        deadline, limits = w[1], w[2]
    with _Use(p, s, what):
        r = lib.lprt_http_read_status(s.conn, limits, _scratch.fields, MAX_FIELDS)
    if r >= 0:
        frame.wait = None
        f = _scratch.fields
        cls = p.interp.classes["HttpStatusHead"]
        return Maybe(True, Instance(cls, (_text(f[0]), int(_text(f[1])), _text(f[2]), _headers(f, r))))
    if would_block(r):
        return wait_for(p, s.fd, r, deadline, limits, what, ms)
    frame.wait = None
    if r == lib.LPRT_NET_EOF:
        return NONE
    if _refusal(-r):
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
