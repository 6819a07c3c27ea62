"""Native binaries against the interpreter, C (gcc -O2) and Python, in one command.

    python bench/native/run.py [--only fib dict sort mandel strings] [--repeat R]

Each benchmark NAME has NAME.lp (run with `lp run` and built with `lp build -O2`),
NAME.c and NAME_py.py. Times are the best CPU time (user + system) of R runs of
the finished program, start-up included (a native binary starts the runtime's
domain threads and a fiber: about 1 ms, a C program 0.5 ms; builds are not
timed, `lp build` time is printed separately). Prints a table with ratios, then
hello world's build time and binary size; never fails on speed.
"""
from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ["fib", "dict", "sort", "mandel", "strings"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmds, repeat: int) -> list[tuple[float, bytes]]:
    """Per command, the best CPU time (user + system) of `repeat` runs, steadier than wall time
    on a shared machine, and its output. The commands take turns, so a slower spell of the
    machine falls on all of them, not on one side of a ratio."""
    times, outs = [[] for _ in cmds], [b""] * len(cmds)
    for _ in range(repeat):
        for k, cmd in enumerate(cmds):
            t = _cpu()
            p = subprocess.run(cmd, capture_output=True)
            times[k].append(_cpu() - t)
            if p.returncode != 0:
                sys.exit(f"{cmd} failed: {p.stderr.decode()}")
            outs[k] = p.stdout
    return [(min(ts), out) for ts, out in zip(times, outs)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=NAMES)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lp-bench-"))
    lp = [sys.executable, "-m", "lp"]
    cc = shutil.which("gcc") or shutil.which("cc")
    print(f"{'bench':8} {'lp run':>10} {'binary':>10} {'C -O2':>10} {'Python':>10} {'run/bin':>9} {'bin/C':>7}")
    for name in args.only:
        src = HERE / f"{name}.lp"
        binary = tmp / name
        t = time.perf_counter()
        subprocess.run([*lp, "build", "-O2", str(src), "-o", str(binary)], check=True)
        build_s = time.perf_counter() - t
        cbin = tmp / f"{name}_c"
        subprocess.run([cc, "-O2", str(HERE / f"{name}.c"), "-o", str(cbin)], check=True)
        (t_bin, out_bin), (t_c, out_c), (t_py, out_py) = timed(
            [[str(binary)], [str(cbin)], [sys.executable, str(HERE / f"{name}_py.py")]], args.repeat)
        [(t_run, out_run)] = timed([[*lp, "run", str(src)]], 1)
        same = out_bin == out_run == out_c == out_py
        print(f"{name:8} {t_run:9.3f}s {t_bin:9.4f}s {t_c:9.4f}s {t_py:9.3f}s {t_run / t_bin:8.0f}x "
              f"{t_bin / t_c:6.2f}x{'' if same else '  (OUTPUTS DIFFER)'}   (lp build {build_s:.2f}s)")
    hello = tmp / "hello"
    t = time.perf_counter()
    subprocess.run([*lp, "build", str(HERE.parent.parent / "examples" / "hello.lp"), "-o", str(hello)], check=True)
    print(f"hello world: lp build {time.perf_counter() - t:.2f}s (C runtime cached), binary {hello.stat().st_size:,} bytes")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
