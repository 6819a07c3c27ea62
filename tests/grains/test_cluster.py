"""Grains across nodes (docs/grains.md, "Several nodes"): three LP nodes on 127.0.0.1, 127.0.0.2 and
127.0.0.3 with one port and a member list, sharing a real redis-server; clients keep one entry URL
and Remote follows the redirects. 1,000 concurrent callers on 200 ids: every increment counted
once, activations on every node, never two activations of an id at once. Then kill -9 of a node
under load: its ids come back on the entry node after the lease, nothing acknowledged is lost."""
from __future__ import annotations

import os
import signal
import socket
import time
import zlib
from collections import defaultdict

from tests.grains.helpers import workdir
from tests.grains.redis_server import redis  # noqa: F401 (fixture)
from tests.grains.test_redis import TRACING, stored
from tests.net.helpers import LPProcess

HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")

GRAIN = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: { n: self n + 1 }.
"""

NODE = """
server := RemoteServer startHost: '{host}' port: {port}.
store := Tracing fields: {{ inner: ((RedisGrainStore url: '{redis}' node: '{url}') ttl: {ttl}) timeout: 60000 }}.
counters := (Grain for: Counter initial: (Counter fields: {{ n: 0 }}) store: store url: '{url}'
    members: #({members}) options: (GrainOptions default with: {{ idle: {idle} }})) serveOn: server.
'ready' displayNl.
Actor sleep: 600000.
"""

CLIENT = """
entry := '{entry}'.
main := Actor self.
1 to: {callers} do: [:i | Actor spawn: [:me |
    id := 'g' , (i \\\\ {ids}) printString.
    c := Remote at: entry for: #Counter id: id timeout: 120000.
    1 to: {calls} do: [:k |
        Transcript showLine: (Error
            try: ['ack ' , id , ' ' , c increment n printString]
            onError: [:e | 'fail ' , id , ' ' , e message])].
    main ! #done]].
{callers} timesRepeat: [main receive: {{ #done -> [:m | nil] }}].
'finished' displayNl.
"""


def free_port_on_all() -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind((HOSTS[0], 0))
            port = s.getsockname()[1]
        try:
            for h in HOSTS[1:]:
                with socket.socket() as s:
                    s.bind((h, port))
            return port
        except OSError:
            continue
    raise RuntimeError("no port free on the three addresses")


def url(host: str, port: int) -> str:
    return f"http://{host}:{port}/rpc"


def start_nodes(redis, tmp_path, ttl: int, idle: int):  # noqa: F811
    port = free_port_on_all()
    members = " ".join(f"'{url(h, port)}'" for h in HOSTS)
    nodes = []
    for i, h in enumerate(HOSTS):
        src = GRAIN + TRACING + "Tracing >> holderOf: key = self inner holderOf: key.\n" + NODE.format(host=h, port=port, redis=redis.url, url=url(h, port), ttl=ttl, members=members,
                          idle=idle)
        nodes.append(LPProcess(src, workdir(tmp_path / f"node{i}"), domains=1))
    for n in nodes:
        assert n.readline(timeout=180) == "ready"   # a loaded machine checks and starts slowly
    return port, nodes


def node_lines(node):
    """Everything a node printed so far, split into words (its store's acquired / released log)."""
    return [line.split() for line in node.out]


def check_one_activation_at_a_time(nodes):
    """Per key, the activations (token: acquired, released) never overlap, whichever node made them."""
    acquired, released, where = defaultdict(dict), defaultdict(dict), defaultdict(set)
    for i, n in enumerate(nodes):
        for w in node_lines(n):
            if w[0] == "acquired":
                acquired[w[1]][int(w[2])] = int(w[3])
                where[w[1]].add(i)
            elif w[0] == "released":
                released[w[1]][int(w[2])] = int(w[3])
    for key, acq in acquired.items():
        tokens = sorted(acq)
        assert tokens == list(range(1, len(tokens) + 1)), key
        for t in tokens[1:]:
            assert t - 1 in released[key], (key, t)            # the previous activation ended ...
            assert acq[t] >= released[key][t - 1], (key, t)    # ... before this one began
    return acquired


def client_acks(out: str):
    acks, fails = defaultdict(list), defaultdict(int)
    for line in out.splitlines():
        w = line.split()
        if w[0] == "ack":
            acks[w[1]].append(int(w[2]))
        elif w[0] == "fail":
            fails[w[1]] += 1
    return acks, fails


def test_three_nodes_1000_callers_200_ids_through_one_entry(redis, tmp_path):  # noqa: F811
    port, nodes = start_nodes(redis, tmp_path, ttl=600000, idle=600000)
    try:
        client = LPProcess(GRAIN + CLIENT.format(entry=url(HOSTS[0], port), callers=1000, ids=200, calls=1),
                           workdir(tmp_path / "client"))
        rc, out, err = client.finish(timeout=180)
        assert (rc, err) == (0, ""), err
        acks, fails = client_acks(out)
        assert not fails, [line for line in out.splitlines() if line.startswith("fail")][:5]
        assert len(acks) == 200
        for gid, got in acks.items():
            # each of the 5 callers' increments counted exactly once: answers 1..5, stored 5
            assert sorted(got) == [1, 2, 3, 4, 5], gid
            assert stored(redis, f"Counter/{gid}")["n"] == 5, gid
    finally:
        for n in nodes:
            n.proc.kill()
            n.proc.wait()
    acquired = check_one_activation_at_a_time(nodes)
    assert len(acquired) == 200 and all(len(t) == 1 for t in acquired.values())   # no id moved
    for i, n in enumerate(nodes):       # each on its preferred node: CRC-32 of the id modulo 3
        for w in node_lines(n):
            if w[0] == "acquired":
                assert zlib.crc32(w[1].split("/")[1].encode()) % 3 == i, w
    per_node = [sum(w[0] == "acquired" for w in node_lines(n)) for n in nodes]
    assert sum(per_node) == 200 and min(per_node) >= 30, per_node   # spread over the three nodes


# the callers loop until the test sets the Redis key stop
KILL_CLIENT = """
entry := '{entry}'.
redis := Redis url: '{redis}'.
main := Actor self.
1 to: {callers} do: [:i | Actor spawn: [:me |
    id := 'k' , (i \\\\ {ids}) printString.
    c := Remote at: entry for: #Counter id: id timeout: 20000.
    [(redis command: #('GET' 'stop')) isAbsent] whileTrue: [
        Transcript showLine: (Error
            try: ['ack ' , id , ' ' , c increment n printString]
            onError: [:e | 'fail ' , id , ' ' , e message]).
        Actor sleep: 20].
    main ! #done]].
{callers} timesRepeat: [main receive: {{ #done -> [:m | nil] }}].
'finished' displayNl.
"""


def test_kill_9_of_a_node_under_load_its_ids_come_back_on_the_entry_node(redis, tmp_path):  # noqa: F811
    port, nodes = start_nodes(redis, tmp_path, ttl=2000, idle=60000)
    try:
        client = LPProcess(GRAIN + KILL_CLIENT.format(entry=url(HOSTS[0], port), redis=redis.url, callers=60,
                                                      ids=30), workdir(tmp_path / "client"))
        acked_before = 0
        while acked_before < 150:
            if client.readline(timeout=180).startswith("ack"):
                acked_before += 1
        os.kill(nodes[2].proc.pid, signal.SIGKILL)
        killed_at = len(client.out)
        nodes[2].proc.wait()
        while nodes[2].lines.get(timeout=10) is not None:   # all it printed before it died
            pass
        on_killed = {w[1].split("/")[1] for w in node_lines(nodes[2]) if w[0] == "acquired"}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and \
                not on_killed <= set(client_acks("".join(client.out[killed_at:]))[0]):
            time.sleep(0.2)    # until every id of the killed node was answered again, or 2 minutes
        redis.command("SET", "stop", "1")
        rc, out, err = client.finish(timeout=120)
        assert (rc, err) == (0, ""), err
    finally:
        for n in nodes:
            n.proc.kill()
            n.proc.wait()
    acks, fails = client_acks(out)
    assert on_killed, "the killed node served no id"
    after = client_acks("".join(client.out[killed_at:]))[0]
    for gid in on_killed:
        assert after[gid], gid        # calls to the killed node's ids were answered after the kill
    for gid, got in acks.items():
        n = stored(redis, f"Counter/{gid}")["n"]
        assert len(set(got)) == len(got), gid            # no answer given twice
        assert max(got) <= n, gid                        # nothing acknowledged lost
        # every answered call applied once; a failed one (in flight when the node died) at most once
        assert n <= len(got) + fails[gid], gid
    taken = {w[1].split("/")[1] for w in node_lines(nodes[0]) if w[0] == "acquired"}
    assert on_killed <= taken | {w[1].split("/")[1] for w in node_lines(nodes[1]) if w[0] == "acquired"}
