"""WebSocket (RFC 6455) against the `websockets` package: an LP server upgraded from an
HttpServer handler, driven by websockets' client (text, binary, fragmented messages, ping/pong,
close codes, the 1009 size limit), and the LP client against a websockets server; under `lp run`
and as a binary (`lp build`)."""
from __future__ import annotations

import socket
import threading

import pytest

websockets = pytest.importorskip("websockets")
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.sync.client import connect  # noqa: E402
from websockets.sync.server import serve  # noqa: E402

from tests.net.helpers import MODES, LPProcess, run_program  # noqa: E402

SERVER = """
Import module: #HttpServer.
Object subclass: #Echo.
Echo class >> loop: ws = (ws receive: 10000 limit: 1000)
    ifPresent: [:m |
        m isText ifTrue: [ws sendText: 'echo ', m text] ifFalse: [ws sendBytes: m data , m data].
        Echo loop: ws]
    ifAbsent: [('closed ', ws closeCode printString) displayNl].
Echo class >> start: ws = (ws protocol ifPresent: [:p | ('protocol ', p) displayNl] ifAbsent: []. Echo loop: ws).
main := Actor self.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    req isWebSocket
        ifTrue: [
            req path = '/unoffered'
                ifTrue: [HttpResponse webSocket: [:ws | Echo start: ws] protocol: 'nope']
                ifFalse: [(req webSocketProtocols includes: 'chat')
                    ifTrue: [HttpResponse webSocket: [:ws | Echo start: ws] protocol: 'chat']
                    ifFalse: [HttpResponse webSocket: [:ws | Echo start: ws]]]]
        ifFalse: [
            req path = '/stop' ifTrue: [main ! #stop].
            req path = '/stop/restart' ifTrue: [main ! #restart].
            HttpResponse ok: 'plain']].
server port printNl.
main receive: {
    #stop -> [('stopped ', server stop printString) displayNl].
    #restart -> [('stopped ', server stopForRestart printString) displayNl]
} after: 60000 do: [].
"""


@pytest.fixture(params=MODES)
def lp_server(tmp_path, request):
    with LPProcess(SERVER, tmp_path, mode=request.param) as lp:
        yield lp, int(lp.readline())


def test_websockets_client_against_the_lp_server(lp_server):
    lp, port = lp_server
    with connect(f"ws://127.0.0.1:{port}/chat", open_timeout=10) as ws:
        ws.send("héllo")
        assert ws.recv(timeout=10) == "echo héllo"
        ws.send(b"\x00\x01")
        assert ws.recv(timeout=10) == b"\x00\x01\x00\x01"
        ws.send(["frag", "mented"])                      # one message in three frames
        assert ws.recv(timeout=10) == "echo fragmented"
        assert ws.ping(b"are you there").wait(10)        # answered by receive: on the way
        ws.send("last")
        assert ws.recv(timeout=10) == "echo last"
    assert lp.readline() == "closed 1000"
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=10) as ws:
        ws.close(code=4001, reason="bye")
    assert lp.readline() == "closed 4001"


def test_subprotocols_offered_by_a_websockets_client(lp_server):
    lp, port = lp_server
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=10, subprotocols=["superchat", "chat"]) as ws:
        assert ws.subprotocol == "chat"
        assert lp.readline() == "protocol chat"
    assert lp.readline() == "closed 1000"
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=10, subprotocols=["superchat"]) as ws:
        assert ws.subprotocol is None            # none chosen: the 101 names none
    assert lp.readline() == "closed 1000"
    with pytest.raises(websockets.exceptions.InvalidStatus) as info:   # the handler chose one not offered
        connect(f"ws://127.0.0.1:{port}/unoffered", open_timeout=10, subprotocols=["chat"])
    assert info.value.response.status_code == 500


@pytest.mark.parametrize("path, code", [("/stop", 1001), ("/stop/restart", 1012)])
def test_stopping_the_server_closes_its_websockets_with_going_away_or_restart(lp_server, path, code):
    lp, port = lp_server
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=10) as ws:
        ws.send("hi")
        assert ws.recv(timeout=10) == "echo hi"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n".encode())
            assert s.recv(100).startswith(b"HTTP/1.1 200 ")
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
    assert info.value.rcvd is not None and info.value.rcvd.code == code
    # the handler's actor, whose receive: now answers nothing, and the main actor, back from
    # `server stop`, print at the same time: either line may come first
    line = lp.readline()
    if line == f"closed {code}":
        line = lp.readline()
    assert line == "stopped 1"


def test_a_message_over_the_limit_closes_with_1009(lp_server):
    lp, port = lp_server
    with connect(f"ws://127.0.0.1:{port}/", open_timeout=10, max_size=None) as ws:
        ws.send("x" * 5000)
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=10)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1009


def test_non_upgrade_requests(lp_server):
    lp, port = lp_server
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: abc\r\n"
                  b"Sec-WebSocket-Version: 8\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 400 ")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:   # a key that is no 16-byte nonce
        s.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\n"
                  b"Sec-WebSocket-Version: 13\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 400 ")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        assert s.recv(1000).endswith(b"plain")


def _upgraded(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101 ")
    return s


def test_close_frames_are_checked(lp_server):
    """RFC 6455 5.5.1 and 7.4: a close payload of one byte, or with a code that may not be sent
    (1005, 1006, 1015, below 1000, reserved), is answered 1002; a reason that is not UTF-8, 1007;
    a valid close is answered with its code."""
    lp, port = lp_server
    for payload, answer in [(b"\x03", 1002), (b"\x03\xed", 1002), (b"\x03\xee", 1002), (b"\x03\xf7", 1002),
                            (b"\x03\xe7", 1002), (b"\x03\xec", 1002), (b"\x07\xd0", 1002),
                            (b"\x03\xe8\xff", 1007), (b"\x03\xe8\xed\xa0\x80", 1007), (b"\x0f\xa1ok", 4001)]:
        with _upgraded(port) as s:
            s.sendall(bytes([0x88, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
            got = s.recv(4)
            assert got == b"\x88\x02" + answer.to_bytes(2, "big"), (payload, got)
    assert lp.readline() == "closed 4001"


@pytest.mark.parametrize("mode", MODES)
def test_lp_client_against_a_websockets_server(tmp_path, mode):
    def handler(conn):
        for message in conn:
            if message == "close please":
                conn.close(code=4000, reason="as asked")
                return
            conn.send(message[::-1] if isinstance(message, str) else bytes(reversed(message)))

    def choose(conn, offered):
        return "nope" if "bad" in offered else "chat" if "chat" in offered else None

    with serve(handler, "127.0.0.1", 0, select_subprotocol=choose) as server:
        port = server.socket.getsockname()[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        status, out, err = run_program(f"""
        Import module: #Http.
        T := [:b | Error try: [b value] onError: [:e | e printString]].
        (T value: [(Http webSocket: 'ws://127.0.0.1:{port}/x' protocols: #('superchat' 'chat') timeout: 5000) protocol printString]) displayNl.
        (T value: [(Http webSocket: 'ws://127.0.0.1:{port}/x' protocols: #('bad') timeout: 5000) protocol printString]) displayNl.
        (T value: [(Http webSocket: 'ws://127.0.0.1:{port}/x' protocols: #('a b') timeout: 5000) protocol printString]) displayNl.
        ws := Http webSocket: 'ws://127.0.0.1:{port}/x' timeout: 5000.
        ws protocol printNl.
        ws sendText: 'stressed'.
        (ws receive: 5000) ifPresent: [:m | m text printNl] ifAbsent: [].
        ws sendBytes: (ByteArray withAll: #(1 2 3)).
        (ws receive: 5000) ifPresent: [:m | m data printNl] ifAbsent: [].
        ws sendText: 'close please'.
        (ws receive: 5000) printNl.
        ws closeCode printNl.
        (Error try: [(ws sendText: 'again') printString] onError: [:e | e message]) printNl.
        (Error try: [(Http webSocket: 'ws://127.0.0.1:1/' timeout: 1000) printString] onError: [:e | e printString]) displayNl.
        """, tmp_path, mode)
        server.shutdown()
    assert (status, err) == (0, ""), err
    lines = out.split("\n")
    assert lines[:4] == ["Maybe some: 'chat'",
                         "NetworkError(message: 'Http: the server chose the WebSocket subprotocol ''nope'', "
                         "which was not offered')",
                         "Error(message: 'Http: a WebSocket subprotocol is a token (letters, digits and "
                         "!#$%&''*+-.^_`|~), not ''a b''')",
                         "Maybe none"]
    assert lines[4:9] == ["'desserts'", "#[3 2 1]", "Maybe none", "4000", "'sendText: the WebSocket is closed'"]
    assert lines[9].startswith("ConnectionRefused(")


@pytest.mark.parametrize("mode", MODES)
def test_wss_client_against_a_websockets_tls_server(tmp_path, monkeypatch, mode):
    trustme = pytest.importorskip("trustme")
    import ssl
    ca = trustme.CA()
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(ctx)
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))

    def handler(conn):
        for message in conn:
            conn.send("secure " + message)

    with serve(handler, "127.0.0.1", 0, ssl=ctx) as server:
        port = server.socket.getsockname()[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        status, out, err = run_program(f"""
        Import module: #Http.
        ws := Http webSocket: 'wss://localhost:{port}/' timeout: 5000.
        ws sendText: 'hello'.
        (ws receive: 5000) ifPresent: [:m | m text printNl] ifAbsent: [].
        ws close.
        """, tmp_path, mode)
        server.shutdown()
    assert (status, err) == (0, ""), err
    assert out == "'secure hello'\n"


@pytest.mark.parametrize("mode", MODES)
def test_wss_server_is_an_https_server(tmp_path, mode):
    trustme = pytest.importorskip("trustme")
    import ssl
    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    cert.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    src = SERVER.replace("            HttpResponse ok: 'plain']].",
                         "            HttpResponse ok: 'plain']]\n"
                         f"    certFile: '{tmp_path / 'cert.pem'}' keyFile: '{tmp_path / 'key.pem'}'.")
    ctx = ssl.create_default_context()
    ca.configure_trust(ctx)
    with LPProcess(src, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        with connect(f"wss://localhost:{port}/", ssl=ctx, open_timeout=10) as ws:
            ws.send("over tls")
            assert ws.recv(timeout=10) == "echo over tls"
        assert lp.readline() == "closed 1000"


MAIL_SERVER = """
Import module: #HttpServer.
Object subclass: #Poke fields: (text).
Object subclass: #Host.
Host class >> loop: ws = (ws receiveOrMail: 20000 limit: 1000)
    ifPresent: [:r | r
        ifPresent: [:m | m text = 'bye'
            ifTrue: [ws close: 4003 reason: 'see you']
            ifFalse: [ws sendText: 'echo ', m text. Host loop: ws]]
        ifAbsent: [('closed ', ws closeCode printString, ' ', ws closeReason) displayNl. nil]]
    ifAbsent: [
        Actor self receive: { Poke -> [:p | ws sendText: 'poke ', p text] }.
        Host loop: ws].
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    HttpResponse webSocket: [:ws |
        me := Actor self.
        Actor spawn: [:a |
            (1 to: 20) do: [:i | Actor sleep: 5. me ! (Poke fields: { text: i printString })]].
        Host loop: ws]].
server port printNl.
Actor self receive: { #never -> [] } after: 60000 do: [].
"""


@pytest.mark.parametrize("mode", MODES)
def test_receive_or_mail_ends_its_wait_for_the_socket_when_a_message_arrives(tmp_path, mode):
    """WebSocket receiveOrMail:limit: (durable grains' socket hosts use it): the actor waits for its
    socket and its mailbox at once; each message to it is taken while the socket is idle, and the
    peer's messages still arrive in between; closeReason is the reason of the peer's close."""
    with LPProcess(MAIL_SERVER, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        with connect(f"ws://127.0.0.1:{port}/", open_timeout=10) as ws:
            pokes = [ws.recv(timeout=10) for _ in range(10)]
            ws.send("hi")
            rest = []
            while len(rest) < 11:
                rest.append(ws.recv(timeout=10))
            ws.close(code=4002, reason="done")
        assert lp.readline() == "closed 4002 done"
        with connect(f"ws://127.0.0.1:{port}/", open_timeout=10) as ws:
            ws.send("bye")
            with pytest.raises(ConnectionClosed) as info:
                while True:
                    ws.recv(timeout=10)
            assert (info.value.rcvd.code, info.value.rcvd.reason) == (4003, "see you")
    got = pokes + rest
    assert "echo hi" in rest
    assert [g for g in got if g != "echo hi"] == [f"poke {i}" for i in range(1, 21)]


FLOOD = """
Import module: #HttpServer.
Object subclass: #Flood.
Flood class >> send: ws text: t n: n = n = 0 ifTrue: [nil] ifFalse: [ws sendText: t. Flood send: ws text: t n: n - 1].
main := Actor self.
chunk := (1 to: 65536) inject: '' into: [:acc :i | acc , 'x'].
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    HttpResponse webSocket: [:ws | main ! #flooding. Flood send: ws text: chunk n: 100000]].
server port printNl.
main receive: { #flooding -> [] }.
Actor sleep: 300.
t := Actor millisecondClock.
killed := server stop: 200.
('stopped ' , killed printString , ((Actor millisecondClock - t) < 2500 ifTrue: [' in time'] ifFalse: [' late'])) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_stop_is_bounded_when_a_websocket_client_reads_nothing(tmp_path, mode):
    """A client that never reads: its socket fills while the handler sends, and the handler's actor
    waits in a write with no deadline. stop: 200 still answers at once after its deadline (the close
    frame is only written if the socket takes it at once; the stuck connection is killed) and the
    program ends."""
    with LPProcess(FLOOD, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            assert s.recv(12) == b"HTTP/1.1 101"
            assert lp.readline() == "stopped 1 in time"          # the socket is never read again
        rc, _, err = lp.finish()
    assert (rc, err) == (0, "")
