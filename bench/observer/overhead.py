"""What `lp run --observe` costs a running program: each bench/lp program run plainly and with
the observer on and a page connected the whole time (a WebSocket client reading every tick),
alternated, best of R; prints the times and the ratio (docs/observer.md; goal: at most 5% slower).

    python bench/observer/overhead.py [--only NAME ...] [--repeat R] [--domains N]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from websockets.sync.client import connect

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench" / "lp"))
from run import BENCHES, BY_NAME  # noqa: E402


def watch(port: int, stop: threading.Event, counts: list[int]) -> None:
    try:
        with connect(f"ws://127.0.0.1:{port}/feed", max_size=None, open_timeout=10) as ws:
            while not stop.is_set():
                ws.recv(timeout=5)
                counts[0] += 1
    except Exception:
        pass    # the program ended


def run_once(bench, domains: int, observe: bool) -> tuple[float, int]:
    """Wall seconds of one run (and ticks the page received)."""
    cmd = [sys.executable, "-m", "lp", "run", "--domains", str(domains)]
    if observe:
        cmd += ["--observe", "0"]
    cmd.append(str(ROOT / "bench" / "lp" / f"{bench.name}.lp"))
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop, counts, reader = threading.Event(), [0], None
    if observe:
        line = p.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            raise SystemExit(f"no observer address: {line}{p.stderr.read()}")
        reader = threading.Thread(target=watch, args=(int(m.group(1)), stop, counts), daemon=True)
        reader.start()
    out, err = p.communicate(timeout=600)
    dt = time.perf_counter() - t0
    stop.set()
    if p.returncode != 0 or bench.expect not in out:
        raise SystemExit(f"{bench.name} failed: {out[-500:]}{err[-2000:]}")
    return dt, counts[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(BY_NAME))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--domains", type=int, default=2)
    args = ap.parse_args()
    benches = [BY_NAME[n] for n in args.only] if args.only else BENCHES
    print(f"{'bench':<10} {'plain s':>8} {'observed s':>11} {'ticks':>6} {'observed/plain':>15}")
    for b in benches:
        plain, observed, ticks = [], [], 0
        for _ in range(args.repeat):
            plain.append(run_once(b, args.domains, False)[0])
            dt, n = run_once(b, args.domains, True)
            observed.append(dt)
            ticks = max(ticks, n)
        print(f"{b.name:<10} {min(plain):>8.2f} {min(observed):>11.2f} {ticks:>6} "
              f"{min(observed) / min(plain):>14.3f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
