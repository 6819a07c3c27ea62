"""LP actor benchmarks against Python asyncio, in one command. Not tests: they print
figures and ratios and never fail on speed (exit 1 only if a program does not run
or prints the wrong answer).

    python bench/lp/run.py [--domains N [N ...]] [--only NAME [NAME ...]] [--repeat R]
    python bench/lp/run.py --profile NAME [--domains N] [--profiler cprofile|py-spy] [--top K]

Timing. Each LP benchmark runs as `lp run --domains N FILE.lp` in a fresh process;
its time is the wall time of that run minus the wall time of `lp run --domains N
empty.lp` (interpreter start-up, type check and runtime start/stop of a program
that does nothing), measured in the same command. The asyncio version runs as
`python asyncio/FILE.py` and is timed the same way, minus the wall time of
`asyncio/empty.py`. Every figure is the best (minimum) of R runs, R = --repeat
(default 3), because the machine is shared and noisy. Rates are work units per
second; ratio = asyncio rate / LP rate (how many times slower LP is; lower is better).

Profile mode runs one benchmark in this process (no subprocess) and prints the top
functions by self time. cprofile (default): a cProfile.Profile per domain thread,
enabled from the first actor step on that thread, so parsing and type checking are
excluded; deterministic but it inflates call-heavy code. py-spy: samples the
subprocess `lp run` (all threads) and prints self samples per function.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PYDIR = HERE / "asyncio"


class Bench:
    def __init__(self, name, units, unit, expect, goal):
        self.name, self.units, self.unit, self.expect, self.goal = name, units, unit, expect, goal


BENCHES = [
    Bench("ping_pong", 200_000, "round trips", "200000 round trips", 3.0),
    Bench("ring", 200_000, "hops", "token stopped at actor 310", 3.0),
    Bench("counting", 1_000_000, "messages", "1000000 messages counted", 8.0),
    # 1 + 10 + 100 + 1,000 + 10,000 actors spawned, each sends one answer.
    Bench("skynet", 11_111, "actors", "skynet sum 49995000", 3.0),
    # fib(25) makes 242,785 calls; no goal (it measures the evaluator alone).
    Bench("fib", 242_785, "calls", "75025", None),
]
BY_NAME = {b.name: b for b in BENCHES}


def lp_command() -> list[str]:
    exe = shutil.which("lp")
    return [exe] if exe else [sys.executable, "-m", "lp"]


def timed(cmd: list[str], expect: str | None, timeout: float):
    """(seconds, None) or (None, error text): wall time of one run, checking its output."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s: {' '.join(cmd)}"
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {' '.join(cmd)}\n{(p.stderr or p.stdout).strip()[-2000:]}"
    if expect is not None and expect not in p.stdout:
        return None, f"wrong output (wanted {expect!r}): {' '.join(cmd)}\n{p.stdout.strip()[-500:]}"
    return dt, None


def best(cmd, expect, repeat, timeout):
    times, err = [], None
    for _ in range(repeat):
        dt, err = timed(cmd, expect, timeout)
        if dt is None:
            return None, err
        times.append(dt)
    return min(times), None


def fmt_rate(r: float | None) -> str:
    if r is None:
        return "-"
    if r >= 1e6:
        return f"{r / 1e6:.2f}M/s"
    if r >= 1e3:
        return f"{r / 1e3:.1f}k/s"
    return f"{r:.0f}/s"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for k, r in enumerate(rows):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def run_benchmarks(args) -> int:
    lp = lp_command()
    benches = [BY_NAME[n] for n in args.only] if args.only else BENCHES
    failures = []
    py = [sys.executable]

    base_py, err = best(py + [str(PYDIR / "empty.py")], None, args.repeat, args.timeout)
    if err:
        print(f"asyncio baseline failed: {err}")
        return 1
    # asyncio runs once per benchmark (it does not depend on --domains).
    py_rate = {}
    for b in benches:
        dt, err = best(py + [str(PYDIR / f"{b.name}.py")], b.expect, args.repeat, args.timeout)
        if err:
            failures.append(f"asyncio {b.name}: {err}")
            py_rate[b.name] = None
        else:
            py_rate[b.name] = b.units / max(dt - base_py, 1e-3)

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.repeat} runs each; "
          f"LP time = wall(lp run FILE) - wall(lp run empty.lp) in the same command, "
          f"asyncio time = wall(python FILE.py) - wall(python empty.py) ({base_py * 1e3:.0f} ms)")
    for d in args.domains:
        base_lp, err = best(lp + ["run", "--domains", str(d), str(HERE / "empty.lp")], None, args.repeat,
                            args.timeout)
        if err:
            print(f"LP baseline failed: {err}")
            return 1
        rows = [["benchmark", "work", "LP time", "LP rate", "asyncio rate", "asyncio/LP", "goal", "met?"]]
        for b in benches:
            dt, err = best(lp + ["run", "--domains", str(d), str(HERE / f"{b.name}.lp")], b.expect,
                           args.repeat, args.timeout)
            if err:
                failures.append(f"LP {b.name} --domains {d}: {err}")
                lp_rate, lp_time = None, "FAILED"
            else:
                lp_rate = b.units / max(dt - base_lp, 1e-3)
                lp_time = f"{dt - base_lp:.2f} s"
            pr = py_rate[b.name]
            ratio = pr / lp_rate if (pr and lp_rate) else None
            goal = f"<= {b.goal:g}x" if b.goal else "-"
            met = "-" if (b.goal is None or ratio is None) else ("yes" if ratio <= b.goal else "no")
            rows.append([b.name, f"{b.units:,} {b.unit}", lp_time, fmt_rate(lp_rate), fmt_rate(pr),
                         f"{ratio:.1f}x" if ratio else "-", goal, met])
        print(f"\n--domains {d}  (LP empty-program start-up {base_lp * 1e3:.0f} ms, subtracted)")
        print(table(rows))
        sys.stdout.flush()
    for f in failures:
        print(f"\nFAILED {f}")
    return 1 if failures else 0


# ---- profiling

def group_of(filename: str, funcname: str) -> str:
    """A coarse reading of where a function's self time belongs."""
    f = filename.replace("\\", "/")
    if "lp/interp/vm.py" in f or "lp/interp/code.py" in f or "prims_" in f:
        return "evaluator (vm, primitives)"
    if "lp/interp/actors.py" in f:
        return "actors glue (lp/interp/actors.py)"
    if ("runtime/binding.py" in f or "lprt" in funcname or "_cffi" in f or "cffi" in funcname
            or "_thread.RLock" in funcname):  # the handle table's lock
        return "runtime crossing (binding.py, cffi calls into C)"
    if "lp/interp/values.py" in f:
        return "values (allocation, lookups)"
    if "lp/interp" in f:
        return "other interpreter"
    if f.startswith("~") or f == "":
        return "builtins (allocation, dict/list ops)"
    return "other"


def profile_cprofile(b: Bench, domains: int, top: int) -> int:
    import cProfile
    import pstats
    import threading

    from lp.cli import main as lp_main
    from lp.runtime import binding

    profilers: dict[int, cProfile.Profile] = {}
    lock = threading.Lock()
    orig_spawn = binding.Runtime.spawn

    def spawn(self, fn, *a, **kw):
        def step(ctx, fn=fn):
            if sys.getprofile() is None:
                ident = threading.get_ident()
                with lock:
                    prof = profilers.get(ident)
                    if prof is None:
                        prof = profilers[ident] = cProfile.Profile()
                prof.enable()
            return fn(ctx)
        return orig_spawn(self, step, *a, **kw)

    binding.Runtime.spawn = spawn
    path = str(HERE / f"{b.name}.lp")
    t0 = time.perf_counter()
    try:
        status = lp_main(["run", "--domains", str(domains), path])
    finally:
        binding.Runtime.spawn = orig_spawn
    wall = time.perf_counter() - t0
    sys.setprofile(None)
    stats = None
    for prof in profilers.values():
        prof.disable()
        stats = pstats.Stats(prof) if stats is None else stats.add(prof)
    print(f"\nprofile of {b.name}.lp, --domains {domains}, cProfile on {len(profilers)} thread(s); "
          f"wall {wall:.2f} s under the profiler (exit {status})")
    if stats is None:
        print("no actor steps were profiled")
        return 1
    stats.sort_stats("tottime").print_stats(top)
    groups = Counter()
    total = 0.0
    for (fname, _line, func), (_cc, _nc, tt, _ct, _callers) in stats.stats.items():
        groups[group_of(fname, func)] += tt
        total += tt
    print("self time by group:")
    for g, t in groups.most_common():
        print(f"  {t:8.3f} s  {100 * t / total:5.1f}%  {g}")
    return status


def profile_pyspy(b: Bench, domains: int, top: int, rate: int) -> int:
    exe = shutil.which("py-spy")
    if exe is None:
        print("py-spy is not installed (pip install py-spy)")
        return 1
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"lp-bench-{b.name}-{os.getpid()}.txt"
    cmd = [exe, "record", "--function", "--format", "raw", "-r", str(rate), "-o", str(out), "--"] + lp_command() + \
        ["run", "--domains", str(domains), str(HERE / f"{b.name}.lp")]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if not out.exists():
        print(p.stdout, p.stderr)
        return 1
    self_samples, incl, groups = Counter(), Counter(), Counter()
    total = 0
    for line in out.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack:
            continue
        n = int(n)
        frames = stack.split(";")
        if not any("lprt_py_step" in f for f in frames):
            continue  # start-up, parse, type check
        total += n
        leaf = frames[-1]
        self_samples[leaf] += n
        for f in set(frames):
            incl[f] += n
        name, _, loc = leaf.partition(" (")
        groups[group_of(loc, name)] += n
    out.unlink()
    print(f"\npy-spy profile of {b.name}.lp, --domains {domains}: {total} samples in actor steps at {rate} Hz")
    print(f"{'self':>6} {'self%':>6} {'incl%':>6}  function")
    for f, n in self_samples.most_common(top):
        print(f"{n:6d} {100 * n / total:5.1f}% {100 * incl[f] / total:5.1f}%  {f}")
    print("self samples by group:")
    for g, n in groups.most_common():
        print(f"  {n:6d}  {100 * n / total:5.1f}%  {g}")
    return p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domains", type=int, nargs="+", default=[os.cpu_count() or 1], metavar="N",
                    help="scheduler domains for LP; several values print one table each (default: cores)")
    ap.add_argument("--only", nargs="+", choices=list(BY_NAME), metavar="NAME",
                    help=f"run only these ({', '.join(BY_NAME)})")
    ap.add_argument("--repeat", type=int, default=3, metavar="R", help="runs per figure, best kept (default 3)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed per run")
    ap.add_argument("--profile", choices=list(BY_NAME), metavar="NAME", help="profile one LP benchmark instead")
    ap.add_argument("--profiler", choices=["cprofile", "py-spy"], default="cprofile")
    ap.add_argument("--top", type=int, default=25, help="functions shown by --profile (default 25)")
    ap.add_argument("--rate", type=int, default=500, help="py-spy samples per second (default 500)")
    args = ap.parse_args()
    if args.profile:
        sys.path.insert(0, str(ROOT))
        b = BY_NAME[args.profile]
        d = args.domains[0]
        if args.profiler == "py-spy":
            return profile_pyspy(b, d, args.top, args.rate)
        return profile_cprofile(b, d, args.top)
    return run_benchmarks(args)


if __name__ == "__main__":
    sys.exit(main())
