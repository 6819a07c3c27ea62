"""The bank scenario of docs/reliable.md on two nodes, and a crash of one of them at a commit
boundary: node A (`lp run`) serves the ledger, node B the accounts; every call of the ledger to an
account, and its result, goes over Remote (peer:at:, listenOn:), an account's nested call to
another account stays on B. The crashed node is started again on its directory, the other one
keeps running; once A printed DONE and B's outboxes are empty, the invariants of
tests/reliable/scenario.py must hold over both directories.

    python bench/reliable/crash_nodes.py --node b --points 1-60      # crash B after each commit
    python bench/reliable/crash_nodes.py --node a --random 20 --seed 7

Prints one line per crash point that broke something, and the totals; exits 1 if any broke.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.reliable.scenario import CRASHED, HANDLERS, check, ledger_runs, opens  # noqa: E402
from tests.reliable.test_nodes import free_ports, wait_line  # noqa: E402

NODE = """server := RemoteServer startHost: '127.0.0.1' port: {port}.
node := ((((ReliableServers dir: '{dir}') serve: {cls} new) peer: '{other}' at: 'http://127.0.0.1:{other_port}/rpc') listenOn: server) start.
"""
B = """'ready' displayNl.
Actor sleep: 3600000.
"""
A = """node quiet.
'DONE' displayNl.
"""


def start(src: Path, crash_after: int | None) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("LPRT_TEST_SQL_CRASH_AFTER", None)
    if crash_after is not None:
        env["LPRT_TEST_SQL_CRASH_AFTER"] = str(crash_after)
    return subprocess.Popen([sys.executable, "-m", "lp", "run", "--domains", "2", str(src)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def outbox_empty(d: Path) -> bool:
    for s in d.glob("*/*.sqlite"):
        with sqlite3.connect(s) as db:
            if db.execute("SELECT count(*) FROM kernel_outbox").fetchone()[0]:
                return False
    return True


def crash_point(work: Path, node: str, n: int, timeout: float = 300) -> tuple[bool, list[str]]:
    """Crash `node` ('a' or 'b') after its nth commit; answers (crashed, broken invariants)."""
    w = work / f"{node}{n}"
    w.mkdir()
    pa, pb = free_ports(2)
    srcs = {"b": w / "b.lp", "a": w / "a.lp"}
    srcs["b"].write_text(HANDLERS + NODE.format(port=pb, dir=w / "b", cls="Account", other="Ledger", other_port=pa)
                         + opens() + "\n" + B)
    srcs["a"].write_text(HANDLERS + NODE.format(port=pa, dir=w / "a", cls="Ledger", other="Account", other_port=pb)
                         + ledger_runs() + "\n" + A)
    procs: dict = {}
    crashed = False
    try:
        procs["b"] = start(srcs["b"], n if node == "b" else None)
        try:
            wait_line(procs["b"], "ready")
        except AssertionError:   # B crashed while opening the accounts
            if procs["b"].wait() != CRASHED:
                return False, [f"B: exit {procs['b'].returncode}: {procs['b'].stderr.read()[-500:]!r}"]
            crashed = True
            procs["b"] = start(srcs["b"], None)
            wait_line(procs["b"], "ready")
        procs["a"] = start(srcs["a"], n if node == "a" else None)
        deadline = time.monotonic() + timeout
        while True:
            if not crashed and procs[node].poll() == CRASHED:
                crashed = True
                procs[node] = start(srcs[node], None)
                if node == "b":
                    wait_line(procs["b"], "ready")
                continue
            if procs["a"].poll() is not None:
                break
            if procs["b"].poll() is not None:
                return crashed, [f"B: exit {procs['b'].returncode}: {procs['b'].stderr.read()[-500:]!r}"]
            if time.monotonic() > deadline:
                return crashed, ["timed out"]
            time.sleep(0.05)
        out, err = procs["a"].communicate()
        if procs["a"].returncode != 0 or not out.endswith(b"DONE\n"):
            return crashed, [f"A: exit {procs['a'].returncode}: {err[-500:]!r}"]
        while not outbox_empty(w / "b"):
            if time.monotonic() > deadline:
                return crashed, ["B's outbox did not empty"]
            time.sleep(0.1)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    both = w / "both"   # the ledger's and the accounts' stores side by side, as check reads them
    both.mkdir()
    (both / "Ledger").symlink_to(w / "a" / "Ledger")
    (both / "Account").symlink_to(w / "b" / "Account")
    return crashed, check(both)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--node", choices=["a", "b"], default="b", help="the node to crash")
    ap.add_argument("--points", default="", help="commit numbers to crash after, e.g. 1-60")
    ap.add_argument("--random", type=int, default=0, help="how many random commit numbers (1..80)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    points = []
    if a.points:
        lo, _, hi = a.points.partition("-")
        points = list(range(int(lo), int(hi or lo) + 1))
    rng = random.Random(a.seed)
    points += [rng.randint(1, 80) for _ in range(a.random)]
    work = Path(tempfile.mkdtemp(prefix="lp-reliable-nodes-"))
    bad = crashes = 0
    t0 = time.time()
    for n in points:
        crashed, broken = crash_point(work, a.node, n)
        crashes += crashed
        if broken:
            bad += 1
            print(f"node {a.node} crash point {n}: {broken}", flush=True)
        else:
            shutil.rmtree(work / f"{a.node}{n}", ignore_errors=True)
    print(f"node {a.node}: {len(points)} points, {crashes} crashes and restarts; broken: {bad}; "
          f"{time.time() - t0:.0f} s", flush=True)
    if not bad:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
