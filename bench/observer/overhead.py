"""What the observer costs a running program: each bench/lp program run plainly and with the
observer on and a page connected the whole time (a WebSocket client reading every tick),
alternated, best of R; prints the wall and CPU times (user + system, of the program's process),
the peak resident memory of the program's process, and their ratios (docs/observer.md; goal: at
most 5% more). On a machine shared with other work the CPU ratio is the steadier figure.
Mode "run" is `lp run` against `lp run --observe 0`; mode "build" is the binary of `lp build`
against the binary of `lp build --observable` run with `--observe 0`, and also that binary run
without the flag ("off": what compiling the observer in costs when it is not asked for). The
binaries run the programs scaled up (SCALED) so that each run takes a second or more of CPU: at
bench/lp's sizes they end in milliseconds, too soon for a CPU ratio to mean anything.

    python bench/observer/overhead.py [--mode run|build|both] [--only NAME ...] [--repeat R] [--domains N]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from websockets.sync.client import connect

TIME = shutil.which("time", path="/usr/bin:/bin") or "/usr/bin/time"   # GNU time (Debian package `time`)
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench" / "lp"))
from run import BENCHES, BY_NAME  # noqa: E402


# Build mode's sizes: bench name -> (the size as bench/lp writes it, the size built, the line it prints)
SCALED = {
    "ping_pong": ("200000", "3000000", "3000000 round trips"),
    "ring": ("200000", "4000000", "token stopped at actor 145"),             # 4000000 mod 503 + 1
    "counting": ("1000000", "10000000", "10000000 messages counted"),
    "skynet": ("size: 10000 ", "size: 1000000 ", "skynet sum 499999500000"),  # 1,111,111 actors
    "fib": ("Fib of: 25", "Fib of: 40", "102334155"),
}


def scaled(bench, out: Path) -> tuple[Path, str]:
    """The program at build mode's size, written in `out`, and the line it prints."""
    was, size, expect = SCALED[bench.name]
    text = (ROOT / "bench" / "lp" / f"{bench.name}.lp").read_text()
    assert was in text, f"{bench.name}.lp no longer has {was!r}: update SCALED"
    path = out / f"{bench.name}.lp"
    path.write_text(text.replace(was, size))
    return path, expect


def watch(port: int, stop: threading.Event, counts: list[int]) -> None:
    try:
        with connect(f"ws://127.0.0.1:{port}/feed", max_size=None, open_timeout=10) as ws:
            while not stop.is_set():
                ws.recv(timeout=5)
                counts[0] += 1
    except Exception:
        pass    # the program ended


def build(bench, source: Path, out: Path, observable: bool) -> Path:
    exe = out / (bench.name + ("-observable" if observable else ""))
    cmd = [sys.executable, "-m", "lp", "build", *(["--observable"] if observable else []), str(source), "-o", str(exe)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"cannot build {bench.name}: {r.stderr}")
    return exe


def run_once(cmd: list[str], bench, expect: str, observe: bool) -> tuple[float, float, int, int]:
    """Wall and CPU seconds, peak RSS in KB of the program's own process, and ticks the page
    received, of one run."""
    if observe:
        cmd = cmd + ["--observe", "0"] if cmd[0] != sys.executable else cmd[:-1] + ["--observe", "0", cmd[-1]]
    # GNU time reports the program's own figures: a child of this (large) Python process would
    # carry its size into ru_maxrss, which survives exec.
    report = tempfile.NamedTemporaryFile(prefix="lp-observer-time-", delete=False)
    report.close()
    cmd = [TIME, "-f", "%M", "-o", report.name, *cmd]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop, counts, reader = threading.Event(), [0], None
    err_first = ""
    if observe:
        err_first = p.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", err_first)
        if not m:
            raise SystemExit(f"no observer address: {err_first}{p.stderr.read()}")
        reader = threading.Thread(target=watch, args=(int(m.group(1)), stop, counts), daemon=True)
        reader.start()
    texts: dict = {}
    pipes = [threading.Thread(target=lambda k=k, f=f: texts.__setitem__(k, f.read()), daemon=True)
             for k, f in (("out", p.stdout), ("err", p.stderr))]
    for t in pipes:
        t.start()
    # wait4 on `time`: CPU to the microsecond (its own and the program's, reaped by it);
    # GNU time prints CPU only to 10 ms, too coarse for the binaries' runs of 0.1 s
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in pipes:
        t.join()
    out, err = texts["out"], texts["err"]
    rss_kb = Path(report.name).read_text().split()[-1]
    os.unlink(report.name)
    stop.set()
    if p.returncode != 0 or expect not in out:
        raise SystemExit(f"{bench.name} failed: {out[-500:]}{err_first}{err[-2000:]}")
    return dt, usage.ru_utime + usage.ru_stime, int(rss_kb), counts[0]


def measure(mode: str, bench, domains: int, repeat: int, tmp: Path) -> str:
    flags = ["--domains", str(domains)]
    if mode == "run":
        plain_cmd = [sys.executable, "-m", "lp", "run", *flags, str(ROOT / "bench" / "lp" / f"{bench.name}.lp")]
        observed_cmd, off_cmd, expect = plain_cmd, None, bench.expect
    else:
        source, expect = scaled(bench, tmp)
        plain_cmd = [str(build(bench, source, tmp, False)), *flags]
        observed_cmd = [str(build(bench, source, tmp, True)), *flags]
        off_cmd = observed_cmd
    plain, off, observed, ticks = [], [], [], 0
    for _ in range(repeat):
        plain.append(run_once(plain_cmd, bench, expect, False)[:3])
        if off_cmd:
            off.append(run_once(off_cmd, bench, expect, False)[:3])
        *figures, n = run_once(observed_cmd, bench, expect, True)
        observed.append(figures)
        ticks = max(ticks, n)

    def best(runs, k):
        return min(r[k] for r in runs)

    def ratio(runs, k):
        return f"{best(runs, k) / best(plain, k):>8.3f}x" if runs else f"{'-':>9}"
    return (f"{mode:<6} {bench.name:<10} {best(plain, 0):>8.3f} {best(observed, 0):>8.3f} {ratio(observed, 0)} "
            f"{best(plain, 1):>8.3f} {best(observed, 1):>8.3f} {ratio(observed, 1)} "
            f"{best(plain, 2) / 1024:>8.1f} {best(observed, 2) / 1024:>8.1f} {ratio(observed, 2)} "
            f"{ratio(off, 1)} {ratio(off, 2)} {ticks:>6}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("run", "build", "both"), default="both")
    ap.add_argument("--only", nargs="+", choices=sorted(BY_NAME))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--domains", type=int, default=2)
    args = ap.parse_args()
    benches = [BY_NAME[n] for n in args.only] if args.only else BENCHES
    modes = ("run", "build") if args.mode == "both" else (args.mode,)
    print("wall and CPU: best of R, seconds; RSS: peak resident MB, best of R; ratios: observed (or off) / plain")
    print(f"{'mode':<6} {'bench':<10} {'wall':>8} {'observed':>8} {'ratio':>9} {'cpu':>8} {'observed':>8} {'ratio':>9} "
          f"{'rss':>8} {'observed':>8} {'ratio':>9} {'off cpu':>9} {'off rss':>9} {'ticks':>6}")
    with tempfile.TemporaryDirectory(prefix="lp-observer-bench-") as tmp:
        for mode in modes:
            for b in benches:
                print(measure(mode, b, args.domains, args.repeat, Path(tmp)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
