"""The network library's primitives in native code (docs/network.md, docs/native.md "Network"):
TCP, UDP, TLS, WebSocket, the HTTP framing of sockets, ByteArray, as one table of C functions in runtime/native/net_*.c.

Each C function takes the receiver and the arguments as one array of values in the caller's frame
(`lpn_value f(lpn_value *a)`, a[0] the receiver, the class itself on the class side) and consumes
them; so a primitive with many arguments (readHttpRequest: has seven) passes no value on the stack.
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler import prims
from lp.compiler.codegen import VAL
from lp.compiler.layout import I64, PTR
from lp.ir import nodes as I

INT, BOOL, STR, NIL = I.Ty("Integer"), I.Ty("Boolean"), I.Ty("String"), I.Ty("UndefinedObject")
BYTES, SOCK, LISTENER = I.Ty("ByteArray"), I.Ty("TCPSocket"), I.Ty("TCPListener")

# (class, class side?, selector) -> (C function, number of arguments, answer type or None, may raise?)
TABLE = {
    ("TCP", True, "connect:port:timeout:"): ("lpn_tcp_connect", 3, SOCK, True),
    ("TCP", True, "pooledConnect:port:timeout:"): ("lpn_tcp_pooled_connect", 3, SOCK, True),
    ("TCP", True, "listen:"): ("lpn_tcp_listen", 1, LISTENER, True),
    ("TCP", True, "listenHost:port:"): ("lpn_tcp_listen_host", 2, LISTENER, True),
    ("TCPListener", False, "port"): ("lpn_bound_port", 0, INT, False),
    ("TCPListener", False, "close"): ("lpn_bound_close", 0, NIL, True),
    ("TCPListener", False, "accept:"): ("lpn_tcp_accept", 1, SOCK, True),
    ("TCPSocket", False, "readLine:"): ("lpn_tcp_read_line", 1, None, True),
    ("TCPSocket", False, "readLine:limit:"): ("lpn_tcp_read_line_limit", 2, None, True),
    ("TCPSocket", False, "readBytes:timeout:"): ("lpn_tcp_read_bytes", 2, None, True),
    ("TCPSocket", False, "write:"): ("lpn_tcp_write", 1, INT, True),
    ("TCPSocket", False, "write:timeout:"): ("lpn_tcp_write_timeout", 2, INT, True),
    ("TCPSocket", False, "writeBytes:"): ("lpn_tcp_write_bytes", 1, INT, True),
    ("TCPSocket", False, "writeBytes:timeout:"): ("lpn_tcp_write_bytes_timeout", 2, INT, True),
    ("TCPSocket", False, "close"): ("lpn_tcp_close", 0, NIL, True),
    ("TCPSocket", False, "isClosed"): ("lpn_tcp_is_closed", 0, BOOL, False),
    ("TCPSocket", False, "release"): ("lpn_tcp_release", 0, NIL, True),
    ("TCPSocket", False, "isReused"): ("lpn_tcp_is_reused", 0, BOOL, False),
    ("TCPSocket", False, "readHttpRequest:timeout:bodyTimeout:maxLine:maxHeaders:maxHead:maxBody:"):
        ("lpn_sock_read_http_request", 7, None, True),
    ("TCPSocket", False, "writeHttpResponse:headers:body:keepAlive:head:"):
        ("lpn_sock_write_http_response", 5, INT, True),
    ("TCPSocket", False, "writeHttpResponse:headers:body:keepAlive:head:timeout:"):
        ("lpn_sock_write_http_response_timeout", 6, INT, True),
    ("TCPSocket", False, "readHttpChunked:timeout:"): ("lpn_sock_read_http_chunked", 2, BYTES, True),
    ("TCPSocket", False, "readHttpStatus:maxHead:"): ("lpn_sock_read_http_status", 2, None, True),
    ("TCPSocket", False, "readToEnd:timeout:"): ("lpn_sock_read_to_end", 2, BYTES, True),
    ("UDPSocket", True, "bind:"): ("lpn_udp_bind", 1, I.Ty("UDPSocket"), True),
    ("UDPSocket", True, "bindHost:port:"): ("lpn_udp_bind_host", 2, I.Ty("UDPSocket"), True),
    ("UDPSocket", False, "port"): ("lpn_bound_port", 0, INT, False),
    ("UDPSocket", False, "close"): ("lpn_bound_close", 0, NIL, True),
    ("UDPSocket", False, "sendTo:port:data:"): ("lpn_udp_send", 3, INT, True),
    ("UDPSocket", False, "receiveFrom:"): ("lpn_udp_receive", 1, None, True),
    ("TLS", True, "wrapClient:host:timeout:"): ("lpn_tls_wrap_client", 3, SOCK, True),
    ("TLS", True, "wrapClient:host:caFile:timeout:"): ("lpn_tls_wrap_client_ca", 4, SOCK, True),
    ("TLS", True, "wrapServer:certFile:keyFile:timeout:"): ("lpn_tls_wrap_server", 4, SOCK, True),
    ("WebSocket", True, "over:client:"): ("lpn_ws_over", 2, I.Ty("WebSocket"), True),
    ("WebSocket", True, "over:client:protocol:"): ("lpn_ws_over_protocol", 3, I.Ty("WebSocket"), True),
    ("WebSocket", False, "protocol"): ("lpn_ws_protocol", 0, None, False),
    ("WebSocket", True, "acceptKeyFor:"): ("lpn_ws_accept_key", 1, STR, True),
    ("WebSocket", True, "newKey"): ("lpn_ws_new_key", 0, STR, False),
    ("WebSocket", False, "receive:"): ("lpn_ws_receive", 1, None, True),
    ("WebSocket", False, "receive:limit:"): ("lpn_ws_receive_limit", 2, None, True),
    ("WebSocket", False, "receiveOrMail:"): ("lpn_ws_receive_or_mail", 1, None, True),
    ("WebSocket", False, "receiveOrMail:limit:"): ("lpn_ws_receive_or_mail_limit", 2, None, True),
    ("WebSocket", False, "sendText:"): ("lpn_ws_send_text", 1, INT, True),
    ("WebSocket", False, "sendBytes:"): ("lpn_ws_send_bytes", 1, INT, True),
    ("WebSocket", False, "close"): ("lpn_ws_close", 0, NIL, True),
    ("WebSocket", False, "close:"): ("lpn_ws_close_code", 1, NIL, True),
    ("WebSocket", False, "close:reason:"): ("lpn_ws_close_reason", 2, NIL, True),
    ("WebSocket", False, "closeReason"): ("lpn_ws_close_reason_of", 0, STR, False),
    ("WebSocket", False, "closeCode"): ("lpn_ws_close_code_of", 0, INT, False),
    ("WebSocketMessage", False, "text"): ("lpn_ws_message_text", 0, STR, True),
    ("ByteArray", False, "size"): ("lpn_bytes_size", 0, INT, False),
    ("ByteArray", False, "isEmpty"): ("lpn_bytes_empty", 0, BOOL, False),
    ("ByteArray", False, "notEmpty"): ("lpn_bytes_not_empty", 0, BOOL, False),
    ("ByteArray", False, "at:"): ("lpn_bytes_at", 1, INT, True),
    ("ByteArray", False, ","): ("lpn_bytes_concat", 1, BYTES, True),
    ("ByteArray", False, "copyFrom:to:"): ("lpn_bytes_copy", 2, BYTES, True),
    ("ByteArray", False, "asArray"): ("lpn_bytes_as_array", 0, None, False),
    ("ByteArray", False, "asString"): ("lpn_bytes_as_string", 0, STR, True),
    ("ByteArray", False, "indexOf:"): ("lpn_bytes_index_of", 1, INT, True),
    ("ByteArray", True, "new:"): ("lpn_bytes_new_size", 1, BYTES, True),
    ("ByteArray", True, "withAll:"): ("lpn_bytes_with_all", 1, BYTES, True),
    ("String", False, "asByteArray"): ("lpn_str_as_bytes", 0, BYTES, False),
    ("String", False, "sha256Hex"): ("lpn_str_sha256_hex", 0, STR, False),
    ("String", True, "lf"): ("lpn_str_lf", 0, STR, False),
    ("String", True, "crlf"): ("lpn_str_crlf", 0, STR, False),
}
C_FUNCS = {fn: ("V", ["p"]) for fn, *_ in TABLE.values()}


def _frame_array(g, n: int):
    """n values' room in the function's entry block (a call in a loop does not grow the stack)."""
    if g.b.block is g.fn.entry_basic_block:
        b = g.b
    else:
        b = ir.IRBuilder(g.fn.entry_basic_block)
        b.position_at_start(g.fn.entry_basic_block)
    return b.inttoptr(b.ptrtoint(b.alloca(ir.ArrayType(VAL, n)), I64), PTR)


def emitter(fn: str, nargs: int, ty: I.Ty | None, may_fail: bool):
    def emit(g, sel, n, site, tail, rty):
        vs = g.pop_n(nargs + 1)
        arr = _frame_array(g, nargs + 1)
        for k, v in enumerate(vs):
            g.store_value(arr, 16 * k, v)
        return g.call_c(fn, [arr], ty or (rty if rty.known else I.UNKNOWN), site, may_fail=may_fail)
    return emit


for _key, _row in TABLE.items():
    prims.PRIMS[_key] = emitter(*_row)
