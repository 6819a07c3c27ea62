#!/usr/bin/env python3
"""run.py -- the actor benchmarks as LP binaries (`lp build`), against the same programs in
hand-written C on the runtime (bench/runtime), Erlang/OTP (bench/runtime/erlang) and `lp run`.

Prints one table of rates (median of --repeat runs) and ratios; a benchmark, not a test.
`lp run` runs the same program with its size divided by --run-scale (it is ~100x slower).

    python3 bench/actors/run.py [--repeat 3] [--domains 1,2] [--only pingpong,ring]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
RUNTIME = os.path.join(REPO, "bench", "runtime")
BENCHES = ["pingpong", "ring", "counting", "skynet", "spawn", "parallel"]
PEERS = ["pingpong", "ring", "counting", "skynet", "spawn"]   # the same program in C and Erlang
RSS_LINE = re.compile(r"^peakrss_kb=(\d+) cpu_s=([0-9.]+)", re.M)
LP_LINE = re.compile(r"^(\w+) (\d+) (\w+) in ([0-9.e-]+) s", re.M)
C_LINE = re.compile(r"^(\w+)\s+(?:domains|schedulers)=(\d+)\s+(\d+) (\w+) in ([0-9.]+) s", re.M)
PY = sys.executable


def rate(out, pattern, n_group, secs_group):
    m = pattern.search(out or "")
    if not m:
        return None
    secs = float(m.group(secs_group))
    return int(m.group(n_group)) / secs if secs > 0 else None


def run(argv, timeout, cwd=None, measure=None):
    """stdout of a successful run; with measure (a list), runs under peakrss and appends
    (peak RSS KiB, CPU seconds)."""
    try:
        p = subprocess.run(([PEAKRSS] if measure is not None else []) + argv, capture_output=True, text=True,
                           timeout=timeout, cwd=cwd)
        if measure is not None:
            m = RSS_LINE.search(p.stderr)
            if m:
                measure.append((int(m.group(1)), float(m.group(2))))
        return p.stdout if p.returncode == 0 else None
    except subprocess.TimeoutExpired:
        return None


def median(xs):
    xs = [x for x in xs if x]
    return statistics.median(xs) if xs else None


def fmt(r):
    return "-" if r is None else (f"{r / 1e6:.2f}M" if r >= 1e6 else f"{r / 1e3:.1f}k")


def ratio(a, b):
    return "-" if not a or not b else f"{a / b:.2f}x"


def smaller(bench: str, n: int, scale: int) -> int:
    """n divided by scale for lp run; skynet's tree needs a power of 10 (below it a size reaches 0,
    which is not a leaf, and the tree never ends: 1,000,000 / 50 ran lp run out of memory)."""
    n = max(1, n // scale)
    return 10 ** (len(str(n)) - 1) if bench == "skynet" else n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--domains", default="1,2")
    ap.add_argument("--only", default="")
    ap.add_argument("--run-scale", type=int, default=50, help="lp run: divide each size by this")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s] or BENCHES
    doms = [int(d) for d in args.domains.split(",")]
    tmp = tempfile.mkdtemp(prefix="lpactors-")
    global PEAKRSS
    PEAKRSS = os.path.join(tmp, "c", "peakrss")
    try:
        subprocess.run(["make", "-s", "-C", RUNTIME, "all", f"BIN={tmp}/c"], check=True, capture_output=True)
        ebin = None
        if shutil.which("erlc") and shutil.which("erl"):
            ebin = os.path.join(tmp, "ebin")
            os.makedirs(ebin)
            srcs = [os.path.join(RUNTIME, "erlang", f"{b}.erl") for b in PEERS]
            if subprocess.run(["erlc", "-o", ebin, "-I", os.path.join(RUNTIME, "erlang")] + srcs,
                              capture_output=True).returncode != 0:
                ebin = None
        rows, speedup = [], {}
        for b in only:
            src = os.path.join(HERE, f"{b}.lp")
            binary = os.path.join(tmp, b)
            r = subprocess.run([PY, "-m", "lp", "build", src, "-o", binary], capture_output=True, text=True,
                               cwd=REPO)
            if r.returncode != 0:
                print(f"{b}: lp build failed: {r.stderr.strip()}")
                continue
            text = open(src).read()
            small = re.sub(r"^n := (\d+)\.", lambda m: f"n := {smaller(b, int(m.group(1)), args.run_scale)}.", text,
                           flags=re.M)
            small_src = os.path.join(tmp, f"{b}_small.lp")
            open(small_src, "w").write(small)
            for d in doms:
                measured = []
                lp = median([rate(run([binary, "--domains", str(d)], args.timeout, measure=measured), LP_LINE, 2, 4)
                             for _ in range(args.repeat)])
                speedup.setdefault(b, {})[d] = lp
                peak = max((m[0] for m in measured), default=None)
                cpu = median([m[1] for m in measured])
                c, c_measured = None, []
                if b in PEERS:
                    c = median([rate(run([os.path.join(tmp, "c", b), str(d)], args.timeout, measure=c_measured),
                                     C_LINE, 3, 5) for _ in range(args.repeat)])
                c_cpu = median([m[1] for m in c_measured])
                er = None
                if ebin and b in PEERS:
                    plimit = ["+P", "2000000"] if b == "skynet" else []
                    er = median([rate(run(["erl", "-noshell", f"+S{d}:{d}"] + plimit + [
                        "-pa", ebin, "-eval", f"{b}:main(), halt()."], args.timeout), C_LINE, 3, 5)
                        for _ in range(args.repeat)])
                interp = rate(run([PY, "-m", "lp", "run", "--domains", str(d), small_src], args.timeout, REPO),
                              LP_LINE, 2, 4)
                rows.append([b, str(d), fmt(lp), "-" if cpu is None else f"{cpu:.2f}",
                             "-" if peak is None else f"{peak / 1024:.1f}", fmt(c),
                             "-" if c_cpu is None else f"{c_cpu:.2f}", fmt(er), fmt(interp),
                             ratio(lp, c), ratio(c_cpu, cpu), ratio(lp, er), ratio(lp, interp)])
                print("  " + " ".join(rows[-1]), flush=True)
        hdr = ["bench", "dom", "LP binary/s", "CPU s", "peak MB", "C/s", "C CPU s", "Erlang/s", "lp run/s",
               "binary/C", "CPU C/binary", "binary/Erlang", "binary/lp run"]
        table = [hdr] + rows
        w = [max(len(r[i]) for r in table) for i in range(len(hdr))]
        print()
        for k, row in enumerate(table):
            print("  ".join(c.rjust(w[i]) if i > 1 else c.ljust(w[i]) for i, c in enumerate(row)))
            if k == 0:
                print("  ".join("-" * x for x in w))
        print("\n(ratios > 1: the LP binary is faster; lp run at sizes / %d; CPU s and peak MB: the LP binary's"
              " user+system time (median) and peak RSS (largest) over its runs; C CPU s: the C program's;"
              " CPU C/binary: their ratio, the work done, which a loaded machine does not blur)" % args.run_scale)
        for b, by in speedup.items():
            if by.get(1) and by.get(2):
                print(f"{b}: 2 domains / 1 domain = {by[2] / by[1]:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
