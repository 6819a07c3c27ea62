"""WebSocket (RFC 6455) messages for LP programs over runtime/net_ws.c's frames.

`WebSocket over: sock client: bool` makes a WebSocket of a socket whose HTTP upgrade is done
(the HttpServer module's `HttpResponse webSocket:` and the Http module's `Http webSocket:timeout:`
do the handshakes). `ws receive: ms` answers `Maybe some:` the next WebSocketMessage (`data`, a
ByteArray, and `isText`; fragments reassembled), answering pings with pongs on the way; a close
from the peer is answered and gives `Maybe none` (as a clean end of stream; `ws closeCode` then
tells the peer's code, 1006 when the connection just ended); passing the deadline raises
Timeout. A message over the limit (1 MiB unless `receive:limit:`) closes with 1009 and raises
LimitExceeded; a protocol violation closes with 1002, text that is not UTF-8 with 1007, both
raising NetworkError. `sendText:`, `sendBytes:` write one frame (masked by clients), `close` /
`close:` send a close frame and close the connection.

`ws receiveOrMail: ms` is receive: for an actor that also waits for its mailbox (a durable
grain's socket host, stdlib/durable_sockets.lp): it answers `Maybe none` at once when the actor
has a message, else `Maybe some:` what receive: would answer, and its wait on the socket also
ends when a message arrives (the runtime's lprt_wait_fd_or_receive: one wait, no polling)."""
from __future__ import annotations

import base64
import hashlib
import os
import struct

from lp.interp.net_values import Socket, WebSock
from lp.interp.prims_net import (_bytes_arg, _int_arg, _started, _str_arg, fail, limit_arg, os_error, read_some,
                                 wait_for, would_block, write, write_some)
from lp.interp.registry import prim
from lp.interp.values import NONE, Instance, Maybe
from lp.interp.vm import SUSPEND
from lp.runtime.binding import ffi, lib

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
LIMIT = 1 << 20
TEXT, BINARY, CLOSE, PING, PONG = 1, 2, 8, 9, 10


def encode(ws, opcode, payload: bytes) -> bytes:
    out = ffi.new("unsigned char[]", len(payload) + 14)
    key = ffi.new("unsigned char[4]", os.urandom(4)) if ws.client else ffi.NULL
    n = lib.lprt_ws_encode(out, opcode, 1, payload, len(payload), key)
    return bytes(ffi.buffer(out, n))


def _queue_close(ws, code, reason=b""):
    if not ws.close_sent:
        ws.close_sent = True
        ws.out += encode(ws, CLOSE, struct.pack("!H", code) + reason)


def _flush(p, ws, what):
    """Write queued control frames; answers a "would block" code or 0."""
    if not ws.out:
        return 0
    off, r = write_some(p, ws.sock, ws.out, 0, what)
    ws.out = ws.out[off:]
    if ws.out and would_block(r):
        return r
    ws.out = b""     # all written, or the peer is gone: nothing more to say to it
    return 0


def _fail_closing(p, ws, code, cls, text):
    _queue_close(ws, code)
    _flush(p, ws, "WebSocket")
    ws.sock.close()
    ws.close_code = code
    fail(p, cls, f"{text} (closed with {code})")


_BAD_CLOSE = {1002: "WebSocket protocol error (a malformed close frame)",
              1007: "a WebSocket close reason that is not UTF-8"}


def _message(p, data, is_text):
    return Maybe(True, Instance(p.interp.classes["WebSocketMessage"], (data, is_text)))


_MAIL = object()


def _has_mail(p):
    return lib.lprt_mbox_first(p.ctx._ptr) != ffi.NULL


def receive(p, ws, ms, limit, what, mail=False):
    """The next message; with `mail`, `Maybe none` as soon as the actor has a message and the
    answer of receive: in `Maybe some:` otherwise."""
    r = _receive_message(p, ws, ms, limit, what, mail)
    if r is _MAIL:
        return NONE
    return r if not mail or r is SUSPEND else Maybe(True, r)


def _receive_message(p, ws, ms, limit, what, mail):
    deadline, _ = _started(p, ms, what)
    s = ws.sock
    if s.conn is None:
        p.stack[-1].wait = None
        return NONE
    opcode, fin = ffi.new("int *"), ffi.new("int *")
    while True:
        if mail and _has_mail(p):
            p.stack[-1].wait = None
            return _MAIL
        r = _flush(p, ws, what)
        if r:
            return wait_for(p, s.fd, r, deadline, None, what, ms, mail)
        if s.conn is None:
            p.stack[-1].wait = None
            return NONE
        n, data = read_some(p, s, what, lib.lprt_ws_read_frame, limit, 0 if ws.client else 1, opcode, fin)
        if would_block(n):
            return wait_for(p, s.fd, n, deadline, None, what, ms, mail)
        if n in (lib.LPRT_NET_EOF, lib.LPRT_NET_TRUNCATED) or n < 0 and -n in (104, 32):
            s.close()
            ws.close_code = ws.close_code or 1006
            p.stack[-1].wait = None
            return NONE
        if n == lib.LPRT_WS_TOO_BIG:
            _fail_closing(p, ws, 1009, "LimitExceeded", f"{what} a WebSocket message larger than {limit} bytes")
        if n == lib.LPRT_WS_PROTOCOL_ERROR:
            _fail_closing(p, ws, 1002, "NetworkError", f"{what} WebSocket protocol error from {s.peer}")
        if n < 0:
            os_error(p, n, f"{what} from {s.peer}")
        op = opcode[0]
        if op == PING:
            ws.out += encode(ws, PONG, data)
            continue
        if op == PONG:
            continue
        if op == CLOSE:
            code = ffi.new("int *")
            bad = lib.lprt_ws_check_close(data, len(data), code)
            if bad:
                _fail_closing(p, ws, bad, "NetworkError", f"{what} {_BAD_CLOSE[bad]} from {s.peer}")
            ws.close_code = code[0]
            ws.close_reason = data[2:].decode("utf-8")
            _queue_close(ws, code[0] if len(data) >= 2 else 1000)
            _flush(p, ws, what)
            s.close()
            p.stack[-1].wait = None
            return NONE
        if op == 0 and ws.frags is None or op != 0 and ws.frags is not None:
            _fail_closing(p, ws, 1002, "NetworkError", f"{what} WebSocket fragments out of order from {s.peer}")
        if op != 0:
            ws.frags, ws.frag_text = bytearray(), op == TEXT
        ws.frags += data
        if len(ws.frags) > limit:
            _fail_closing(p, ws, 1009, "LimitExceeded", f"{what} a WebSocket message larger than {limit} bytes")
        if not fin[0]:
            continue
        msg, is_text, ws.frags = bytes(ws.frags), ws.frag_text, None
        if is_text:
            try:
                msg.decode("utf-8")
            except UnicodeDecodeError:
                _fail_closing(p, ws, 1007, "NetworkError", f"{what} a WebSocket text message that is not UTF-8")
        p.stack[-1].wait = None
        return _message(p, msg, is_text)


@prim("WebSocket", "receive:")
def _receive(p, ws, ms):
    return receive(p, ws, ms, LIMIT, "receive:")


@prim("WebSocket", "receiveOrMail:")
def _receive_or_mail_default(p, ws, ms):
    return receive(p, ws, ms, LIMIT, "receiveOrMail:", mail=True)


@prim("WebSocket", "receiveOrMail:limit:")
def _receive_or_mail(p, ws, ms, limit):
    return receive(p, ws, ms, limit_arg(p, limit, "receiveOrMail:limit:"), "receiveOrMail:limit:", mail=True)


@prim("WebSocket", "receive:limit:")
def _receive_limit(p, ws, ms, limit):
    return receive(p, ws, ms, limit_arg(p, limit, "receive:limit:"), "receive:limit:")


def _send(p, ws, opcode, payload, what):
    if ws.close_sent or ws.sock.conn is None:
        fail(p, "NetworkError", f"{what} the WebSocket is closed")
    frame = encode(ws, opcode, payload) if p.stack[-1].wait is None else None   # after a wait write() has it
    r = write(p, ws.sock, frame, None, what)
    return len(payload) if type(r) is int else r


@prim("WebSocket", "sendText:")
def _send_text(p, ws, text):
    return _send(p, ws, TEXT, _str_arg(p, text, "sendText:").encode("utf-8"), "sendText:")


@prim("WebSocket", "sendBytes:")
def _send_bytes(p, ws, data):
    return _send(p, ws, BINARY, _bytes_arg(p, data, "sendBytes:"), "sendBytes:")


def close(p, ws, code, reason=b"", what="close:"):
    _int_arg(p, code, what)
    if not (1000 <= code <= 4999 and lib.lprt_ws_close_code_ok(code)):
        fail(p, "Error", f"{what} {code} is not a close code an endpoint may send")
    if len(reason) > 123:
        fail(p, "Error", f"{what} a close reason is at most 123 bytes of UTF-8, not {len(reason)}")
    if ws.sock.conn is not None:
        _queue_close(ws, code, reason)
        _flush(p, ws, "close:")
        ws.sock.close()
        ws.close_code = code
    return None


@prim("WebSocket", "close")
def _close(p, ws):
    return close(p, ws, 1000)


@prim("WebSocket", "close:")
def _close_code(p, ws, code):
    return close(p, ws, code)


@prim("WebSocket", "close:reason:")
def _close_reason(p, ws, code, reason):
    return close(p, ws, code, _str_arg(p, reason, "close:reason:").encode("utf-8"), "close:reason:")


@prim("WebSocket", "closeReason")
def _close_reason_of(p, ws):
    return ws.close_reason


@prim("WebSocket", "closeCode")
def _close_code_of(p, ws):
    return ws.close_code or 0


@prim("WebSocket", "protocol")
def _protocol(p, ws):
    return Maybe(True, ws.protocol) if ws.protocol else NONE


@prim("WebSocket", "over:client:", class_side=True)
def _over(p, cls, sock, client):
    return _over_protocol(p, cls, sock, client, "")


@prim("WebSocket", "over:client:protocol:", class_side=True)
def _over_protocol(p, cls, sock, client, protocol):
    if type(sock) is not Socket:
        fail(p, "Error", f"WebSocket over:client: expects a TCPSocket, not {p.interp.describe(sock)}")
    _str_arg(p, protocol, "WebSocket over:client:protocol:")
    return WebSock(sock, client is True, protocol)


@prim("WebSocket", "acceptKeyFor:", class_side=True)
def _accept_key(p, cls, key):
    _str_arg(p, key, "acceptKeyFor:")
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


@prim("WebSocket", "newKey", class_side=True)
def _new_key(p, cls):
    return base64.b64encode(os.urandom(16)).decode()


@prim("WebSocketMessage", "text")
def _text(p, m):
    try:
        return m.values[0].decode("utf-8")
    except UnicodeDecodeError:
        fail(p, "Error", "text: the message is not UTF-8 text")
