"""Remote (docs/network.md, "Remote"): JSON-RPC 2.0 proxies between two LP processes, an LP client
against a Python JSON-RPC server (pooling: one connection for many calls; a pooled connection the
server dropped is retried once on a fresh one, a fresh one never), a Python client against an LP
RemoteServer (the wire format and its error codes), and the checker's typing of proxies."""
from __future__ import annotations

import json
import socket
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.interp.helpers import run_source
from tests.net.helpers import MODES, LPProcess, run_program

CLASSES = """
Import module: #Remote.
Object subclass: #Greeter fields: (greeting).
Object subclass: #Spot fields: (x y).
Greeter >> greet: name = self greeting , ', ' , name.
Greeter >> swap: p = Spot fields: { x: p y. y: p x }.
Greeter >> tagged = { #ok -> (Maybe some: $x). #no -> Maybe none }.
Greeter >> fail: text = Error raise: text.
Greeter >> slow: ms = (Actor sleep: ms. ms).
"""

SERVER = CLASSES + """
server := RemoteServer startHost: '127.0.0.1' port: 0.
server register: (Greeter fields: { greeting: 'hello' }) for: #Greeter id: 'en'.
server register: (Greeter fields: { greeting: 'bonjour' }) for: #Greeter id: 2.
server route: #Greeter to: [:id |
    (id isString and: [id startsWith: 'auto'])
        ifTrue: [Maybe some: (Actor spawn: [:me | RemoteServer serve: (Greeter fields: { greeting: id }) on: me])]
        ifFalse: [Maybe none]].
server port printNl.
Actor sleep: 120000.
"""

@pytest.mark.parametrize("mode", MODES)
def test_two_lp_processes(tmp_path, mode):
    (tmp_path / "s").mkdir()
    (tmp_path / "c").mkdir()
    with LPProcess(SERVER, tmp_path / "s", mode=mode) as server:
        port = int(server.readline())
        program = CLASSES + f"""
url := 'http://127.0.0.1:{port}/rpc'.
en := Remote at: url for: #Greeter id: 'en'.
(en greet: 'Ada') displayNl.
((Remote at: url for: #Greeter id: 2) greet: 'Ada') displayNl.
((Remote at: url for: #Greeter id: 'auto-1') greet: 'Ada') displayNl.
(en swap: (Spot fields: {{ x: 1. y: 2 }})) printNl.
en tagged printNl.
en printNl.
(RemoteError try: [en fail: 'boom'] onError: [:e | e message , ' ' , e code printString]) displayNl.
(RemoteError try: [(Remote at: url for: #Greeter id: 'fr') greet: 'A'] onError: [:e | e message , ' ' , e code printString]) displayNl.
slow := Remote at: url for: #Greeter id: 'en' timeout: 300.
(Timeout try: [RemoteError try: [(slow slow: 3000) printString] onError: [:e | 'a RemoteError']] onError: [:e | e class name , ': ' , e message]) displayNl.
dynamic := Remote at: url for: ('Gree' , 'ter') asSymbol id: 'en'.
(dynamic greet: 'Bob') displayNl.
(RemoteError try: [(Remote at: url for: #Greeter id: '2') greet: 'A'] onError: [:e | e code printString]) displayNl.
(Error try: [(dynamic greet: [:x | x]) printString] onError: [:e | e message]) displayNl.
"""
        with LPProcess(program, tmp_path / "c", mode=mode) as client:
            rc, out, err = client.finish()
    assert (rc, err) == (0, ""), err
    assert out.splitlines() == [
        "hello, Ada",
        "bonjour, Ada",
        "auto-1, Ada",
        "Spot(x: 2, y: 1)",
        "#(#ok -> Maybe some: $x #no -> Maybe none)",
        f"Remote(Greeter 'en' at http://127.0.0.1:{port}/rpc)",
        "boom -32000",
        'no Greeter "fr" here -32601',
        f"Timeout: Remote: #slow: to Greeter at http://127.0.0.1:{port}/rpc timed out after 300 ms",
        "hello, Bob",
        "-32601",                        # ids are compared by their JSON: '2' is not 2
        "JSON cannot encode a Block",    # blocks and actors do not travel
    ]


TICKING = CLASSES + """
Object subclass: #Tick.
Tick class >> loop: me count: n = me receive: { #stop -> [:m | n] } after: 10 do: [Tick loop: me count: n + 1].
Tick class >> report: me = (Tick loop: me count: 0) printNl.
server := RemoteServer startHost: '127.0.0.1' port: 0.
server register: (Greeter fields: { greeting: 'hello' }) for: #Greeter id: 'en'.
en := Remote at: 'http://127.0.0.1:' , server port printString , '/rpc' for: #Greeter id: 'en'.
ticker := Actor spawn: [:me | Tick report: me].
(en slow: 400) printNl.
ticker ! #stop.
Actor sleep: 100.
"""


def test_a_call_waits_in_its_own_actor_only(tmp_path):
    # one domain: the caller, the server's actors and a ticker share one thread
    status, out, err = run_source(TICKING, tmp_path, domains=1)
    assert (status, err) == (0, ""), err
    answer, ticks = out.split()
    assert answer == "400"
    assert int(ticks) >= 10      # 40 ticks of 10 ms if nothing else ran; a blocked domain gives 0


# ---- an LP client against a Python JSON-RPC server

class _Peer(BaseHTTPRequestHandler):
    """JSON-RPC over HTTP/1.1 keep-alive: `add:to:` adds, anything else is -32601. The server's
    `mode` decides whether it answers the second request of a connection ('drop-second') or no
    request at all ('drop-all')."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()   # http.server writes the head and the body apart: no Nagle stall on them
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.lock:
            self.server.connections += 1
        self.served = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.served += 1
        if self.server.mode == "drop-all" or (self.server.mode == "drop-second" and self.served == 2):
            self.close_connection = True
            self.connection.close()
            return
        call = json.loads(body)
        self.server.calls.append(call)
        if call["method"] == "add:to:":
            a, b = call["params"]["args"]
            answer = {"jsonrpc": "2.0", "id": call["id"], "result": a + b}
        else:
            answer = {"jsonrpc": "2.0", "id": call["id"], "error": {"code": -32601, "message": "no such method"}}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _python_peer(mode="answer"):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Peer)
    srv.daemon_threads = True
    srv.mode, srv.connections, srv.calls, srv.lock = mode, 0, [], threading.Lock()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


ADDER = """
Import module: #Remote.
Object subclass: #Adder.
Adder >> add: a to: b = a + b.
Object subclass: #Loop.
Loop class >> call: r times: n sum: s = n = 0 ifTrue: [s] ifFalse: [Loop call: r times: n - 1 sum: s + (r add: n to: 1)].
r := Remote at: 'http://127.0.0.1:PORT/' for: #Adder id: 7.
"""


def test_lp_client_against_a_python_peer_pools_one_connection(tmp_path):
    srv = _python_peer()
    try:
        src = ADDER.replace("PORT", str(srv.server_address[1])) + """
(Loop call: r times: 200 sum: 0) printNl.
(RemoteError try: [(Remote at: 'http://127.0.0.1:PORT/' for: #Adder id: 7) printString size. r add: 'x' to: 'y'] onError: [:e | e message]) displayNl.
""".replace("PORT", str(srv.server_address[1]))
        status, out, err = run_source(src, tmp_path, check=False)
    finally:
        srv.shutdown()
    assert (status, err) == (0, ""), err
    assert out.splitlines() == [str(sum(range(1, 201)) + 200), "xy"]
    assert srv.connections == 1           # 201 sequential calls on one pooled connection
    first = srv.calls[0]
    assert first == {"jsonrpc": "2.0", "id": 1, "method": "add:to:",
                     "params": {"class": "Adder", "id": 7, "args": [200, 1]}}


@pytest.mark.parametrize("mode", MODES)
def test_a_dropped_pooled_connection_is_retried_once_on_a_fresh_one(tmp_path, mode):
    srv = _python_peer("drop-second")     # each connection answers one call, then drops the next one
    try:
        status, out, err = run_program(ADDER.replace("PORT", str(srv.server_address[1])) + """
(Loop call: r times: 5 sum: 0) printNl.
""", tmp_path, mode)
    finally:
        srv.shutdown()
    assert (status, err) == (0, ""), err
    assert out == "20\n"
    assert len(srv.calls) == 5
    assert srv.connections == 5    # calls 2..5: the reused connection dropped, retried on a fresh one


def test_a_fresh_connection_dropped_is_not_retried(tmp_path):
    srv = _python_peer("drop-all")
    try:
        status, out, err = run_source(ADDER.replace("PORT", str(srv.server_address[1])) + """
(NetworkError try: [(r add: 1 to: 2) printString] onError: [:e | e class name]) displayNl.
""", tmp_path)
    finally:
        srv.shutdown()
    assert (status, err) == (0, ""), err
    assert out == "ConnectionClosed\n"
    assert srv.connections == 1


# ---- a Python client against an LP RemoteServer

def _post(port, data: bytes):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/rpc", data=data,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.headers["Content-Type"], json.loads(resp.read())


@pytest.mark.parametrize("mode", MODES)
def test_python_client_against_an_lp_server(tmp_path, mode):
    with LPProcess(SERVER, tmp_path, mode=mode) as server:
        port = int(server.readline())
        call = {"jsonrpc": "2.0", "id": 9, "method": "greet:", "params": {"class": "Greeter", "id": "en",
                                                                         "args": ["Py"]}}
        assert _post(port, json.dumps(call).encode()) == (
            200, "application/json", {"jsonrpc": "2.0", "id": 9, "result": "hello, Py"})
        call["params"]["args"] = [{"$class": "Spot", "x": 1, "y": [2]}]
        call["method"] = "swap:"
        assert _post(port, json.dumps(call).encode())[2]["result"] == {"$class": "Spot", "x": [2], "y": 1}

        def error(data):
            e = _post(port, data)[2]["error"]
            return e["code"], e["message"]
        assert error(b"{not json") == (
            -32700, "Remote request: invalid JSON: Expecting property name enclosed in double quotes: "
                    "line 1 column 2 (char 1)")
        assert error(b'{"jsonrpc": "2.0", "id": 1, "method": "greet:"}') == (
            -32600, "invalid request: a call needs method and params with class, id and args")
        call["method"] = "nope:"
        assert error(json.dumps(call).encode()) == (-32601, "a Greeter has no method #nope:")
        call["method"], call["params"]["args"] = "greet:", ["a", "b"]
        assert error(json.dumps(call).encode()) == (-32602, "#greet: takes 1 argument, not 2")
        call["method"], call["params"]["args"] = "printString", []
        # only the class's own methods are callable
        assert error(json.dumps(call).encode()) == (-32601, "a Greeter has no method #printString")
        call["params"]["id"], call["params"]["args"] = "nobody", ["x"]
        call["method"] = "greet:"
        assert error(json.dumps(call).encode()) == (-32601, 'no Greeter "nobody" here')
        assert error(b'{"jsonrpc": "2.0", "id": 1, "args": ["\xff"]}') == (
            -32700, "parse error: the body is not UTF-8 text")


# ---- the checker

TYPED = """
Import module: #Remote.
Object subclass: #Greeter fields: (greeting).
Greeter >> greet: name = self greeting , ', ' , name.
Greeter >> twice: n = n * 2.
x := Greeter fields: { greeting: 'hi' }.
g := Remote at: 'http://127.0.0.1:1/rpc' for: #Greeter id: 'en'.
"""


def _check(tmp_path, src):
    status, out, err = run_source(src, tmp_path)
    return status, err


def test_unknown_selector_on_a_typed_proxy_is_a_compile_error(tmp_path):
    status, err = _check(tmp_path, TYPED + "g gret: 'x'.\n")
    assert status == 1
    assert "The remote `Greeter` (`Remote[Greeter]`) does not understand `gret:`." in err
    assert "did you mean `greet:`?" in err


def test_arguments_and_results_of_a_typed_proxy_are_checked(tmp_path):
    status, err = _check(tmp_path, TYPED + "(g greet: 3) printNl.\n")
    assert status == 1 and "is `Integer`, but `Greeter >> greet:` needs `String`" in err
    status, err = _check(tmp_path, TYPED + "((g twice: 2) , 'x') printNl.\n")
    assert status == 1 and "`Integer` does not understand `,`." in err


def test_a_literal_class_must_be_a_class_of_the_program(tmp_path):
    status, err = _check(tmp_path, TYPED + "Remote at: 'http://h/' for: #Greter id: 1.\n")
    assert status == 1 and "There is no class named `Greter` for this Remote proxy." in err
    assert "did you mean `#Greeter`?" in err


def test_a_computed_class_gives_a_dynamic_proxy(tmp_path):
    status, out, err = run_source(TYPED + """
d := Remote at: 'http://127.0.0.1:1/rpc' for: ('Gre' , 'eter') asSymbol id: 'en'.
(NetworkError try: [(d anything: 1 at: 2) printString] onError: [:e | e class name]) displayNl.
""", tmp_path)
    assert (status, err, out) == (0, "", "ConnectionRefused\n")


def test_a_proxy_needs_the_remote_module(tmp_path):
    status, err = _check(tmp_path, "Object subclass: #A.\nA >> f = 1.\n(Remote at: 'http://h/' for: #A id: 1) f printNl.\n")
    assert status == 1 and "add `Import module: #Remote.`" in err


# ---- many callers at once

STRESS = """
Import module: #Remote.
Object subclass: #Counter fields: (id).
Counter >> hit: n = { self id. n }.
Object subclass: #Made fields: (reply).
Object subclass: #Calls.
Calls class >> on: r times: n bad: bad = n = 0 ifTrue: [bad] ifFalse: [
    answer := r hit: n.
    Calls on: r times: n - 1 bad: bad + (((answer at: 2) = n) ifTrue: [0] ifFalse: [1])].
Calls class >> made: me count: n = me receive: {
    #made -> [:m | Calls made: me count: n + 1].
    Made -> [:m | m reply ! n. Calls made: me count: n] }.
server := RemoteServer startHost: '127.0.0.1' port: 0.
made := Actor spawn: [:me | Calls made: me count: 0].
"the resolver runs in the registry: one actor per id, however many callers ask at once"
server route: #Counter to: [:id |
    made ! #made.
    Maybe some: (Actor spawn: [:me | RemoteServer serve: (Counter fields: { id: id printString }) on: me])].
url := 'http://127.0.0.1:' , server port printString , '/rpc'.
futures := (1 to: 16) collect: [:i |
    p := Promise new.
    Actor spawn: [:me |
        r := Remote at: url for: #Counter id: 'c' , (i \\\\ 4) printString.
        p resolve: (Calls on: r times: 25 bad: 0)].
    p future].
(futures inject: 0 into: [:acc :f | acc + f await]) printNl.
(made ask: Made new) await printNl.
"""


@pytest.mark.parametrize("domains", [1, 2])
def test_many_callers_at_once_one_actor_per_routed_id(tmp_path, domains):
    """16 actors make 25 calls each, four ids between them: every answer right, and the route's
    resolver ran once per id (the registry remembers what it answered)."""
    status, out, err = run_source(STRESS, tmp_path, domains=domains)
    assert (status, err) == (0, ""), err
    assert out == "0\n4\n"


def test_many_callers_at_once_compiled(tmp_path):
    """The same as a binary on two domains, run ten times: proxies, pooled connections and the server's
    actors shared between domains."""
    for _ in range(10):
        status, out, err = run_program(STRESS, tmp_path, "build", domains=2)
        assert (status, out, err) == (0, "0\n4\n", ""), err


ONE_SHOT = """
Import module: #Remote.
Object subclass: #Once fields: (n).
Once >> n: k = k.
Object subclass: #Made fields: (reply).
Object subclass: #Count.
Count class >> loop: me n: n = me receive: {
    #made -> [:m | Count loop: me n: n + 1].
    Made -> [:m | m reply ! n. Count loop: me n: n] }.
Count class >> serveOne: obj on: me =
    me receive: { RemoteCall -> [:call | call reply ! (RemoteOutcome of: [
        Remote perform: call selector on: obj withArguments: call arguments])] }.
server := RemoteServer startHost: '127.0.0.1' port: 0.
made := Actor spawn: [:me | Count loop: me n: 0].
server route: #Once to: [:id |
    made ! #made.
    Maybe some: (Actor spawn: [:me | Count serveOne: (Once fields: { n: 0 }) on: me])].
r := Remote at: 'http://127.0.0.1:' , server port printString , '/rpc' for: #Once id: 1.
(1 to: 5) do: [:i | (r n: i) printNl. Actor sleep: 20].
(made ask: Made new) await printNl.
"""


def test_a_routed_actor_that_ends_is_resolved_again(tmp_path):
    """An actor the resolver answered serves its id until it ends (here after one call): the next
    call runs the resolver again, as grains deactivated when idle will need."""
    status, out, err = run_source(ONE_SHOT, tmp_path, domains=2)
    assert (status, err) == (0, ""), err
    assert out == "1\n2\n3\n4\n5\n5\n"


STOP = """
Import module: #Remote.
Object subclass: #Greeter fields: (greeting watcher).
Greeter >> greet: name = (self watcher ! Actor self. self greeting , ', ' , name).
main := Actor self.
server := RemoteServer startHost: '127.0.0.1' port: 0.
server register: (Greeter fields: { greeting: 'hello'. watcher: main }) for: #Greeter id: 'en'.
mine := Actor spawn: [:me | me receive: { #never -> [] }].
server registerActor: mine for: #Greeter id: 'mine'.
url := 'http://127.0.0.1:' , server port printString , '/rpc'.
((Remote at: url for: #Greeter id: 'en') greet: 'Ada') displayNl.
served := main receive: { Actor -> [:a | a] }.
main monitor: served.
main monitor: server registry.
server stop.
server stop.
1 to: 2 do: [:i | main receive: { Down -> [:d | (d actor = served or: [d actor = server registry]) printNl] }
    after: 5000 do: ['no Down' displayNl]].
{ served isAlive. server registry isAlive. mine isAlive } printNl.
(Error try: [(Remote at: url for: #Greeter id: 'en' timeout: 2000) greet: 'Bob'] onError: [:e | e class name]) displayNl.
mine exit: #killed.
"""


def test_stop_ends_the_registry_and_the_actors_it_started(tmp_path):
    """stop ends the registry and the actors register:for:id: started; an actor given with
    registerActor:for:id: is its maker's and goes on; later calls find nobody listening; stopping
    again does nothing."""
    status, out, err = run_source(STOP, tmp_path, domains=2)
    assert (status, err) == (0, ""), err
    assert out == "hello, Ada\ntrue\ntrue\n#(false false true)\nConnectionRefused\n"


class _Liar(BaseHTTPRequestHandler):
    """A JSON-RPC peer whose answers are not of the types the client's class declares."""
    protocol_version = "HTTP/1.1"
    ANSWERS = {"count": "not a number", "name": 12345, "point": {"$class": "Pt", "x": "str", "y": 2}, "flag": "yes"}

    def log_message(self, *a):
        pass

    def do_POST(self):
        call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        data = json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": self.ANSWERS[call["method"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.mark.parametrize("mode", MODES)
def test_answers_of_the_wrong_type_fail_as_lp_errors_in_both_modes(tmp_path, mode):
    """The client trusts an answer as a Dynamic value is trusted: a wrong one fails at its first send
    it does not understand, never read as the declared type (a binary computed with pointers)."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Liar)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        status, out, err = run_program("""
Import module: #Remote.
Object subclass: #Pt fields: (x y).
Object subclass: #Liar.
Liar >> count = 1.
Liar >> name = 'n'.
Liar >> point = Pt fields: { x: 1. y: 2 }.
Liar >> flag = true.
r := Remote at: 'http://127.0.0.1:PORT/rpc' for: #Liar id: 'x'.
show := [:b | (Error try: [b value printString] onError: [:e | e message]) displayNl].
show value: [r count + 1].
show value: [r name size].
show value: [r point x + 1].
show value: [r flag ifTrue: [1] ifFalse: [2]].
""".replace("PORT", str(srv.server_address[1])), tmp_path, mode)
    finally:
        srv.shutdown()
    assert (status, err) == (0, "")
    assert out.splitlines() == ["the String 'not a number' does not understand #+",
                                "the Integer 12345 does not understand #size",
                                "the String 'str' does not understand #+",
                                "the String 'yes' does not understand #ifTrue:ifFalse:"]


TAGGED = """
Import module: #Remote.
Object subclass: #Pt fields: (x y).
show := [:t | (Error try: [(Remote decode: t) printString] onError: [:e | e class name , ': ' , e message]) displayNl].
show value: '{"$symbol": 5}'.
show value: '{"$symbol": "ok"}'.
show value: '{"$char": "ab"}'.
show value: '{"$maybe": [1, 2]}'.
show value: '{"$assoc": [1]}'.
show value: '{"$dict": [[1]]}'.
show value: '{"$bytes": "!!!notbase64"}'.
show value: '{"$bytes": "notbase6"}'.
show value: '{"$bytes": "YQ"}'.
show value: '{"$bytes": "YQ=="}'.
show value: '{"$bytes": "YQ==YQ=="}'.
show value: '{"$class": 5, "x": 1}'.
show value: '{"$class": "Pt", "x": 1, "y": 2}'.
show value: '{"$class": "Nope", "x": 1}'.
show value: '{"$symbol": "a", "x": 1}'.
(Error try: [(Remote request: '{"jsonrpc":"2.0","id":1,"method":"m","params":{"class":"C","id":1,"args":[{"$char":"ab"}]}}') printString] onError: [:e | e printString]) displayNl.
(Error try: [(Remote result: '{"jsonrpc":"2.0","id":1,"result":{"$bytes":"@@@@"}}') printString] onError: [:e | e printString]) displayNl.
"""


@pytest.mark.parametrize("mode", MODES)
def test_malformed_tagged_values_raise_the_same_in_both_modes(tmp_path, mode):
    """One strict decoder: a one-key tagged object whose value is not of its tag's shape (base64 checked
    exactly) raises, a RemoteError -32600 in a call or an answer; an unknown class or a key that
    is no tag stays a Dictionary."""
    status, out, err = run_program(TAGGED, tmp_path, mode)
    assert (status, err) == (0, "")
    assert out == """Error: a malformed tagged value: $symbol needs a String
#ok
Error: a malformed tagged value: $char needs a String of one character
Error: a malformed tagged value: $maybe needs an Array of at most one value
Error: a malformed tagged value: $assoc needs an Array of two values
Error: a malformed tagged value: $dict needs an Array of pairs
Error: a malformed tagged value: $bytes needs base64 text
#[158 139 91 106 199 186]
Error: a malformed tagged value: $bytes needs base64 text
#[97]
Error: a malformed tagged value: $bytes needs base64 text
Error: a malformed tagged value: $class needs a class name (a String)
Pt(x: 1, y: 2)
Dictionary('$class' -> 'Nope', 'x' -> 1)
Dictionary('$symbol' -> 'a', 'x' -> 1)
RemoteError(message: 'invalid request: a malformed tagged value: $char needs a String of one character', code: -32600)
RemoteError(message: 'invalid request: a malformed tagged value: $bytes needs base64 text', code: -32600)
"""



@pytest.mark.parametrize("mode", MODES)
def test_proxies_are_equal_when_their_ids_json_is(tmp_path, mode):
    """`=` compares URL, class and the id's JSON in both modes (1 and 1.0 are two ids to the server);
    a negative timeout counts as 0 rather than being refused."""
    status, out, err = run_program("""
Import module: #Remote.
Object subclass: #Svc.
url := 'http://127.0.0.1:1/rpc'.
((Remote at: url for: #Svc id: 1) = (Remote at: url for: #Svc id: 1.0)) printNl.
((Remote at: url for: #Svc id: 1) = (Remote at: url for: #Svc id: 1)) printNl.
((Remote at: url for: #Svc id: 1 timeout: -5) = (Remote at: url for: #Svc id: 1)) printNl.
""", tmp_path, mode)
    assert (status, out, err) == (0, "false\ntrue\ntrue\n", "")
