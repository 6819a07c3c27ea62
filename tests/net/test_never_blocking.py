"""No network wait blocks a domain: on one domain, 200 actors wait on a server that never answers
and one on a DNS lookup that never comes back (the resolver test hook delays every answer by 5 s),
while a ticker actor keeps ticking every 10 ms. Every wait ends at its deadline (never before) with
the Timeout error, and the ticker's longest gap stays far below the 1 s the waits last: a domain
blocked in a socket call or in getaddrinfo would stall it for the whole second. Both under `lp run`
and as a binary (`lp build`), whose actors are fibers suspended on the same waits."""
from __future__ import annotations

import re
import socket

import pytest

from tests.net.helpers import MODES, run_program

PROGRAM = """
Object subclass: #Done fields: (timedOut elapsed).
Object subclass: #Report fields: (reply).
Object subclass: #Ticker.
Object subclass: #Collect.

Ticker class >> run: me last: last gap: gap count: n =
    me receive: { Report -> [:r | r reply ! { n. gap }] } after: 10 do: [
        now := Actor millisecondClock.
        Ticker run: me last: now gap: (gap max: now - last) count: n + 1].

Collect class >> from: me left: k timeouts: t early: e latest: m =
    k = 0
        ifTrue: [{ t. e. m }]
        ifFalse: [me receive: { Done -> [:d |
            Collect from: me left: k - 1
                timeouts: t + (d timedOut ifTrue: [1] ifFalse: [0])
                early: e + ((d elapsed < 1000) ifTrue: [1] ifFalse: [0])
                latest: (m max: d elapsed)] }].

main := Actor self.
ticker := Actor spawn: [:me | Ticker run: me last: Actor millisecondClock gap: 0 count: 0].
1 to: 200 do: [:i |
    Actor spawn: [:me |
        sock := TCP connect: '127.0.0.1' port: PORT timeout: 5000.
        t0 := Actor millisecondClock.
        r := Timeout try: [(sock readLine: 1000) printString] onError: [:e | e message].
        main ! (Done fields: { timedOut: r = 'readLine: timed out after 1000 ms'. elapsed: Actor millisecondClock - t0 })]].
Actor spawn: [:me |
    t0 := Actor millisecondClock.
    r := Timeout try: [(TCP connect: 'hangs.example' port: 80 timeout: 1000) printString] onError: [:e | e message].
    main ! (Done fields: { timedOut: r = 'connect to hangs.example:80 timed out after 1000 ms (resolving the name)'.
                           elapsed: Actor millisecondClock - t0 })].
result := Collect from: main left: 201 timeouts: 0 early: 0 latest: 0.
ticks := (ticker ask: Report new) await.
('timeouts ', (result at: 1) printString, ' early ', (result at: 2) printString,
 ' latest ', (result at: 3) printString, ' ticks ', (ticks at: 1) printString,
 ' gap ', (ticks at: 2) printString) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_two_hundred_silent_peers_and_a_hung_dns_lookup_on_one_domain(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("LPRT_TEST_DNS_DELAY_MS", "5000")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(512)      # the kernel completes the handshakes; nobody ever reads or writes
    try:
        status, out, err = run_program(PROGRAM.replace("PORT", str(silent.getsockname()[1])), tmp_path, mode, domains=1)
    finally:
        silent.close()
    assert (status, err) == (0, ""), err
    print(out)
    m = re.fullmatch(r"timeouts (\d+) early (\d+) latest (\d+) ticks (\d+) gap (\d+)\n", out)
    assert m, out
    timeouts, early, latest, ticks, gap = map(int, m.groups())
    assert timeouts == 201 and early == 0
    assert ticks >= 30          # about 100 if nothing stalls; a blocked domain gives a handful
    assert gap < 500            # a wait that blocked the domain would stall the ticker for 1,000 ms
