"""UDP both ways between LP and Python sockets, the receive deadline, closing, and the errors; under
`lp run` and as a binary (`lp build`)."""
from __future__ import annotations

import socket

import pytest

from tests.net.helpers import MODES, LPProcess, run_program


@pytest.mark.parametrize("mode", MODES)
def test_lp_sends_to_python_and_python_answers(tmp_path, mode):
    py = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    py.bind(("127.0.0.1", 0))
    py.settimeout(10)
    src = """
    u := UDPSocket bindHost: '127.0.0.1' port: 0.
    u port printNl.
    u sendTo: '127.0.0.1' port: PORT data: 'ping' asByteArray.
    (u receiveFrom: 10000) ifPresent: [:d | d data asString displayNl. d port printNl] ifAbsent: [].
    """.replace("PORT", str(py.getsockname()[1]))
    with LPProcess(src, tmp_path, mode=mode) as lp:
        lp_port = int(lp.readline())
        data, sender = py.recvfrom(100)
        assert (data, sender) == (b"ping", ("127.0.0.1", lp_port))
        py.sendto(b"pong \xe2\x9c\x93", sender)
        rc, out, err = lp.finish()
    py_port = py.getsockname()[1]
    py.close()
    assert (rc, err) == (0, "")
    assert out.split("\n")[1:3] == ["pong ✓", str(py_port)]


@pytest.mark.parametrize("mode", MODES)
def test_python_sends_to_an_lp_server_on_every_interface(tmp_path, mode):
    src = """
    Object subclass: #Echo.
    Echo class >> serve: u times: n = n = 0 ifTrue: [nil] ifFalse: [
        (u receiveFrom: 10000) ifPresent: [:d | u sendTo: d host port: d port data: d data , d data] ifAbsent: [].
        Echo serve: u times: n - 1].
    u := UDPSocket bind: 0.
    u port printNl.
    Echo serve: u times: 3.
    """
    with LPProcess(src, tmp_path, mode=mode) as lp:
        port = int(lp.readline())
        py = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        py.settimeout(10)
        answers = []
        for msg in (b"a", b"bc", bytes(range(256)) * 100):
            py.sendto(msg, ("127.0.0.1", port))
            answers.append(py.recvfrom(65536)[0])
        rc, out, err = lp.finish()
    py.close()
    assert (rc, err) == (0, "")
    assert answers == [b"aa", b"bcbc", bytes(range(256)) * 200]


@pytest.mark.parametrize("mode", MODES)
def test_deadlines_closing_and_errors(tmp_path, mode):
    status, out, err = run_program("""
    u := UDPSocket bindHost: 'localhost' port: 0.
    (Timeout try: [(u receiveFrom: 30) printString] onError: [:e | e printString]) displayNl.
    (Error try: [u sendTo: 'example.com' port: 9 data: (ByteArray new: 1). 'sent'] onError: [:e | e message]) displayNl.
    (Error try: [u sendTo: '127.0.0.1' port: 9 data: (ByteArray new: 70000). 'sent'] onError: [:e | e printString]) displayNl.
    (Error try: [u sendTo: '127.0.0.1' port: 0 data: (ByteArray new: 1). 'sent'] onError: [:e | e message]) displayNl.
    (Error try: [UDPSocket bindHost: '127.0.0.1' port: u port. 'bound'] onError: [:e | e printString]) displayNl.
    u close.
    (u receiveFrom: 1000) printNl.
    (Error try: [u sendTo: '127.0.0.1' port: 9 data: (ByteArray new: 1). 'sent'] onError: [:e | e message]) displayNl.
    """, tmp_path, mode)
    assert (status, err) == (0, ""), err
    assert out.split("\n")[:-1] == [
        "Timeout(message: 'receiveFrom: timed out after 30 ms')",
        "sendTo:port:data: needs a numeric address such as 127.0.0.1 or ::1, not 'example.com'",
        "LimitExceeded(message: 'sendTo:port:data: a datagram holds at most 65,507 bytes, not 70000')",
        "sendTo:port:data: port 0 is not between 1 and 65535",
        out.split("\n")[4],
        "Maybe none",
        "sendTo:port:data: the socket is closed"]
    assert out.split("\n")[4].startswith("NetworkError(message: 'cannot bind UDP 127.0.0.1:") and \
        "Address already in use" in out.split("\n")[4]
