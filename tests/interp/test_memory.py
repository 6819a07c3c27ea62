"""Interpreter memory: values die when their last reference does, not when the cycle collector runs.

Peak RSS is read from a fresh intermediate process that runs exactly one `lp run`,
so RUSAGE_CHILDREN there is that one program's own high-water mark.
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from lp.interp.vm import Frame, Process
from lp.interp.values import Closure
from tests.conftest import ROOT
from tests.interp.helpers import run_source

_PEAK = ("import resource, subprocess, sys\n"
         "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
         "sys.stdout.write(r.stdout.decode())\n"
         "sys.stderr.write(r.stderr.decode())\n"
         "print('PEAK', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, 'RC', r.returncode)\n")


def peak_rss_kb(prog, *flags) -> tuple[int, str]:
    """(peak RSS in KiB, stdout) of `lp run` on prog, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "lp", "run", *flags, str(prog)],
                       capture_output=True, text=True, timeout=280, env=env, cwd=ROOT)
    *out, last = r.stdout.splitlines()
    _, peak, _, rc = last.split()
    assert rc == "0", r.stderr
    return int(peak), "\n".join(out)


GROW = """
Object subclass: #B.
B class >> grow: n into: a = n = 0 ifTrue: [a size] ifFalse: [B grow: n - 1 into: (Array new: 10000 withAll: n)].
(B grow: {n} into: #()) printNl.
"""


@pytest.mark.timeout(300)
def test_a_loop_whose_state_is_a_big_array_frees_each_dead_array(tmp_path):
    peaks = []
    for n in (10, 20_000):
        prog = tmp_path / f"grow{n}.lp"
        prog.write_text(GROW.format(n=n))
        peak, out = peak_rss_kb(prog)
        assert out == "10000"
        peaks.append(peak)
    assert peaks[1] < peaks[0] * 1.5, peaks


ACTORS = """
Object subclass: #Spawner.
Spawner class >> go: n parent: me = n = 0 ifTrue: [#done] ifFalse: [(
    w := Actor spawn: [:a | big := Array new: 12500 withAll: n. me ! #ready. a receive: {{ #stop -> [:m | big size] }}].
    me receive: {{ #ready -> [:m | w ! #stop] }}.
    Spawner go: n - 1 parent: me)].
(Spawner go: {n} parent: Actor self) printNl.
"""


@pytest.mark.timeout(300)
def test_finished_actors_release_what_they_held(tmp_path):
    peaks = []
    for n in (10, 100_000):
        prog = tmp_path / f"actors{n}.lp"
        prog.write_text(ACTORS.format(n=n))
        peak, out = peak_rss_kb(prog, "--domains", "2")
        assert out == "#done"
        peaks.append(peak)
    assert peaks[1] < peaks[0] * 1.5, peaks


@pytest.mark.timeout(200)
def test_ten_million_iteration_loop_runs_in_constant_memory(tmp_path):
    template = ("Object subclass: #L.\nL class >> count: n to: m = n >= m ifTrue: [n] ifFalse: [L count: n + 1 to: m].\n"
                "(L count: 0 to: {n}) printNl.\n")
    peaks = []
    for n in (100_000, 10_000_000):
        prog = tmp_path / f"loop{n}.lp"
        prog.write_text(template.format(n=n))
        peak, out = peak_rss_kb(prog, "--stack-limit", "50")
        assert out == str(n)
        peaks.append(peak)
    assert peaks[1] < peaks[0] * 1.2, peaks


CALLS = """
Object subclass: #P fields: (x).
P >> twice = self x * 2.
P class >> find: v in: a = (a do: [:e | e = v ifTrue: [^e]]. 0).
P class >> loop: n acc: a = n = 0 ifTrue: [a] ifFalse: [P loop: n - 1 acc: a + (P fields: { x: n }) twice].
(P loop: 1000 acc: 0) printNl.
(P find: 3 in: #(1 2 3 4)) printNl.
([:k | k + 1] value: 41) printNl.
([ 'body' ] ensure: [ 'cleanup' ]) displayNl.
(Error try: [Error raise: 'x'] onError: [:e | e message]) displayNl.
me := Actor self.
w := Actor spawn: [:a | a receive: { #ping -> [:m | me ! #pong] }].
w ! #ping.
me receive: { #pong -> [:m | 'pong' displayNl] }.
"""


def test_no_frame_or_process_is_left_for_the_cycle_collector(tmp_path):
    gc.collect()
    gc.disable()
    try:
        status, out, err = run_source(CALLS, tmp_path, domains=1)
        assert (status, err) == (0, ""), err
        assert out == "1001000\n3\n42\nbody\nx\npong\n"
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [o for o in gc.garbage if type(o) in (Frame, Process, Closure)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == [], f"{len(left)} frames/processes/closures were only reachable through cycles"


def test_running_out_of_memory_is_an_lp_error(tmp_path):
    import resource
    prog = tmp_path / "oom.lp"
    prog.write_text("(Error try: [(Array new: 200000000 withAll: 0) size printString] onError: [:e | e message])"
                    " displayNl.\n'still running' displayNl.\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "lp", "run", str(prog)], capture_output=True, text=True,
                       timeout=120, env=env, cwd=ROOT, preexec_fn=limit)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert r.stdout == "out of memory: the program needs more memory than the machine gives it\nstill running\n"
