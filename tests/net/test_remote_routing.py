"""Remote's routing (docs/network.md, "Routing: redirects and takeover"): a router registered with
route:toActor: answers RemoteOutcome movedTo:, the server answers 307 with Location, the proxy
follows it and remembers the owner per (entry, class, id), gives up after four redirects, and retries
at the entry URL with takeover when a remembered node refuses the connection."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

from tests.net.helpers import LPProcess

PROGRAM = """
Import module: #Remote.
Object subclass: #Greeter fields: (greeting).
Greeter >> greet: name = self greeting , ', ' , name.
Object subclass: #Router.
"Serves ids starting with 'here' and any call retried here (takeover); moves ids starting
with 'gone' to gone (where nobody listens), the others to there."
Router class >> loop: me there: there gone: gone = me receive: { RemoteCall -> [:c |
    ((c id startsWith: 'here') or: [c takeover notEmpty])
        ifTrue: [c reply ! (RemoteOutcome of: ['entry (takeover: ' , c takeover , '), ' , c arguments first])]
        ifFalse: [c reply ! (RemoteOutcome movedTo: ((c id startsWith: 'gone') ifTrue: [gone] ifFalse: [there]))].
    Router loop: me there: there gone: gone] }.
entry := RemoteServer startHost: '127.0.0.1' port: 0.
other := RemoteServer startHost: '127.0.0.2' port: entry port.
url := 'http://127.0.0.1:' , entry port printString , '/rpc'.
there := 'http://127.0.0.2:' , entry port printString , '/rpc'.
gone := 'http://127.0.0.3:' , entry port printString , '/rpc'.
other route: #Greeter to: [:id | Maybe some: (Actor spawn: [:me | RemoteServer serve: (Greeter fields: { greeting: 'there' }) on: me])].
entry route: #Greeter toActor: (Actor spawn: [:me | Router loop: me there: there gone: gone]).
url displayNl.
Actor readyToTest.
"""


def test_redirects_are_followed_remembered_and_taken_over_when_refused(tmp_path):
    src = PROGRAM.replace("Actor readyToTest.", """
a := Remote at: url for: #Greeter id: 'a'.
(Remote ownerFor: url class: 'Greeter' id: 'a') printNl.
(a greet: 'Ada') displayNl.
(((Remote ownerFor: url class: 'Greeter' id: 'a') valueOr: '') = there) printNl.
((Remote at: url for: #Greeter id: 'here1') greet: 'Bob') displayNl.
g := Remote at: url for: #Greeter id: 'gone1'.
(g greet: 'Cy') displayNl.
(Remote ownerFor: url class: 'Greeter' id: 'gone1') printNl.
""")
    p = LPProcess(src, tmp_path)
    rc, out, err = p.finish()
    assert (rc, err) == (0, "")
    lines = out.splitlines()
    gone = lines[0].replace("127.0.0.1", "127.0.0.3")
    assert lines[1:] == ["Maybe none", "there, Ada", "true", "entry (takeover: ), Bob",
                         f"entry (takeover: {gone}), Cy", "Maybe none"]


def test_the_wire_307_and_too_many_redirects(tmp_path):
    src = PROGRAM.replace("Actor readyToTest.", """
Object subclass: #Loop.
Loop class >> loop: me to: u = me receive: { RemoteCall -> [:c | c reply ! (RemoteOutcome movedTo: u). Loop loop: me to: u] }.
entry route: #Looping toActor: (Actor spawn: [:me | Loop loop: me to: url]).
(RemoteError try: [(Remote at: url for: #Looping id: 'x') greet: 'Ada'] onError: [:e | e code printString , ' ' , e message])
    displayNl.
Actor sleep: 60000.
""")
    with LPProcess(src.replace("Object subclass: #Router.", "Object subclass: #Router.\nGreeter subclass: #Looping."),
                   tmp_path) as p:  # noqa: E501
        url = p.readline(timeout=180)
        assert p.readline(timeout=180) == f"307 Remote: {url} redirected the call too many times"
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "greet:",
                           "params": {"class": "Greeter", "id": "a", "args": ["Ada"]}}).encode()

        class NoFollow(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args):
                return None

        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        try:
            urllib.request.build_opener(NoFollow).open(req, timeout=10)
            raise AssertionError("not redirected")
        except urllib.error.HTTPError as e:
            assert e.code == 307
            there = url.replace("127.0.0.1", "127.0.0.2")
            assert e.headers["Location"] == there
            assert json.loads(e.read()) == {"jsonrpc": "2.0", "id": 7,
                                            "error": {"code": -32010, "message": there}}
        took = dict(json.loads(body), params={"class": "Greeter", "id": "a", "args": ["Ada"], "takeover": "x"})
        req = urllib.request.Request(url, data=json.dumps(took).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["result"] == "entry (takeover: x), Ada"


def test_at_most_100000_owners_are_remembered_the_oldest_dropped_first(tmp_path):
    p = LPProcess("""
1 to: 100001 do: [:i | Remote remember: 'http://b/rpc' for: 'http://a/rpc' class: 'C' id: i].
(Remote ownerFor: 'http://a/rpc' class: 'C' id: 1) printNl.
(Remote ownerFor: 'http://a/rpc' class: 'C' id: 2) printNl.
(Remote ownerFor: 'http://a/rpc' class: 'C' id: 100001) printNl.
Remote remember: 'http://a/rpc' for: 'http://a/rpc' class: 'C' id: 2.
(Remote ownerFor: 'http://a/rpc' class: 'C' id: 2) printNl.
""", tmp_path)
    rc, out, err = p.finish()
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["Maybe none", "Maybe some: 'http://b/rpc'", "Maybe some: 'http://b/rpc'",
                                "Maybe none"]
