"""The Nagle rule: every connected socket sets TCP_NODELAY. 1,000 sequential request/response round
trips over loopback between an LP client and an LP server, each message written in two pieces (the
shape that stalls: Nagle holds the second piece until the first is acknowledged, and the peer delays
that ACK by about 40 ms). The median is printed; it must be far below 40 ms."""
from __future__ import annotations

import re

import pytest

from tests.net.helpers import MODES, run_program

PROGRAM = """
Object subclass: #Bench.
Bench class >> serve: c = (c readLine: 5000)
    ifPresent: [:l | c write: 'pong '. c write: l, String lf. Bench serve: c]
    ifAbsent: [c close].
Bench class >> ping: s times: n into: acc bad: bad =
    n = 0
        ifTrue: [{ (acc asSortedArray) at: acc size // 2. bad }]
        ifFalse: [
            t0 := Actor microsecondClock.
            s write: 'ping '.
            s write: n printString, String lf.
            answer := (s readLine: 5000) valueOr: ''.
            Bench ping: s times: n - 1 into: (acc copyWith: Actor microsecondClock - t0)
                bad: bad + ((answer = ('pong ping ', n printString)) ifTrue: [0] ifFalse: [1])].
server := TCP listenHost: '127.0.0.1' port: 0.
Actor spawn: [:me | Bench serve: (server accept: 5000)].
sock := TCP connect: '127.0.0.1' port: server port timeout: 5000.
r := Bench ping: sock times: 1000 into: #() bad: 0.
('median ', (r at: 1) printString, ' us, wrong answers ', (r at: 2) printString) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_thousand_round_trips_never_wait_for_a_delayed_ack(tmp_path, mode):
    status, out, err = run_program(PROGRAM, tmp_path, mode, domains=2)
    assert (status, err) == (0, ""), err
    print(out)
    m = re.fullmatch(r"median (\d+) us, wrong answers 0\n", out)
    assert m, out
    assert int(m.group(1)) < 10_000     # 40,000 us with Nagle and a delayed ACK


REMOTE = """
Import module: #Remote.
Object subclass: #Echo.
Echo >> echo: n = n.
Object subclass: #Calls.
Calls class >> on: r times: n into: acc bad: bad =
    n = 0
        ifTrue: [{ (acc asSortedArray) at: acc size // 2. bad }]
        ifFalse: [
            t0 := Actor microsecondClock.
            answer := r echo: n.
            Calls on: r times: n - 1 into: (acc copyWith: Actor microsecondClock - t0)
                bad: bad + ((answer = n) ifTrue: [0] ifFalse: [1])].
server := RemoteServer startHost: '127.0.0.1' port: 0.
server register: Echo new for: #Echo id: 1.
r := Remote at: 'http://127.0.0.1:', server port printString, '/rpc' for: #Echo id: 1.
result := Calls on: r times: 1000 into: #() bad: 0.
('median ', (result at: 1) printString, ' us, wrong answers ', (result at: 2) printString) displayNl.
server stop.
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_thousand_remote_calls_never_wait_for_a_delayed_ack(tmp_path, mode):
    """Each call is a JSON-RPC request and response over HTTP: both written in one write each, on a
    pooled TCP_NODELAY connection."""
    status, out, err = run_program(REMOTE, tmp_path, mode, domains=2)
    assert (status, err) == (0, ""), err
    print(out)
    m = re.fullmatch(r"median (\d+) us, wrong answers 0\n", out)
    assert m, out
    assert int(m.group(1)) < 20_000     # 40,000 us or more with Nagle and a delayed ACK
