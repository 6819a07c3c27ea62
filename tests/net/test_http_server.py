"""The LP HTTP server (stdlib/http_server.lp) driven by Python's http.client and urllib and by raw
sockets: requests and bodies, keep-alive and pipelining, every limit with its status, a handler
that raises, slow and vanishing clients, idle connections, and both kinds of stop; each run by
`lp run` and as a binary (`lp build`)."""
from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from tests.interp.helpers import run_source
from tests.net.helpers import MODES, LPProcess, run_program
from tests.net.http_helpers import Server, raw, read_all, responses


@pytest.fixture(params=MODES)
def server(tmp_path, request):
    with Server(tmp_path, mode=request.param) as s:
        yield s


@pytest.mark.parametrize("mode", MODES)
def test_a_kept_alive_connection_serves_any_number_of_requests(tmp_path, mode):
    """The connection's loop is a tail call: 1,500 requests on one connection under a stack limit of
    1,000 nested calls (a frame per request overflowed it; in a binary, after ~9,000 requests)."""
    with Server(tmp_path, mode=mode, args=("--stack-limit", "1000")) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            s.sendall(b"GET /k HTTP/1.1\r\n\r\n" * 1499 + b"GET /last HTTP/1.1\r\nConnection: close\r\n\r\n")
            got = responses(read_all(s))
        assert len(got) == 1500 and got[-1][2] == b"GET /last  - "
        rc, _, err = server.stop()
    assert (rc, err) == (0, "")


def test_requests_with_http_client_and_urllib(server):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    c.request("GET", "/a/b?x=1&y=2", headers={"X-Echo": "hi"})
    r = c.getresponse()
    assert (r.status, r.reason, r.read()) == (200, "OK", b"GET /a/b x=1&y=2 hi ")
    assert r.getheader("X-Version") == "HTTP/1.1" and r.getheader("Content-Type") == "text/plain; charset=utf-8"
    c.request("POST", "/post", body="é body".encode())
    r = c.getresponse()
    assert r.read() == "POST /post  - é body".encode()
    c.request("POST", "/chunked", body=iter([b"one ", b"two ", b"three"]), encode_chunked=True)
    assert c.getresponse().read() == b"POST /chunked  - one two three"
    c.request("HEAD", "/head")
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Length") == "14" and r.read() == b""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/url", data=b"form=1", timeout=10) as u:
        assert u.read() == b"POST /url  - form=1"
    assert server.stop()[0] == 0


def test_keep_alive_and_pipelining_on_one_connection(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /1 HTTP/1.1\r\nHost: x\r\n\r\n")
        first = s.recv(65536)
        assert responses(first)[0][2] == b"GET /1  - "
        s.sendall(b"GET /2 HTTP/1.1\r\n\r\nPOST /3 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                  b"GET /4 HTTP/1.1\r\nConnection: close\r\n\r\n")
        rest = responses(read_all(s))
    assert [b for _, _, b in rest] == [b"GET /2  - ", b"POST /3  - abc", b"GET /4  - "]
    assert [h.get("connection") for _, h, _ in rest] == [None, None, "close"]
    # HTTP/1.0 closes unless asked to keep alive, and then says it keeps the connection
    assert responses(raw(server.port, b"GET /old HTTP/1.0\r\n\r\n"))[0][1]["connection"] == "close"
    kept = responses(raw(server.port, b"GET /k HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"
                                      b"GET /c HTTP/1.0\r\n\r\n"))
    assert [(b, h.get("connection")) for _, h, b in kept] == [(b"GET /k  - ", "keep-alive"),
                                                              (b"GET /c  - ", "close")]


@pytest.mark.parametrize("request_bytes,status", [
    (b"GET /" + b"a" * 300 + b" HTTP/1.1\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\n" + b"".join(b"H%d: v\r\n" % i for i in range(11)) + b"\r\n", 431),
    (b"GET / HTTP/1.1\r\nLong: " + b"v" * 300 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\n" + b"".join(b"H%d: %s\r\n" % (i, b"v" * 150) for i in range(8)) + b"\r\n", 431),
    (b"POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", 413),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n", 413),
    (b"GET / HTTP/2.0\r\n\r\n", 505),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nFolded: a\r\n b\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    (b"GET / HTTP/1.1\r\n", 408),                                   # the head never completes
    (b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc", 408),      # nor the body
], ids=["414-line", "431-count", "431-line", "431-head", "413-length", "413-chunked", "505", "501",
        "400-line", "400-header", "400-folded", "400-length", "400-both", "400-hosts", "400-chunk", "408-head", "408-body"])
def test_every_limit_answers_its_status_and_closes(server, request_bytes, status):
    got = responses(raw(server.port, request_bytes))
    assert [(s, h["connection"]) for s, h, _ in got] == [(status, "close")]
    # and the server goes on serving
    assert responses(raw(server.port, b"GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n"))[0][0] == 200


def _head_of(size: int) -> bytes:
    """A request head of exactly `size` bytes (blank line included) in header lines under maxLine."""
    start, end = b"GET / HTTP/1.1\r\nConnection: close\r\n", b"\r\n"
    lines, left = [], size - len(start) - len(end)
    for i in range(9):
        n = min(150, left) if i < 8 else left
        if n >= 7:
            lines.append(b"H%d: %s\r\n" % (i, b"v" * (n - 6)))
            left -= n
    assert left == 0
    return start + b"".join(lines) + end


@pytest.mark.parametrize("size,status", [(1000, 200), (1001, 431)])
def test_max_head_bytes_counts_the_whole_head(server, size, status):
    """maxHeadBytes (1000 here) counts every byte of the head, its ending blank line included."""
    assert len(_head_of(size)) == size
    assert responses(raw(server.port, _head_of(size)))[0][0] == status


def test_a_handler_that_raises_gets_500_and_the_connection_goes_on(server):
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    c.request("GET", "/boom")
    r = c.getresponse()
    assert (r.status, r.read()) == (500, b"internal server error\n")
    c.request("GET", "/after")
    assert c.getresponse().read() == b"GET /after  - "
    rc, out, err = server.stop()
    assert rc == 0
    # with where the handler raised it (line 8 of tests/net/http_helpers.py's SERVER), in both modes
    assert re.search(r"HttpServer: the handler raised Error\(message: 'boom'\) at [^ ]+\.lp:8:33\n", err), err


@pytest.mark.parametrize("mode", MODES)
def test_abuse_leaves_a_well_behaved_client_served(tmp_path, mode):
    with Server(tmp_path, idle=3000, mode=mode) as server:
        port = server.port
        good = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        good.connect()

        def served(conn=good):
            conn.request("GET", "/good")
            return conn.getresponse().read() == b"GET /good  - "

        rss0 = _rss(server.lp.proc.pid)
        idle = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(1000)]
        assert served()
        rss1 = _rss(server.lp.proc.pid)
        # slowloris: a head trickling in is answered 408 at the head deadline
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(b"GET / HTTP/1.1\r\nX-A: 1\r\n")
        # a client that vanishes in the middle of its body
        gone = socket.create_connection(("127.0.0.1", port), timeout=10)
        gone.sendall(b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\npartial")
        gone.close()
        truncated = socket.create_connection(("127.0.0.1", port), timeout=10)
        truncated.sendall(b"GET / HT")
        truncated.shutdown(socket.SHUT_WR)
        assert served()
        assert responses(read_all(slow))[0][0] == 408
        assert responses(read_all(truncated))[0][0] == 400     # it ended inside the head
        # the idle ones are closed after idleTimeout, without an answer
        assert all(read_all(s) == b"" for s in idle)
        assert served(http.client.HTTPConnection("127.0.0.1", port, timeout=10))   # good idled out too
        for s in idle + [slow, truncated]:
            s.close()
        rc, out, err = server.stop()
    assert rc == 0 and err == ""
    print(f"RSS {rss0 // 1024} MB -> {rss1 // 1024} MB with 1,000 idle connections")
    assert rss1 - rss0 < 1000 * 100      # KB: under 100 KB per connection


def _rss(pid) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("graceful", [True, False], ids=["graceful", "immediate"])
def test_stop(tmp_path, graceful, mode):
    with Server(tmp_path, graceful=graceful, mode=mode) as server:
        idle = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        idle.request("GET", "/first")
        assert idle.getresponse().read() == b"GET /first  - "
        busy = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        busy.request("GET", "/slow")
        result = {}
        t = threading.Thread(target=lambda: result.update(zip(("rc", "out", "err"),
                                                               server.stop("stop-after-inflight"))))
        t.start()
        if graceful:
            r = busy.getresponse()
            assert (r.status, r.getheader("Connection"), r.read()) == (200, "close", b"GET /slow  - ")
        else:
            with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
                busy.getresponse()
        t.join(30)
        assert result["rc"] == 0
        assert result["out"].endswith(f"killed {0 if graceful else 2}\n")
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=5)


@pytest.mark.skipif(not shutil.which("wrk"), reason="needs wrk (apt install wrk; .ci/run installs it)")
def test_wrk_keep_alive_load(server):
    r = subprocess.run(["wrk", "-t1", "-c8", "-d1s", f"http://127.0.0.1:{server.port}/wrk"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Non-2xx" not in r.stdout and "Socket errors" not in r.stdout, r.stdout
    assert int(r.stdout.split(" requests in ")[0].split()[-1]) > 0
    assert server.stop()[0] == 0


SENDS = """
Import module: #HttpServer.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    req path = '/bad-status' ifTrue: [HttpResponse status: 1000 body: 'x'] ifFalse: [
    req path = '/bad-header' ifTrue: [HttpResponse fields: { status: 200. headers: (Dictionary new at: 'X' put: 'a', String crlf, 'Injected: 1'). body: 'x'. upgrade: Maybe none }] ifFalse: [
    r := (HttpResponse ok: req text) header: 'X-Path' value: req path.
    req path = '/b' ifTrue: [r header: 'content-type' value: 'text/x-b'] ifFalse: [r]]]].
sock := TCP connect: '127.0.0.1' port: server port timeout: 5000.
sock write: 'POST /a HTTP/1.1', String crlf, 'Content-Length: 5', String crlf, String crlf, 'hello'.
sock write: 'POST /b HTTP/1.1', String crlf, 'Transfer-Encoding: chunked', String crlf, String crlf, '3', String crlf, 'abc', String crlf, '0', String crlf, String crlf.
sock write: 'GET /bad-header HTTP/1.1', String crlf, String crlf.
((1 to: 3) collect: [:i | (sock readLine: 5000) valueOr: '']) printNl.
other := TCP connect: '127.0.0.1' port: server port timeout: 5000.
other write: 'GET /bad-status HTTP/1.1', String crlf, String crlf.
(other readLine: 5000) printNl.
server stop.
server stop printNl.
"""


def test_every_response_is_written_once_and_one_that_cannot_be_sent_is_a_500(tmp_path, monkeypatch):
    """Status line, headers, blank line and body go out in one write (each write the server makes
    holds one whole response), with a Content-Type unless the handler gave one (in any case); a response the handler made that cannot be sent (a status out of
    range, a header with a line break) is answered 500 and logged; a second stop answers 0 (what the first
    answers depends on whether the connections answered 500 have ended yet, so it is not printed)."""
    from lp.interp import prims_http, prims_net
    from lp.runtime.binding import ffi
    writes = []
    real = prims_net.write_some

    def recording(p, s, data, off, what, size=None):
        writes.append(bytes(data[off:]))
        return real(p, s, data, off, what, size)

    class RecordingLib:
        """The C library, with the bytes of each response the server renders and writes in one call."""
        def __getattr__(self, name):
            return getattr(prims_net.lib, name)

        def lprt_http_send_response(self, conn, out, cap, size, *rest):
            r = prims_net.lib.lprt_http_send_response(conn, out, cap, size, *rest)
            writes.append(bytes(ffi.buffer(out, max(r, 0))))
            return r

    monkeypatch.setattr(prims_net, "write_some", recording)
    monkeypatch.setattr(prims_http, "lib", RecordingLib())
    status, out, err = run_source(SENDS, tmp_path)
    assert status == 0, err
    assert out.splitlines()[:2] == ["#('HTTP/1.1 200 OK' 'X-Path: /a' 'Content-Type: text/plain; charset=utf-8')",
                                    "Maybe some: 'HTTP/1.1 500 Internal Server Error'"]
    assert out.splitlines()[2:] == ["0"]
    assert err.count("the handler answered a response that cannot be sent") == 2, err
    responses_written = [w for w in writes if w.startswith(b"HTTP/1.1")]
    assert all(not w.startswith(b"HTTP/1.1") for w in writes if w not in responses_written)
    assert responses_written[:2] == [
        b"HTTP/1.1 200 OK\r\nX-Path: /a\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 200 OK\r\nX-Path: /b\r\ncontent-type: text/x-b\r\nContent-Length: 3\r\n\r\nabc"]   # its own type
    assert len(writes) == 3 + 1 + len(responses_written)    # the client's requests, and nothing in pieces


def test_a_binary_answers_the_same_500s_and_logs_the_same_messages(tmp_path):
    """The native writeHttpResponse: refuses the same responses with the interpreter's messages."""
    results = [run_program(SENDS, tmp_path, mode) for mode in MODES]
    (status, out, err), native = results[0], results[-1]
    assert status == 0, err
    assert native == (status, out, err)
    assert err.count("the handler answered a response that cannot be sent") == 2, err


@pytest.mark.parametrize("mode", MODES)
def test_limits_it_cannot_serve_with_are_refused_at_start(tmp_path, mode):
    status, out, err = run_program("""
Import module: #HttpServer.
try := [:lim | (Error try: [(HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'ok'] limits: lim) stop. 'started'] onError: [:e | e message]) displayNl].
try value: (HttpLimits default with: { maxBody: 0 }).
try value: (HttpLimits default with: { maxBody: -1 }).
try value: (HttpLimits default with: { maxLine: 0 }).
try value: (HttpLimits default with: { maxHeaders: 1025 }).
try value: (HttpLimits default with: { maxHeadBytes: 16777217 }).
try value: (HttpLimits default with: { idleTimeout: 0 }).
try value: (HttpLimits default with: { headTimeout: -5 }).
try value: (HttpLimits default with: { bodyTimeout: 9223372036854775807 }).
try value: (HttpLimits default with: { idleTimeout: 1099511627776 }).
""", tmp_path, mode)
    refused = "HttpServer: the limits must be positive (lines and head at most 2^24, headers 1024, the body 2^30)\n"
    timeouts = "HttpServer: the timeouts must be from 1 ms to 2^40 ms\n"
    assert (status, err) == (0, "")
    assert out == "started\n" + refused * 4 + timeouts * 3 + "started\n"


HEADERS = """
Import module: #HttpServer.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    p := req path.
    p = '/cl' ifTrue: [(HttpResponse ok: 'xyz') header: 'Content-Length' value: '100'] ifFalse: [
    p = '/te' ifTrue: [(HttpResponse ok: 'xyz') header: 'transfer-encoding' value: 'chunked'] ifFalse: [
    p = '/name' ifTrue: [(HttpResponse ok: 'xyz') header: 'X-A: evil' value: 'v'] ifFalse: [
    p = '/empty' ifTrue: [(HttpResponse ok: 'xyz') header: '' value: 'v'] ifFalse: [
    p = '/nul' ifTrue: [(HttpResponse ok: 'xyz') header: 'X-A' value: 'a', 0 asCharacter asString, 'b'] ifFalse: [
    p = '/204' ifTrue: [HttpResponse status: 204 body: 'not empty'] ifFalse: [
    p = '/304' ifTrue: [HttpResponse status: 304 body: 'not empty'] ifFalse: [
    HttpResponse ok: 'fine']]]]]]]].
#('/cl' '/te' '/name' '/empty' '/nul' '/204' '/304' '/ok') do: [:path |
    sock := TCP connect: '127.0.0.1' port: server port timeout: 5000.
    sock write: 'GET ', path, ' HTTP/1.1', String crlf, 'Connection: close', String crlf, String crlf.
    (sock readToEnd: 100000 timeout: 5000) asString printNl.
    sock close].
server stop.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_handler_s_headers_are_checked_and_204_304_have_no_body(tmp_path, mode):
    """A handler's Content-Length or Transfer-Encoding (the server writes the framing itself), a
    header name that is not a token, a control character in a value: each a 500, logged; a 204 or
    304 response goes without body, Content-Type and Content-Length (RFC 9110 6.4.1)."""
    status, out, err = run_program(HEADERS, tmp_path, mode)
    internal = "'HTTP/1.1 500 Internal Server Error\nContent-Type: text/plain; charset=utf-8\nContent-Length: 22\n" \
               "Connection: close\n\ninternal server error\n'"
    assert status == 0
    assert out.replace("\r", "").count(internal + "\n") == 5
    assert out.replace("\r", "").endswith("""'HTTP/1.1 204 No Content
Connection: close

'
'HTTP/1.1 304 Not Modified
Connection: close

'
'HTTP/1.1 200 OK
Content-Type: text/plain; charset=utf-8
Content-Length: 4
Connection: close

fine'
""")
    sent = "error: HttpServer: the handler answered a response that cannot be sent: writeHttpResponse: "
    assert err.splitlines() == [sent + e for e in [
        "the server writes Content-Length and Transfer-Encoding itself, not 'Content-Length'",
        "the server writes Content-Length and Transfer-Encoding itself, not 'transfer-encoding'",
        "a header name must be a token (letters, digits and !#$%&'*+-.^_`|~), not 'X-A: evil'",
        "a header name must be a token (letters, digits and !#$%&'*+-.^_`|~), not ''",
        "a header value may not contain control characters: 'a\\x00b'"]]


REQUESTS = """
Import module: #HttpServer.
handler := [:req |
    HttpResponse ok: req method , ' ' , req path , ' ' , req query , ' ' , req keepAlive printString , ' '
        , ((req header: 'Host') valueOr: '-') , ' ' , req text , String lf].
made := HttpRequest fields: {
    method: 'POST'. target: '/made?q=1'. path: '/made'. query: 'q=1'. version: 'HTTP/1.1'.
    headers: (Dictionary new at: 'host' put: 'example'). body: 'body' asByteArray. keepAlive: false }.
Transcript show: (handler value: made) body.
mixed := made with: { headers: (Dictionary new at: 'X-Name' put: 'Ada') }.
{ mixed header: 'X-Name'. mixed header: 'x-name'. mixed header: 'X-NAME'. mixed header: 'Host' } printNl.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: handler.
ask := [:request |
    sock := TCP connect: '127.0.0.1' port: server port timeout: 5000.
    sock write: request.
    ((sock readToEnd: 10000 timeout: 5000) asString lines select: [:l | l startsWith: 'GET']) do: [:l | l displayNl].
    sock close].
ask value: 'GET /kept HTTP/1.1' , String crlf , 'Host: a' , String crlf , String crlf
    , 'GET /closed HTTP/1.1' , String crlf , 'Connection: close' , String crlf , String crlf.
ask value: 'GET /old?x HTTP/1.0' , String crlf , String crlf.
server stop.
"""


@pytest.mark.parametrize("mode", MODES)
def test_the_handler_gets_the_parsed_request_and_a_program_can_make_one(tmp_path, mode):
    """The runtime's parser makes the HttpRequest the handler gets (with keepAlive: whether the
    connection stays open); a program makes one with fields: to call a handler without a socket.
    (What stop answers depends on whether the last connection has seen its client close yet: not
    printed.)"""
    assert run_program(REQUESTS, tmp_path, mode) == (0, "POST /made q=1 false example body\n"
                                                        "#(Maybe some: 'Ada' Maybe some: 'Ada' Maybe some: 'Ada' "
                                                        "Maybe none)\n"
                                                        "GET /kept  true a \nGET /closed  false - \n"
                                                        "GET /old x false - \n", "")


BIG = """
Import module: #HttpServer.
body := '' join: (Array new: 300000 withAll: 'abcdefghi' , String lf).
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: body].
server port printNl.
Actor self receive: { #never -> [] } after: 60000 do: [].
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_response_larger_than_the_socket_takes_reaches_a_slow_reader_whole(tmp_path, mode):
    """3,000,000 bytes to a client that reads slowly: the server's write fills the socket, waits for
    it, and goes on where it stopped (twice on one connection, then a HEAD)."""
    with LPProcess(BIG, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
            s.sendall(b"GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\nHEAD /c HTTP/1.1\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(8192)
                if not chunk:
                    break
                data += chunk
                if len(data) < 200_000:
                    time.sleep(0.001)     # slow at first: the server's socket buffer fills
        got = responses(data)
        body = b"abcdefghi\n" * 300_000
        assert [(st, b) for st, _, b in got[:2]] == [(200, body), (200, body)]
        assert len(got) == 3 and got[2][0] == 200 and got[2][2] == b"" and got[2][1]["content-length"] == "3000000"
        lp.proc.kill()


FD_SERVER = """
Import module: #HttpServer.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'fine'].
server port printNl.
Actor self receive: { #never -> [] } after: 60000 do: [].
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_server_out_of_file_descriptors_goes_on_accepting_once_some_are_free(tmp_path, mode):
    """Connections up to the process's descriptor limit (here 64) and past it: accept fails with
    EMFILE, which is logged and tried again; the open connections are closed, and a new one is
    served (the acceptor died of the first EMFILE before, and the port refused connections)."""
    import resource
    with LPProcess(FD_SERVER, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        resource.prlimit(lp.proc.pid, resource.RLIMIT_NOFILE, (64, 64))
        held = []
        for _ in range(120):
            try:
                held.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                break
        time.sleep(0.5)
        for c in held:
            c.close()
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
            c.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
            got = responses(read_all(c))
        assert [(st, b) for st, _, b in got] == [(200, b"fine")]
        lp.proc.kill()
        _, _, err = lp.finish()
    assert "HttpServer: accepting a connection failed (tried again in 100 ms): accept: Too many open files" in err


NEVER_READS = """
Import module: #HttpServer.
body := '' join: (Array new: 2000000 withAll: 'abcdefghi' , String lf).
limits := HttpLimits default with: { bodyTimeout: 500 }.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: body] limits: limits.
server port printNl.
Actor self receive: { #never -> [] } after: 60000 do: [].
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_does_not_take_its_response_is_closed_after_the_body_timeout(tmp_path, mode):
    """A 20 MB response to a client that reads nothing: the write waits at most bodyTimeout (here
    500 ms), then the connection closes (it waited for the peer for ever before, holding the
    response's memory)."""
    with LPProcess(NEVER_READS, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
            c.sendall(b"GET / HTTP/1.1\r\n\r\n")
            time.sleep(2.5)
            data = read_all(c)
        assert data.startswith(b"HTTP/1.1 200 OK") and len(data) < 20_000_000
        lp.proc.kill()


INTERIM = """
Import module: #HttpServer.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    req path = '/100' ifTrue: [HttpResponse status: 100 body: ''] ifFalse: [HttpResponse status: 103 body: '']].
{ '/100'. '/103' } do: [:path |
    sock := TCP connect: '127.0.0.1' port: server port timeout: 5000.
    sock write: 'GET ' , path , ' HTTP/1.1' , String crlf , String crlf.
    ((sock readLine: 5000) valueOr: 'nothing') displayNl.
    sock close].
server stop.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_handler_s_interim_status_is_a_500(tmp_path, mode):
    """A 1xx is interim: a client waits for the final answer after it, and none would come (the
    connection stayed open, the client timed out). The handler's 100 or 103 is answered 500 and
    logged; the 101 of a WebSocket upgrade is the server's own."""
    status, out, err = run_program(INTERIM, tmp_path, mode)
    assert (status, out.replace("\r", "")) == (0, "HTTP/1.1 500 Internal Server Error\n" * 2)
    why = ("error: HttpServer: the handler answered a response that cannot be sent: writeHttpResponse: the status "
           "must be an Integer between 200 and 999 (a 1xx is interim: no final answer would follow), not the "
           "Integer {}")
    assert err.splitlines() == [why.format(100), why.format(103)]


def test_expect_100_continue_gets_the_interim_answer_before_the_body(server):
    """A client that asks to be told to go on (curl does, for bodies over 1 KiB) waits for `100
    Continue` before sending the body (curl waits a second without it); a body already sent with
    the head gets none."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        assert s.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        s.sendall(b"hello")
        got = responses(s.recv(1000))
    assert [(st, b) for st, _, b in got] == [(200, b"POST /e  - hello")]
    data = raw(server.port, b"POST /f HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    assert data.startswith(b"HTTP/1.1 200 OK") and b"POST /f  - hi" in data
    assert server.stop()[0] == 0


def test_two_transfer_encodings_and_an_http_1_0_keep_alive(server):
    """Two Transfer-Encoding fields are one list of two codings: 501. An HTTP/1.0 client that asks
    for keep-alive is told it is kept (it would otherwise wait for the end of the stream)."""
    data = raw(server.port, b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 501 ")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        first = s.recv(1000)
        s.sendall(b"GET /b HTTP/1.0\r\n\r\n")
        second = read_all(s)
    assert b"\r\nConnection: keep-alive\r\n" in first and first.endswith(b"GET /a  - ")
    assert [(st, b) for st, _, b in responses(second)] == [(200, b"GET /b  - ")] and b"keep-alive" not in second
    assert server.stop()[0] == 0


STOPS = """
Import module: #HttpServer.
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req | HttpResponse ok: 'x'].
main := Actor self.
1 to: 3 do: [:i | Actor spawn: [:me | main ! server stop]].
answers := (1 to: 3) collect: [:i | main receive: { Integer -> [:n | n] }].
answers printNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_stops_asked_at_once_all_answer_without_leaving_messages(tmp_path, mode):
    """Three actors stop one server at once: each gets 0 (nothing to kill), and the acceptor does
    not end with their requests unread (it printed `actor 2 ended with 2 unmatched messages`)."""
    assert run_program(STOPS, tmp_path, mode) == (0, "#(0 0 0)\n", "")
