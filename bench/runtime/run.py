#!/usr/bin/env python3
"""run.py -- LP runtime benchmarks (C, fiber actors) against Erlang/OTP.

Builds the C benchmarks, compiles the Erlang versions (erlang/*.erl) into a
temporary directory, runs both on 1 and 2 domains / schedulers (Erlang with
+S 1:1 and +S 2:2) and prints one table: the rate of each (median of the
runs; `LP min`: the slowest LP run), the ratio LP/Erlang (> 1: LP faster)
and the peak RSS of each process (wait4 rusage of the child, through the
small bin/peakrss helper). Then the parallel CPU-bound workload on 1 and 2
domains and its speedup.

Benchmarks are not tests: this prints figures and never fails on speed.

    python3 bench/runtime/run.py                      # everything, 3 runs each, median
    python3 bench/runtime/run.py --repeat 5 --only ring,pingpong
    python3 bench/runtime/run.py --baseline HEAD~1    # also LP built from the runtime at a git revision
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
BENCHES = ["pingpong", "ring", "counting", "skynet", "spawn"]
UNITS = {"pingpong": "roundtrips", "ring": "hops", "counting": "msgs", "skynet": "actors", "spawn": "actors",
         "parallel": "iters"}
LINE = re.compile(r"^(\w+)\s+(?:domains|schedulers)=(\d+)\s+(\d+) (\w+) in ([0-9.]+) s", re.M)


PEAK = re.compile(r"^peakrss_kb=(\d+)\b", re.M)


def run_child(argv, timeout):
    """Run argv under bin/peakrss; return (stdout, stderr, returncode, peak RSS in KiB).
    (Linux keeps ru_maxrss across execve: a child of this python process would
    report python's own size, so the small peakrss helper forks the benchmark.)"""
    p = subprocess.Popen([os.path.join(HERE, "bin", "peakrss")] + argv, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(timeout, p.kill)
    killer.start()
    out_chunks, err_chunks = [], []
    t = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()))
    t.start()
    out_chunks.append(p.stdout.read())
    t.join()
    p.wait()
    killer.cancel()
    err = "".join(err_chunks)
    m = PEAK.search(err)
    return "".join(out_chunks), PEAK.sub("", err), p.returncode, int(m.group(1)) if m else None


class Result:
    def __init__(self):
        self.rates, self.rss, self.errors = [], [], []

    def add(self, out, err, rc, rss, label):
        m = LINE.search(out)
        if rc != 0 or not m:
            self.errors.append(f"{label}: exit {rc}: {(err or out).strip().splitlines()[-1:] or ''}")
            return
        n, secs = int(m.group(3)), float(m.group(5))
        self.rates.append(n / secs if secs > 0 else float("inf"))
        self.rss.append(rss)

    def rate(self):
        return statistics.median(self.rates) if self.rates else None

    def worst(self):
        return min(self.rates) if self.rates else None

    def peak(self):
        return max(self.rss) if self.rss else None


def build_lp(bindir, rtdir=None):
    args = ["make", "-s", "-C", HERE, "all", f"BIN={bindir}"]
    if rtdir:
        args.append(f"RT={rtdir}")
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build failed:\n{r.stdout}\n{r.stderr}")


def build_baseline(rev, tmp):
    """The runtime as of git revision `rev`, with today's benchmark sources."""
    root = os.path.join(tmp, "base")
    os.makedirs(root)
    arch = subprocess.run(["git", "-C", REPO, "archive", rev, "runtime"], capture_output=True)
    if arch.returncode != 0:
        sys.exit(f"git archive {rev} failed: {arch.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", root], input=arch.stdout, check=True)
    bindir = os.path.join(root, "bin")
    build_lp(bindir, os.path.join(root, "runtime"))
    return bindir


def build_erlang(tmp):
    erlc, erl = shutil.which("erlc"), shutil.which("erl")
    if not (erlc and erl):
        return None, "Erlang not installed (apt-get install erlang-base): printing LP figures only"
    outdir = os.path.join(tmp, "ebin")
    os.makedirs(outdir)
    srcs = [os.path.join(HERE, "erlang", f"{b}.erl") for b in BENCHES]
    r = subprocess.run([erlc, "-o", outdir, "-I", os.path.join(HERE, "erlang")] + srcs, capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, f"erlc failed, printing LP figures only:\n{r.stdout}{r.stderr}"
    rel = subprocess.run([erl, "-noshell", "-eval", 'io:format("~s", [erlang:system_info(otp_release)]), halt().'],
                         capture_output=True, text=True).stdout.strip()
    return outdir, f"Erlang/OTP {rel}"


def fmt_rate(r):
    if r is None:
        return "-"
    return f"{r / 1e6:.2f}M" if r >= 1e6 else f"{r / 1e3:.0f}k"


def fmt_rss(kb):
    return "-" if kb is None else f"{kb / 1024:.1f} MB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per configuration; the median rate is shown")
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(BENCHES + ["parallel"]))
    ap.add_argument("--domains", default="1,2", help="domain / scheduler counts (default 1,2)")
    ap.add_argument("--baseline", metavar="REV", help="also run LP built from runtime/ at this git revision")
    ap.add_argument("--no-erlang", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s] or BENCHES + ["parallel"]
    doms = [int(x) for x in args.domains.split(",")]

    tmp = tempfile.mkdtemp(prefix="lpbench-")
    try:
        lp_bin = os.path.join(HERE, "bin")
        build_lp(lp_bin)
        base_bin = build_baseline(args.baseline, tmp) if args.baseline else None
        ebin, enote = (None, "Erlang comparison disabled") if args.no_erlang else build_erlang(tmp)
        print(f"machine: {os.cpu_count()} cores; {enote}; {args.repeat} run(s) each, median rate")
        if base_bin:
            print(f"baseline: runtime/ at {args.baseline} (column LP@base)")
        sys.stdout.flush()

        rows = []
        for b in [x for x in BENCHES if x in only]:
            for d in doms:
                lp, base, er = Result(), Result(), Result()
                for i in range(args.repeat):
                    lp.add(*run_child([os.path.join(lp_bin, b), str(d)], args.timeout), f"LP {b} {d}")
                    if base_bin:
                        base.add(*run_child([os.path.join(base_bin, b), str(d)], args.timeout), f"base {b} {d}")
                    if ebin:
                        # skynet needs a bigger process table (default 262,144 processes)
                        plimit = ["+P", "2000000"] if b == "skynet" else []
                        er.add(*run_child(["erl", "-noshell", f"+S{d}:{d}"] + plimit + ["-pa", ebin, "-eval",
                                           f"{b}:main(), halt()."], args.timeout), f"Erlang {b} {d}")
                rows.append((b, d, lp, base, er))
                print(f"  ran {b} on {d}: LP {fmt_rate(lp.rate())}"
                      + (f", LP@base {fmt_rate(base.rate())}" if base_bin else "")
                      + (f", Erlang {fmt_rate(er.rate())}" if ebin else ""), flush=True)

        print()
        hdr = ["benchmark", "unit/s", "sched", "LP rate", "LP min"]
        if base_bin:
            hdr += ["LP@base", "base min", "LP/base"]
        hdr += ["Erlang rate", "LP/Erlang", "LP peak RSS", "Erlang peak RSS"]
        table = [hdr]
        errors = []
        for b, d, lp, base, er in rows:
            r = [b, UNITS[b], str(d), fmt_rate(lp.rate()), fmt_rate(lp.worst())]
            if base_bin:
                ratio = lp.rate() / base.rate() if lp.rate() and base.rate() else None
                r += [fmt_rate(base.rate()), fmt_rate(base.worst()), f"{ratio:.2f}x" if ratio else "-"]
            ratio = lp.rate() / er.rate() if lp.rate() and er.rate() else None
            r += [fmt_rate(er.rate()), f"{ratio:.2f}x" if ratio else "-", fmt_rss(lp.peak()), fmt_rss(er.peak())]
            table.append(r)
            errors += lp.errors + base.errors + er.errors
        widths = [max(len(row[i]) for row in table) for i in range(len(hdr))]
        for k, row in enumerate(table):
            print("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
            if k == 0:
                print("  ".join("-" * w for w in widths))

        if "parallel" in only and len(doms) >= 2:
            par = {}
            for d in doms:
                res = Result()
                for i in range(args.repeat):
                    res.add(*run_child([os.path.join(lp_bin, "parallel"), str(d)], args.timeout), f"parallel {d}")
                par[d] = res
                errors += res.errors
            lo, hi = min(doms), max(doms)
            print(f"\nparallel CPU-bound (8 actors, 1.6e9 xorshift steps): "
                  + ", ".join(f"{d} domain(s) {fmt_rate(par[d].rate())} iters/s" for d in doms)
                  + (f"; speedup {hi} vs {lo}: {par[hi].rate() / par[lo].rate():.2f}x (goal 1.6x)"
                     if par[lo].rate() and par[hi].rate() else ""))
        for e in errors:
            print("error:", e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
