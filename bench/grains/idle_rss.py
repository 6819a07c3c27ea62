"""Idle deactivation and memory: N ids touched once (one increment each) with a 1 s idle timeout;
the LP process's RSS (and its anonymous part, without mapped files) before, with every id active,
after they have all deactivated, and after reading every state back (each must be 1).

    python bench/grains/idle_rss.py [--ids 100000] [--domains 2] [--store sqlite|memory|redis] [--mode run|build]

It waits until the server reports no active id (GrainServer active), then reads every state back
and waits for those activations to end too. With the default store (SQLite, lp-data/ in a
temporary working directory) or Redis (a redis-server started here) the states are outside the
process, which keeps nothing per id once idle; the in-memory store keeps every state (a small JSON
text per id) in the process, so its floor after deactivation is the baseline plus the store's map.
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
Object subclass: #Wait.
Wait class >> idle: counters since: t = counters active = 0
    ifTrue: [Actor millisecondClock - t]
    ifFalse: [Actor sleep: 250. Wait idle: counters since: t].
counters := {server}.
main := Actor self.
'baseline' displayNl.
Actor sleep: 500.
t := Actor millisecondClock.
1 to: 10 do: [:w | Actor spawn: [:me |
    w to: {ids} by: 10 do: [:i | (counters id: i printString) increment].
    main ! #done]].
10 timesRepeat: [main receive: {{ #done -> [:m | nil] }}].
('active ' , counters active printString , ' in ' , (Actor millisecondClock - t) printString , ' ms') displayNl.
t := Actor millisecondClock.
w := Wait idle: counters since: t.
('idle after ' , w printString , ' ms') displayNl.
Actor sleep: 1000.
'idle, 1 s later' displayNl.
t := Actor millisecondClock.
bad := (1 to: {ids}) inject: 0 into: [:acc :i | (counters id: i printString) n = 1 ifTrue: [acc] ifFalse: [acc + 1]].
('reloaded, ' , bad printString , ' wrong, in ' , (Actor millisecondClock - t) printString , ' ms') displayNl.
Wait idle: counters since: Actor millisecondClock.
'idle again' displayNl.
Actor sleep: 1000.
'idle again, 1 s later' displayNl.
Actor sleep: 500.
"""

def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def anon_mb(pid: int) -> float:
    """The process's own memory: RSS less the pages of files mapped (its binary, shared libraries)."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ids", type=int, default=100000)
    ap.add_argument("--domains", type=int, default=2)
    ap.add_argument("--mode", choices=("run", "build"), default="run",
                    help="under `lp run`, or as the binary `lp build` makes (built first, not measured)")
    ap.add_argument("--store", choices=("sqlite", "memory", "redis"), default="sqlite",
                    help="the default store (SQLite), MemoryGrainStore, or a redis-server started here")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        options = "(GrainOptions default with: { idle: 1000 })"
        initial = "Grain for: Counter initial: (Counter fields: { n: 0 })"
        server = f"{initial} options: {options}"
        redis = None
        if a.store == "memory":
            server = f"{initial} store: MemoryGrainStore start options: {options}"
        if a.store == "redis":
            redis = RedisServer(Path(d))
            server = f"{initial} store: (RedisGrainStore url: '{redis.url}') options: {options}"
        f = Path(d) / "idle.lp"
        f.write_text(PROGRAM.format(ids=a.ids, server=server))
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "lp", "run", "--domains", str(a.domains), str(f)]
        if a.mode == "build":
            binary = f.with_suffix("")
            subprocess.run([sys.executable, "-m", "lp", "build", str(f), "-o", str(binary)], env=env, check=True)
            cmd = [str(binary), "--domains", str(a.domains)]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=d)
        print(f"{a.ids:,} ids, store: {a.store}, mode: {a.mode}")
        for line in p.stdout:
            print(f"{line.strip():<40} RSS {rss_mb(p.pid):7.1f} MB, anonymous {anon_mb(p.pid):7.1f} MB", flush=True)
        p.wait()
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    main()
