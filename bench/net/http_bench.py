"""HTTP keep-alive hello-world: wrk against the LP server (interpreted and compiled by `lp build`,
per domain count) and against an aiohttp server, in one command.

    python bench/net/http_bench.py [--domains 1 2] [--connections 10] [--seconds 5] [--rounds 3]
                                   [--baseline /path/to/another/checkout]

Needs wrk (apt install wrk) and aiohttp (pip install -e '.[bench]'). Prints requests/s, latency
and the server's CPU time per request (all its threads, from /proc: less sensitive to the
machine's load than requests/s) per server, and the LP/aiohttp ratio of requests/s measured in
the same round (the median over the rounds, and their range). --baseline also runs the LP server
of another checkout of the project (e.g. the main branch: before and after in one command).
Figures only, never a verdict."""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def start(cmd, root=ROOT):
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(root))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
    port = int(p.stdout.readline())
    return p, port


def cpu_seconds(pid) -> float:
    """User and system CPU time of the process, all its threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, connections, seconds):
    r = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", f"http://127.0.0.1:{port}/"],
                       capture_output=True, text=True, timeout=seconds + 60)
    out = r.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
    errors = "Non-2xx" in out or "Socket errors" in out
    return rps, p50, p99, errors, total


def measure(cmd, args, root=ROOT):
    p, port = start(cmd, root)
    try:
        subprocess.run(["wrk", "-t1", f"-c{args.connections}", "-d1s", f"http://127.0.0.1:{port}/"],
                       capture_output=True, timeout=60)      # warm-up
        cpu0 = cpu_seconds(p.pid)
        rps, p50, p99, errors, total = wrk(port, args.connections, args.seconds)
        cpu_us = (cpu_seconds(p.pid) - cpu0) * 1e6 / max(total, 1)
        return rps, p50, p99, errors, cpu_us
    finally:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--domains", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--connections", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--baseline", type=Path, help="another checkout whose LP server is measured too")
    args = ap.parse_args()
    missing = [what for what, ok in (("wrk (apt install wrk)", shutil.which("wrk")),
                                     ("aiohttp (pip install -e '.[bench]')", importlib.util.find_spec("aiohttp")))
               if not ok]
    if missing:
        sys.exit("http_bench: needs " + " and ".join(missing))
    servers = [("aiohttp (1 process)", [sys.executable, str(HERE / "aiohttp_hello.py")], ROOT)]
    roots = [("", ROOT)] + ([(f" ({args.baseline})", args.baseline.resolve())] if args.baseline else [])
    binary = Path(tempfile.mkdtemp(prefix="lp-bench-net-")) / "hello"
    subprocess.run([sys.executable, "-m", "lp", "build", str(HERE / "hello.lp"), "-o", str(binary)], check=True,
                   cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    for label, root in roots:
        for d in args.domains:
            servers.append((f"LP interpreted, --domains {d}{label}",
                            [sys.executable, "-m", "lp", "run", "--domains", str(d), str(root / "bench/net/hello.lp")],
                            root))
            if not label:
                servers.append((f"LP compiled (lp build), --domains {d}", [str(binary), "--domains", str(d)], root))
    results = {name: [] for name, _, _ in servers}
    for _ in range(args.rounds):
        base = None
        for name, cmd, root in servers:
            r = measure(cmd, args, root)
            base = base or r[0]
            results[name].append(r + (r[0] / base,))
            time.sleep(0.5)
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, keep-alive, 'Hello, World!', {args.rounds} round(s)\n")
    print("| server | requests/s | p50 | p99 | server CPU per request | vs aiohttp (same round) |")
    print("|---|---|---|---|---|---|")
    for name, rs in results.items():
        mid = sorted(rs, key=lambda r: r[5])[len(rs) // 2]
        ratios = sorted(r[5] for r in rs)
        spread = f" ({ratios[0]:.2f}-{ratios[-1]:.2f})" if len(rs) > 1 else ""
        cpu = sorted(r[4] for r in rs)[len(rs) // 2]
        print(f"| {name} | {mid[0]:,.0f} | {mid[1]} | {mid[2]} | {cpu:,.0f} µs | {mid[5]:.2f}x{spread} |"
              f"{' ERRORS' if any(r[3] for r in rs) else ''}")


if __name__ == "__main__":
    main()
