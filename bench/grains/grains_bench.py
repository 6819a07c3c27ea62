"""Grain throughput, interpreted and compiled: local calls/s (one caller in sequence, and 50 callers on 50 ids),
activations/s (ids touched once each), with the default in-memory store and with Redis.

    python bench/grains/grains_bench.py [--calls 3000] [--ids 2000] [--domains 2] [--modes run build]

Each figure is timed inside the LP program (Actor millisecondClock) after a warm-up, so start-up
is not counted. The Redis rows need redis-server (apt install redis-server); they are skipped
without it. The last row calls a node in another process through Remote (the sequential figure is
one caller on one pooled connection). Each row runs under `lp run` and as the binary `lp build`
makes (the build is not timed).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.grains.redis_server import RedisServer  # noqa: E402

PROGRAM = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: {{ n: self n + 1 }}.
Object subclass: #Bench.
{extra}
Bench class >> ms: aBlock = (t := Actor millisecondClock. aBlock value. Actor millisecondClock - t max: 1).
counters := {server}.
main := Actor self.
(counters id: 'warm') increment.
one := counters id: 'one'.
t := Bench ms: [1 to: {calls} do: [:i | one increment]].
('sequential ' , ({calls} * 1000 // t) printString) displayNl.
t := Bench ms: [
    1 to: 50 do: [:c | Actor spawn: [:me |
        g := counters id: 'c' , c printString.
        1 to: {calls} // 50 do: [:i | g increment].
        main ! #done]].
    50 timesRepeat: [main receive: {{ #done -> [:m | nil] }}]].
('concurrent ' , ({calls} // 50 * 50 * 1000 // t) printString) displayNl.
t := Bench ms: [1 to: {ids} do: [:i | (counters id: 'a' , i printString) n]].
('activations ' , ({ids} * 1000 // t) printString) displayNl.
"""


NODE = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: {{ n: self n + 1 }}.
server := RemoteServer startHost: '127.0.0.1' port: 0.
url := 'http://127.0.0.1:' , server port printString , '/rpc'.
(Grain for: Counter initial: (Counter fields: {{ n: 0 }}) redis: '{redis}' url: url members: {{ url }}) serveOn: server.
url displayNl.
Actor sleep: 3600000.
"""

# the client's `counters id: x` is a Remote proxy through the node's URL
VIA = """Object subclass: #Via fields: (url).
Via >> id: x = Remote at: self url for: #Counter id: x timeout: 60000."""


ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def command(f: Path, domains: int, mode: str) -> list[str]:
    """How to run the program f: `lp run`, or (mode "build") its binary, built first."""
    if mode == "run":
        return [sys.executable, "-m", "lp", "run", "--domains", str(domains), str(f)]
    binary = f.with_suffix("")
    subprocess.run([sys.executable, "-m", "lp", "build", str(f), "-o", str(binary)], env=ENV, check=True)
    return [str(binary), "--domains", str(domains)]


def start_node(redis_url: str, domains: int, mode: str):
    d = tempfile.mkdtemp()
    f = Path(d) / "node.lp"
    f.write_text(NODE.format(redis=redis_url))
    p = subprocess.Popen(command(f, domains, mode), stdout=subprocess.PIPE, text=True, env=ENV)
    return p, p.stdout.readline().strip()


def run(server: str, calls: int, ids: int, domains: int, mode: str, extra: str = "") -> dict[str, int]:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.lp"
        f.write_text(PROGRAM.format(server=server, calls=calls, ids=ids, extra=extra))
        out = subprocess.run(command(f, domains, mode), capture_output=True, text=True, env=ENV, check=True,
                             cwd=d).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--ids", type=int, default=2000)
    ap.add_argument("--domains", type=int, default=2)
    ap.add_argument("--modes", nargs="+", choices=["run", "build"], default=["run", "build"])
    a = ap.parse_args()
    initial = "Counter initial: (Counter fields: { n: 0 })"
    rows = [("memory store", f"Grain for: {initial} store: MemoryGrainStore start"),
            ("SQLite, the default (lp-data/)", f"Grain for: {initial}")]
    redis = None
    try:
        tmp = tempfile.TemporaryDirectory()
        redis = RedisServer(Path(tmp.name))
        rows += [("redis, one node", f"Grain for: {initial} redis: '{redis.url}'"),
                 ("redis, leases", f"Grain for: {initial} redis: '{redis.url}' url: 'http://127.0.0.1:1'")]
    except BaseException as e:  # pytest.skip raises outside pytest too
        print(f"(no Redis rows: {e})")
    print(f"| store | mode | sequential calls/s | 50 callers, calls/s | activations/s |  (--domains {a.domains})")
    print("|---|---|---|---|---|")
    node = None
    try:
        for name, server in rows:
            for mode in a.modes:
                r = run(server, a.calls, a.ids, a.domains, mode)
                print(f"| {name} | {mode} | {r['sequential']:,} | {r['concurrent']:,} | {r['activations']:,} |",
                      flush=True)
        for mode in a.modes if redis is not None else ():
            node, url = start_node(redis.url, a.domains, mode)
            r = run(f"Via fields: {{ url: '{url}' }}", a.calls // 3, a.ids // 3, a.domains, mode, VIA)
            print(f"| Remote to a node (redis, leases) | {mode} | {r['sequential']:,} | {r['concurrent']:,} | "
                  f"{r['activations']:,} |", flush=True)
            node.kill()
            node = None
    finally:
        if node is not None:
            node.kill()
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    main()
