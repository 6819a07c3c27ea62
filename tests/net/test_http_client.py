"""The LP Http client (stdlib/http.lp) against Python's http.server and raw socket servers:
methods, headers, status, bodies framed by length, chunks or the end of the connection,
keep-alive pooling, the one retry of a reused connection the server dropped, and errors; under
`lp run` and as a binary (`lp build`)."""
from __future__ import annotations

import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.net.helpers import MODES, run_program

CLIENT = "Import module: #Http.\nurl := 'http://127.0.0.1:PORT'.\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    ports: list = []

    def log_message(self, *a):
        pass

    def _answer(self, status, body: bytes, extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        Handler.ports.append(self.client_address[1])
        if self.path == "/missing":
            return self._answer(404, b"no such page")
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"chunks ", b"of ", b"text"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/until-close":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"read until the end")
            self.close_connection = True
            return
        self._answer(200, f"{self.command} {self.path} {self.headers.get('X-Name', '-')}".encode(),
                     [("X-Answer", "42")])

    do_HEAD = do_GET

    def do_POST(self):
        Handler.ports.append(self.client_address[1])
        n = int(self.headers["Content-Length"])
        self._answer(201, b"got " + self.rfile.read(n))


@pytest.fixture
def http_server():
    Handler.ports = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def run(src, port, tmp_path, mode="run"):
    status, out, err = run_program(CLIENT.replace("PORT", str(port)) + src, tmp_path, mode)
    assert (status, err) == (0, ""), err
    return out.split("\n")[:-1]


@pytest.mark.parametrize("mode", MODES)
def test_requests_statuses_headers_and_bodies(http_server, tmp_path, mode):
    out = run("""
    r := Http get: url, '/x?y=1' headers: (Dictionary new at: 'X-Name' put: 'Ada') timeout: 5000.
    r status printNl. r text printNl. (r header: 'x-answer') printNl. r reason printNl.
    (Http get: url, '/missing' timeout: 5000) status printNl.
    r2 := Http post: url, '/form' body: 'é=1' timeout: 5000.
    r2 status printNl. r2 text printNl.
    (Http request: 'HEAD' url: url, '/h' headers: Dictionary new body: '' timeout: 5000) body size printNl.
    (Http get: url, '/chunked' timeout: 5000) text printNl.
    (Http get: url, '/until-close' timeout: 5000) text printNl.
    (Http get: url, '/after' timeout: 5000) text printNl.
    """, http_server, tmp_path, mode)
    assert out == ["200", "'GET /x?y=1 Ada'", "Maybe some: '42'", "'OK'", "404", "201", "'got é=1'", "0",
                   "'chunks of text'", "'read until the end'", "'GET /after -'"]
    # keep-alive: one connection for everything up to the response that closed it, then a new one
    assert len(Handler.ports) == 7 and len(set(Handler.ports[:6])) == 1
    assert Handler.ports[6] != Handler.ports[0]


@pytest.mark.parametrize("mode", MODES)
def test_line_breaks_in_the_request_line_or_headers_are_refused(http_server, tmp_path, mode):
    out = run("""
    T := [:b | Error try: [b value status printString] onError: [:e | e message]].
    (T value: [Http get: url , '/x' headers: (Dictionary new at: 'X-Bad' put: 'a' , String crlf , 'Injected: 1') timeout: 5000]) displayNl.
    (T value: [Http get: url , '/x' headers: (Dictionary new at: 'X' , String crlf , 'Y' put: 'v') timeout: 5000]) displayNl.
    (T value: [Http get: url , '/x' headers: (Dictionary new at: 'A: b' put: 'v') timeout: 5000]) displayNl.
    (T value: [Http request: 'GET /evil HTTP/1.1' url: url , '/x' headers: Dictionary new body: '' timeout: 5000]) displayNl.
    (T value: [Http get: url , '/x' , String lf , 'Injected: 1' timeout: 5000]) displayNl.
    (T value: [Http get: url , '/x' headers: (Dictionary new at: 'X-Ok' put: 'a b') timeout: 5000]) displayNl.
    """, http_server, tmp_path, mode)
    assert out == ["Http: the value of the header X-Bad may not contain a line break",
                   "Http: a header name may not contain a line break or a space",
                   "Http: a header name is not empty and has no colon, not 'A: b'",
                   "Http: the method may not contain a line break or a space",
                   "Http: the URL may not contain a line break or a space",
                   "200"]
    assert len(Handler.ports) == 1


def _raw_server(serve_connection):
    """A server running serve_connection(sock, index) per connection; answers (port, connections)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    count = []

    def loop():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            count.append(c)
            threading.Thread(target=serve_connection, args=(c, len(count)), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return ls, count


def _read_request(f):
    while f.readline() not in (b"\r\n", b""):
        pass


@pytest.mark.parametrize("mode", MODES)
def test_a_reused_connection_the_server_dropped_is_retried_once(tmp_path, mode):
    def serve(c, index):
        f = c.makefile("rb")
        _read_request(f)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\nconn %d" % (len(b"conn %d" % index), index))
        _read_request(f)     # the next request on this connection: dropped without an answer
        c.close()

    ls, conns = _raw_server(serve)
    try:
        out = run("""
        (Http get: url, '/1' timeout: 5000) text printNl.
        (Http get: url, '/2' timeout: 5000) text printNl.
        """, ls.getsockname()[1], tmp_path, mode)
    finally:
        ls.close()
    assert out == ["'conn 1'", "'conn 2'"]
    assert len(conns) == 2


@pytest.mark.parametrize("mode", MODES)
def test_a_fresh_connection_is_not_retried_and_errors_are_distinct(tmp_path, mode):
    def drop(c, index):
        _read_request(c.makefile("rb"))
        c.close()

    def silent(c, index):
        _read_request(c.makefile("rb"))
        threading.Event().wait(30)

    def reset(c, index):
        """Closes with the request unread, so the kernel resets the connection instead of ending it."""
        c.recv(1, socket.MSG_PEEK)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()

    ls, conns = _raw_server(drop)
    ls2, _ = _raw_server(silent)
    ls3, _ = _raw_server(reset)
    silent_port = ls2.getsockname()[1]
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused = closed.getsockname()[1]
    closed.close()
    try:
        out = run(f"""
        Object subclass: #T.
        T class >> show: blk = (Error try: [blk value. 'no error'] onError: [:e | e printString]) displayNl.
        T show: [Http get: url, '/' timeout: 5000].
        T show: [Http get: 'http://127.0.0.1:{ls2.getsockname()[1]}/' timeout: 100].
        T show: [Http get: 'http://127.0.0.1:{refused}/' timeout: 5000].
        T show: [Http get: 'ftp://x/' timeout: 5000].
        T show: [Http get: 'http://127.0.0.1:{ls3.getsockname()[1]}/' timeout: 5000].
        """, ls.getsockname()[1], tmp_path, mode)
    finally:
        ls.close()
        ls2.close()
        ls3.close()
    assert out[0] == "ConnectionClosed(message: 'Http: the server closed the connection without a response')"
    assert len(conns) == 1
    assert out[1] == f"Timeout(message: 'Http: GET http://127.0.0.1:{silent_port}/ timed out after 100 ms')"
    assert out[2].startswith("ConnectionRefused(")
    assert out[3] == "Error(message: 'Http: not an http: URL: ftp://x/')"
    # dropped unanswered with the request unread: the same error as the clean close above
    assert out[4] == out[0]


STRESS = """
Import module: #HttpServer.
Import module: #Http.
Object subclass: #Client.
Client class >> run: url times: n bad: bad = n = 0 ifTrue: [bad] ifFalse: [
    r := Http get: url, '/', n printString timeout: 20000.
    Client run: url times: n - 1 bad: bad + ((r text = ('got /', n printString)) ifTrue: [0] ifFalse: [1])].
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'got ', req path].
url := 'http://127.0.0.1:', server port printString.
main := Actor self.
1 to: 20 do: [:i | Actor spawn: [:me | main ! (Client run: url times: 10 bad: 0)]].
total := (1 to: 20) inject: 0 into: [:acc :i | acc + (main receive: { Integer -> [:b | b] })].
('wrong answers ', total printString) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("domains", [1, 2])
def test_many_actors_share_the_connection_pool_and_one_server(tmp_path, mode, domains):
    """20 client actors, 10 requests each, through one program's pool to its own server: every
    answer is the one asked for, whichever domain runs which actor."""
    status, out, err = run_program(STRESS, tmp_path, mode, domains=domains)
    assert (status, out, err) == (0, "wrong answers 0\n", "")


_ANSWERS = {
    b"/100": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal",
    b"/204": b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\nnot empty",
    b"/twice": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Length: 3\r\n\r\nxyz",
    b"/gzip": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n",
    b"/both": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nxyz\r\n0\r\n\r\n",
    b"/name": b"HTTP/1.1 200 OK\r\nX A: evil\r\nContent-Length: 3\r\n\r\nxyz",
}


@pytest.mark.parametrize("mode", MODES)
def test_response_heads_are_checked(tmp_path, mode):
    """Interim 1xx responses are skipped; a body sent after a 204 never reaches the next request
    (the pool does not reuse a connection with bytes nobody asked for); repeated Content-Lengths,
    a transfer coding other than chunked or one with Content-Length, and a header name that is not
    a token are errors; a port out of range is refused by the URL parser."""
    def serve(c, index):
        f = c.makefile("rb")
        while True:
            line = f.readline()
            if not line:
                return
            _read_request(f)
            c.sendall(_ANSWERS.get(line.split(b" ")[1], b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"))

    ls, conns = _raw_server(serve)
    port = ls.getsockname()[1]
    try:
        out = run("""
        T := [:p | (Error try: [r := Http get: url , p timeout: 5000. r status printString , ' ' , r text printString]
            onError: [:e | e printString]) displayNl].
        #('/100' '/204' '/after' '/twice' '/gzip' '/both' '/name') do: [:p | T value: p].
        (Error try: [(Http get: 'http://127.0.0.1:99999/' timeout: 100) text] onError: [:e | e message]) displayNl.
        """, ls.getsockname()[1], tmp_path, mode)
    finally:
        ls.close()
    framing = ("NetworkError(message: 'Http: the response is framed by a transfer coding other than chunked, "
               "or by both it and Content-Length')")
    assert out == ["200 'final'", "204 ''", "200 'next'",
                   "NetworkError(message: 'Http: malformed Content-Length in the response')", framing, framing,
                   f"HttpWireError(message: 'malformed HTTP response from 127.0.0.1:{port}', status: 502)",
                   "Http: bad port in http://127.0.0.1:99999/"]



OWN_HEADERS = """
Import module: #Http.
l := TCP listenHost: '127.0.0.1' port: 0.
url := 'http://127.0.0.1:' , l port printString , '/p'.
Actor spawn: [:me |
    c := l accept: 5000.
    h := (1 to: 4) collect: [:x | (c readLine: 5000) valueOr: ''].
    (' / ' join: h) displayNl.
    c write: 'HTTP/1.1 200 OK' , String crlf , 'Content-Length: 2' , String crlf , String crlf , 'ok'.
    c close].
(Http get: url headers: (Dictionary new at: 'HOST' put: 'example.org') timeout: 5000) text displayNl.
try := [:k :v | (Error try: [Http get: url headers: (Dictionary new at: k put: v) timeout: 500. 'sent'] onError: [:e | e messageText]) displayNl].
try value: 'Content-Length' value: '1'.
try value: 'transfer-encoding' value: 'chunked'.
try value: 'X(Y)' value: 'v'.
try value: 'X' value: 'a' , 0 asCharacter asString , 'b'.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_program_s_framing_headers_and_non_tokens_are_refused_and_its_host_replaces_the_url_s(tmp_path, mode):
    """Content-Length or Transfer-Encoding next to the client's own is how a request is smuggled past
    a proxy; they, a name that is not a token and a control character in a value are refused before
    anything is sent. A Host the program gives (any case) is sent instead of the URL's, once."""
    status, out, err = run_program(OWN_HEADERS, tmp_path, mode)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "GET /p HTTP/1.1 / Host: example.org / User-Agent: LP / ", "ok",
        "Http: the client writes Content-Length itself (and sends no chunked body), not 'Content-Length'",
        "Http: the client writes Content-Length itself (and sends no chunked body), not 'transfer-encoding'",
        "Http: a header name must be a token (letters, digits and !#$%&'*+-.^_`|~), not 'X(Y)'",
        "Http: the value of the header X may not contain control characters"]


URLS = """
Import module: #Http.
{ 'http://h:81?a=1'. 'HTTP://h/x#top'. 'Https://h:8443/a?b'. 'http://u:p@h:81/'. 'http://h#frag'. 'ftp://h/' } do: [:u |
    (Error try: [p := Http parse: u. p host , ' ' , p port printString , ' ' , p tls printString , ' ' , p target]
        onError: [:e | e messageText]) displayNl].
"""


@pytest.mark.parametrize("mode", MODES)
def test_urls_with_a_query_after_the_host_a_fragment_or_a_user(tmp_path, mode):
    """`http://h:81?a=1` asks for `/?a=1` (it said "bad port"), the scheme is read in any case, a
    fragment is not sent, and a user name or password is refused in words that say so."""
    assert run_program(URLS, tmp_path, mode) == (0, "h 81 false /?a=1\nh 80 false /x\nh 8443 true /a?b\n"
                                                    "Http: a user name or password in the URL is not supported: "
                                                    "http://u:p@h:81/\nh 80 false /\nHttp: not an http: URL: ftp://h/\n",
                                                 "")
