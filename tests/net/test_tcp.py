"""TCP from LP against Python sockets: an LP client of a Python server, an LP server driven by a
Python client, the one rule for bounded reads (EOF answers Maybe none, a passed deadline raises
Timeout), the distinct errors (refused, reset, DNS, closed mid-data, over-long line), and ByteArray."""
from __future__ import annotations

import re
import socket
import threading

import pytest

from tests.interp.helpers import run_source
from tests.net.helpers import MODES, LPProcess, python_server, run_program


def echo_lines(c):
    f = c.makefile("rb")
    for line in f:
        c.sendall(b"echo " + line)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("domains", [1, 2])
def test_lp_client_talks_to_a_python_server(tmp_path, domains, mode):
    port, stop = python_server(echo_lines)
    src = """
    sock := TCP connect: '127.0.0.1' port: PORT timeout: 5000.
    sock write: 'one', String lf.
    sock write: 'two', String crlf.
    (sock readLine: 5000) printNl.
    (sock readLine: 5000) printNl.
    (sock writeBytes: #(104 105 10) asByteArray) printNl.
    (sock readBytes: 8 timeout: 5000) printNl.
    sock close.
    sock isClosed printNl.
    """.replace("PORT", str(port)).replace("#(104 105 10) asByteArray", "(ByteArray withAll: #(104 105 10))")
    try:
        status, out, err = run_program(src, tmp_path, mode, domains=domains)
    finally:
        stop()
    assert (status, err) == (0, "")
    assert out.split("\n")[:5] == ["Maybe some: 'echo one'", "Maybe some: 'echo two'", "3",
                                   "Maybe some: #[101 99 104 111 32 104 105 10]", "true"]


@pytest.mark.parametrize("mode", MODES)
def test_a_name_is_resolved_off_the_domains(tmp_path, mode):
    port, stop = python_server(echo_lines)
    src = """
    sock := TCP connect: 'localhost' port: PORT timeout: 5000.
    sock write: 'via dns', String lf.
    (sock readLine: 5000) printNl.
    """.replace("PORT", str(port))
    try:
        status, out, err = run_program(src, tmp_path, mode)
    finally:
        stop()
    assert (status, out, err) == (0, "Maybe some: 'echo via dns'\n", "")


@pytest.mark.parametrize("mode", MODES)
def test_lp_server_serves_python_clients(tmp_path, mode):
    src = """
    server := TCP listenHost: '127.0.0.1' port: 0.
    server port printNl.
    1 to: 3 do: [:i |
        c := server accept: 10000.
        Actor spawn: [:me |
            (c readLine: 5000) ifPresent: [:l | c write: l asUppercase, String crlf] ifAbsent: [].
            (c readLine: 5000) printNl.
            c close]].
    Actor sleep: 300.
    """
    with LPProcess(src, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        answers = []
        for word in (b"alpha", b"beta", b"gamma"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
                assert c.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0  # ours; the LP end sets its own
                c.sendall(word + b"\n")
                answers.append(c.makefile("rb").readline())
                c.shutdown(socket.SHUT_WR)
                assert c.recv(10) == b""   # the LP side closed after seeing our EOF
        rc, out, err = lp.finish()
    assert (rc, err) == (0, "")
    assert answers == [b"ALPHA\r\n", b"BETA\r\n", b"GAMMA\r\n"]
    assert out.split("\n")[1:4] == ["Maybe none"] * 3


def _lp_run(src, tmp_path, mode="run"):
    status, out, err = run_program(src, tmp_path, mode)
    assert (status, err) == (0, ""), err
    return out.split("\n")[:-1]


@pytest.mark.parametrize("mode", MODES)
def test_bounded_reads_follow_one_rule(tmp_path, mode):
    def peer(c):
        c.sendall(b"first\nno newline at the end")
        c.recv(100)          # wait for the client's "go"
        c.shutdown(socket.SHUT_WR)
        c.recv(100)

    port, stop = python_server(peer)
    src = """
    sock := TCP connect: '127.0.0.1' port: PORT timeout: 5000.
    (sock readLine: 5000) printNl.
    (Timeout try: [(sock readLine: 50) printString] onError: [:e | e printString]) displayNl.
    sock write: 'go', String lf.
    (sock readLine: 5000) printNl.
    (sock readLine: 5000) printNl.
    (sock readBytes: 4 timeout: 5000) printNl.
    """.replace("PORT", str(port))
    try:
        out = _lp_run(src, tmp_path, mode)
    finally:
        stop()
    assert out == ["Maybe some: 'first'", "Timeout(message: 'readLine: timed out after 50 ms')",
                   "Maybe some: 'no newline at the end'", "Maybe none", "Maybe none"]


@pytest.mark.parametrize("mode", MODES)
def test_a_line_that_is_not_utf8_stays_unread(tmp_path, mode):
    """readLine: refuses a line that is not UTF-8 without consuming it: readBytes: then reads it."""
    port, stop = python_server(lambda c: (c.sendall(b"a \xff b\nA\n"), c.recv(100)))
    src = """
    sock := TCP connect: '127.0.0.1' port: PORT timeout: 5000.
    (NetworkError try: [(sock readLine: 5000) printString] onError: [:e | e message]) displayNl.
    (sock readBytes: 6 timeout: 5000) printNl.
    (sock readLine: 5000) printNl.
    """.replace("PORT", str(port))
    try:
        out = _lp_run(src, tmp_path, mode)
    finally:
        stop()
    assert out == ["readLine: the line is not UTF-8 text (it is still unread: read it with readBytes:timeout:)",
                   "Maybe some: #[97 32 255 32 98 10]", "Maybe some: 'A'"]


@pytest.mark.parametrize("mode", MODES)
def test_a_top_level_socket_lives_while_the_program_runs(tmp_path, mode):
    """`conn` is named only in blocks of actors that have ended; the program's last statement (a send
    that was a tail call, dropping the program's bindings) still runs, so the peer sees no end."""
    out = _lp_run("""
server := TCP listenHost: '127.0.0.1' port: 0.
sock := TCP connect: '127.0.0.1' port: server port timeout: 1000.
conn := server accept: 1000.
show := [:label :b | (Error try: [label, ' -> ', b value printString] onError: [:e | label, ' -> ', e class printString, ': ', e message]) displayNl].
Actor spawn: [:me | conn write: 'one', String lf].
show value: 'one' value: [sock readLine: 2000].
show value: 'two' value: [sock readLine: 300].
""", tmp_path, mode)
    assert out == ["one -> Maybe some: 'one'", "two -> Timeout: readLine: timed out after 300 ms"]


@pytest.mark.parametrize("mode", MODES)
def test_an_accepted_socket_names_the_port_it_was_accepted_on(tmp_path, mode):
    """Port 0 picks a port; the messages about an accepted socket name that port, not 0."""
    out = _lp_run("""
server := TCP listenHost: '127.0.0.1' port: 0.
sock := TCP connect: '127.0.0.1' port: server port timeout: 1000.
conn := server accept: 1000.
sock write: 'ab'. sock close.
server port printNl.
(Error try: [(conn readBytes: 5 timeout: 1000) printString] onError: [:e | e message]) displayNl.
""", tmp_path, mode)
    assert out[1] == f"readBytes:timeout: the peer (a client of 127.0.0.1:{out[0]}) closed the connection in the " \
                     "middle of the data"


@pytest.mark.parametrize("mode", MODES)
def test_the_distinct_errors(tmp_path, mode):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused_port = closed.getsockname()[1]
    closed.close()

    def truncating(c):
        c.sendall(b"abc")

    def resetting(c):
        c.recv(10)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST on close

    def flooding(c):
        c.sendall(b"x" * 300_000)
        c.recv(10)

    t_port, stop1 = python_server(truncating)
    r_port, stop2 = python_server(resetting)
    f_port, stop3 = python_server(flooding)
    src = """
    Object subclass: #Try.
    Try class >> show: blk = (Error try: [blk value. 'no error'] onError: [:e | e printString]) displayNl.
    Try show: [TCP connect: '127.0.0.1' port: REFUSED timeout: 5000].
    Try show: [TCP connect: 'no-such-host.invalid' port: 80 timeout: 5000].
    Try show: [(TCP connect: '127.0.0.1' port: TRUNC timeout: 5000) readBytes: 10 timeout: 5000].
    Try show: [s := TCP connect: '127.0.0.1' port: RESET timeout: 5000. s write: 'x'. s readLine: 5000].
    Try show: [(TCP connect: '127.0.0.1' port: FLOOD timeout: 5000) readLine: 5000].
    Try show: [(TCP connect: '127.0.0.1' port: FLOOD timeout: 5000) readLine: 5000 limit: 10].
    Try show: [s := TCP connect: '127.0.0.1' port: FLOOD timeout: 5000. s close. s readLine: 10].
    Try show: [TCP connect: '127.0.0.1' port: 0 timeout: 10].
    (NetworkError try: [(TCP connect: '127.0.0.1' port: REFUSED timeout: 5000) printString] onError: [:e | e message]) displayNl.
    """
    for k, v in {"REFUSED": refused_port, "TRUNC": t_port, "RESET": r_port, "FLOOD": f_port}.items():
        src = src.replace(k, str(v))
    try:
        out = _lp_run(src, tmp_path, mode)
    finally:
        stop1(), stop2(), stop3()
    out = [_class_and_message(line) for line in out[:8]] + out[8:]
    assert out[0] == f"ConnectionRefused: connect to 127.0.0.1:{refused_port}: connection refused"
    assert out[1].startswith("DNSError: cannot resolve host 'no-such-host.invalid': ")
    assert out[2] == f"ConnectionClosed: readBytes:timeout: the peer (127.0.0.1:{t_port}) closed the connection " \
                     "in the middle of the data"
    assert out[3].startswith(f"ConnectionReset: readLine: from 127.0.0.1:{r_port}: connection reset by the peer")
    assert out[4] == "LimitExceeded: readLine: the line is longer than 65536 bytes"
    assert out[5] == "LimitExceeded: readLine:limit: the line is longer than 10 bytes"
    assert out[6] == "NetworkError: readLine: the socket is closed"
    assert out[7] == "Error: TCP connect:port:timeout: port 0 is not between 1 and 65535"
    assert out[8] == f"connect to 127.0.0.1:{refused_port}: connection refused"


def _class_and_message(printed):
    m = re.fullmatch(r"(\w+)\(message: '(.*)'\)", printed)
    assert m, printed
    return m.group(1) + ": " + m.group(2).replace("''", "'")


@pytest.mark.parametrize("mode", MODES)
def test_an_uncaught_timeout_is_an_lp_error_with_the_line(tmp_path, mode):
    src = """server := TCP listenHost: '127.0.0.1' port: 0.
sock := TCP connect: '127.0.0.1' port: server port timeout: 1000.
line := sock readLine: 30.
"""
    status, out, err = run_program(src, tmp_path, mode)
    assert status == 1
    assert "prog.lp:3:9: Timeout: readLine: timed out after 30 ms" in err
    assert "line := sock readLine: 30." in err and "^^^^" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("mode", MODES)
def test_two_servers_share_a_port_on_different_addresses(tmp_path, mode):
    src = """
    a := TCP listenHost: '127.0.0.1' port: 0.
    b := TCP listenHost: '127.0.0.2' port: a port.
    (a port = b port) printNl.
    (Error try: [TCP listenHost: '127.0.0.1' port: a port. 'bound'] onError: [:e | e message]) displayNl.
    (Error try: [TCP listenHost: 'example.com' port: 0. 'bound'] onError: [:e | e message]) displayNl.
    c := TCP connect: '127.0.0.2' port: b port timeout: 1000.
    (Timeout try: [a accept: 20. 'accepted on a'] onError: [:e | e message]) displayNl.
    (b accept: 1000) printNl.
    """
    out = _lp_run(src, tmp_path, mode)
    assert out[0] == "true"
    assert out[1].endswith("the address is already in use")
    assert out[2].startswith("TCP listenHost:port: needs a numeric local address")
    assert out[3:] == ["accept: timed out after 20 ms", "a TCPSocket"]


def test_bytes_are_not_strings_for_the_checker(tmp_path):
    status, _, err = run_source("""
    sock := TCP connect: '127.0.0.1' port: 1 timeout: 10.
    sock write: (ByteArray new: 3).
    """, tmp_path)
    assert status == 1 and "TYPE MISMATCH" in err and "ByteArray" in err
    status, _, err = run_source("""
    s := TCP connect: '127.0.0.1' port: 1 timeout: 10.
    (s readBytes: 3 timeout: 10) ifPresent: [:b | b asUppercase] ifAbsent: [].
    """, tmp_path)
    assert status == 1 and "does not understand `asUppercase`" in err


@pytest.mark.parametrize("mode", MODES)
def test_byte_arrays(tmp_path, mode):
    out = _lp_run("""
    b := 'hé!' asByteArray.
    b printNl. b size printNl. (b at: 2) printNl. b asString printNl.
    (b , (ByteArray new: 2)) printNl.
    (b copyFrom: 2 to: 3) printNl.
    (b = 'hé!' asByteArray) printNl.
    (b indexOf: 33) printNl.
    (Error try: [(ByteArray withAll: #(255)) asString] onError: [:e | e message]) displayNl.
    """, tmp_path, mode)
    assert out == ["#[104 195 169 33]", "4", "195", "'hé!'", "#[104 195 169 33 0 0]", "#[195 169]", "true", "4",
                   "asString: the bytes are not UTF-8 text (byte 1)"]


@pytest.mark.parametrize("mode", MODES)
def test_a_socket_is_closed_when_its_actor_ends_by_exit(tmp_path, mode):
    """The peer of an actor that ends with `Actor exit:` (any reason) or an uncaught error sees the end
    of the stream (lp run kept the socket open: the frames stayed referenced)."""
    status, out, err = run_program("""
server := TCP listenHost: '127.0.0.1' port: 0.
Object subclass: #T.
T class >> serve: ending on: server = Actor spawn: [:me |
    c := server accept: 3000. c write: 'hi' , String lf. ending value].
T class >> read: s = { s readLine: 5000. s readLine: 5000 } printString.
ends := { [Actor exit: #killed]. [Actor exit: #normal]. [Actor exit: (Error fields: { message: 'bye' })].
    [Error raise: 'uncaught'] }.
ends do: [:b | T serve: b on: server. (T read: (TCP connect: '127.0.0.1' port: server port timeout: 1000)) displayNl].
""", tmp_path, mode, domains=1)
    assert status == 0, err
    assert out == "#(Maybe some: 'hi' Maybe none)\n" * 4
