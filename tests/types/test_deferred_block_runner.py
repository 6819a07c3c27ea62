"""A block passed to a deferred send in a method, typed once per caller's actor (constraints.Send.reach).

`Holder >> any = self items anySatisfy: [...]` waits on a field's type, so the send is typed again in
every actor that calls `any`. The block's runner was one protocol shared by all those typings, so
every caller's actor was merged into one: a message only one of them receives passed for all
(`a ! 5` to an actor receiving only `#go`), and a grain method calling such a method took the
receives of the other callers (RECEIVE IN A PROXIED CALL, brief chk8 item 1, seen through
`HttpResponse header:value:`'s `anySatisfy:`). Each caller now runs its own copy of the block.
"""
from __future__ import annotations

from tests.conftest import run_lp
from tests.interp.helpers import run_source
from tests.types.helpers import check_source

HOLDER = """Object subclass: #Holder fields: (items).
Holder >> any = self items anySatisfy: [:e | Actor self ! #tick. e > 1].
h := Holder fields: { items: #(5) }.
"""

# two actors call `h any`; only the second receives Integers
MERGED = HOLDER + """a := Actor spawn: [:me | me receive: { #go -> [:m | h any printNl. me receive: { #tick -> [:t | 1] }] }].
b := Actor spawn: [:me | me receive: { Integer -> [:m | h any printNl. me receive: { #tick -> [:t | 2] }] }].
a ! 5.
b ! 6.
"""

# the block sends `#tick` to the actor running it: the first caller receives it, the second does not
TICK_NOT_RECEIVED = HOLDER + """a := Actor spawn: [:me | me receive: { #go -> [:m | h any printNl. me receive: { #tick -> [:t | 1] }] }].
b := Actor spawn: [:me | me receive: { Integer -> [:m | h any printNl. me receive: { #tock -> [:t | 2] }] }].
a ! #go.
b ! 6.
"""

RIGHT = HOLDER + """a := Actor spawn: [:me | me receive: { #go -> [:m | h any printNl. me receive: { #tick -> [:t | 'a tick' printNl] }] }].
a ! #go.
Actor sleep: 200.
b := Actor spawn: [:me | me receive: { Integer -> [:m | h any printNl. me receive: { #tick -> [:t | 'b tick' printNl] }] }].
b ! 6.
Actor sleep: 200.
"""

# a grain method and an actor that receives both call `any`: the grain's call ran in the actor's protocol
GRAIN_AND_ACTOR = """Import module: #Grain.
Object subclass: #Holder fields: (items).
Holder >> any = self items anySatisfy: [:e | e > 1].
Object subclass: #Room fields: (n).
Room >> probe = (Holder fields: { items: #(5) }) any.
rooms := Grain for: Room initial: (Room fields: { n: 0 }).
(rooms id: 'a') probe printNl.
a := Actor spawn: [:me | me receive: { #go -> [:m | (Holder fields: { items: #(1) }) any printNl] }].
a ! #go.
Actor sleep: 200.
"""

# the brief's program: a grain method answering a WebSocket response changed by header:value:
GRAIN_WEBSOCKET = """Import module: #Grain.
Import module: #Http.
Object subclass: #Host.
Host class >> run = Actor self receive: { #stop -> [:m | 1] } after: 0 do: [2].
Object subclass: #Util.
Util class >> ws: blk = (HttpResponse webSocket: blk) header: 'X' value: 'y'.
Object subclass: #Room fields: (n).
Room >> join: request = (HttpResponse webSocket: [:ws | Host run]) header: 'X' value: 'y'.
Room >> join2: request = Util ws: [:ws | Host run].
rooms := Grain for: Room initial: (Room fields: { n: 0 }).
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    req path = '/a' ifTrue: [(rooms id: 'a') join: req] ifFalse: [(rooms id: 'a') join2: req]].
(rooms id: 'a') n printNl.
server stop.
"""


def test_a_message_one_caller_does_not_receive_is_rejected():
    result, text = check_source(MERGED)
    assert [d.title for d in result.errors] == ["message not understood by actor"], text
    assert "test.lp:6:1" in text and "a ! 5." in text and "never receives it" in text, text


def test_a_send_to_actor_self_in_the_block_is_checked_per_caller():
    result, text = check_source(TICK_NOT_RECEIVED)
    assert [d.title for d in result.errors] == ["message not understood by actor"], text
    assert "test.lp:2:46" in text and "`Integer`, `#tock`" in text, text


def test_each_caller_runs_the_block_and_checks(tmp_path):
    result, text = check_source(RIGHT)
    assert result.diagnostics == [], text
    assert run_source(RIGHT, tmp_path, domains=1) == (0, "true\n'a tick'\ntrue\n'b tick'\n", "")


def test_a_grain_method_answering_a_websocket_with_a_header_checks(tmp_path):
    path = tmp_path / "ws.lp"
    path.write_text(GRAIN_WEBSOCKET)
    r = run_lp("check", str(path))
    assert r.returncode == 0, r.stderr.decode()


def test_a_grain_method_and_a_receiving_actor_share_a_method(tmp_path):
    path = tmp_path / "g.lp"
    path.write_text(GRAIN_AND_ACTOR)
    r = run_lp("run", str(path), cwd=tmp_path)
    assert (r.returncode, r.stdout.decode(), r.stderr.decode()) == (0, "true\nfalse\n", "")
