"""HTTP keep-alive hello-world: wrk against the LP server (interpreted and compiled by `lp build`,
per domain count) and against an aiohttp server, in one command.

    python bench/net/http_bench.py [--domains 1 2] [--connections 10] [--seconds 5]

Needs wrk (apt install wrk) and aiohttp (pip install -e '.[bench]'). Prints requests/s and
latency per server and the LP/aiohttp ratio; figures only, never a verdict."""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def start(cmd):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    port = int(p.stdout.readline())
    return p, port


def wrk(port, connections, seconds):
    r = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", f"http://127.0.0.1:{port}/"],
                       capture_output=True, text=True, timeout=seconds + 60)
    out = r.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = re.search(r"50%\s+(\S+)", out).group(1)
    p99 = re.search(r"99%\s+(\S+)", out).group(1)
    errors = "Non-2xx" in out or "Socket errors" in out
    return rps, p50, p99, errors


def measure(cmd, args):
    p, port = start(cmd)
    try:
        wrk(port, args.connections, 1)       # warm-up
        return wrk(port, args.connections, args.seconds)
    finally:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--connections", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=5)
    args = ap.parse_args()
    rows = []
    binary = Path(tempfile.mkdtemp(prefix="lp-bench-net-")) / "hello"
    subprocess.run([sys.executable, "-m", "lp", "build", str(HERE / "hello.lp"), "-o", str(binary)], check=True,
                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    base = measure([sys.executable, str(HERE / "aiohttp_hello.py")], args)
    rows.append(("aiohttp (1 process)", base))
    for d in args.domains:
        rows.append((f"LP interpreted, --domains {d}",
                     measure([sys.executable, "-m", "lp", "run", "--domains", str(d), str(HERE / "hello.lp")], args)))
        time.sleep(0.5)
        rows.append((f"LP compiled (lp build), --domains {d}", measure([str(binary), "--domains", str(d)], args)))
        time.sleep(0.5)
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, keep-alive, 'Hello, World!'\n")
    print("| server | requests/s | p50 | p99 | vs aiohttp |")
    print("|---|---|---|---|---|")
    for name, (rps, p50, p99, errors) in rows:
        print(f"| {name} | {rps:,.0f} | {p50} | {p99} | {rps / base[0]:.2f}x |{' ERRORS' if errors else ''}")


if __name__ == "__main__":
    main()
