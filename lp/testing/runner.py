"""Runs one test method as the main actor of a fresh runtime and says how it went.

A test passes when its method returns; it fails when an error escapes it (a failed
assertion raises TestFailure), when the main actor is ended from outside, or when every
actor is blocked for good (a deadlock). Its output is captured and shown only on failure.
"""
from __future__ import annotations

import gc
import io
import itertools
from dataclasses import dataclass, field

from lp.diagnostics import SourceMap, excerpt
from lp.interp.interp import Interpreter, format_trace
from lp.runtime import binding as rt
from lp.syntax.parser import parse_text
from lp.testing.discover import TestMethod


@dataclass
class Outcome:
    test: TestMethod
    passed: bool
    lines: list[str] = field(default_factory=list)   # the failure report
    output: str = ""                                 # what the test printed
    seed: int | None = None
    faults: int | None = None    # with faults: the most allowed (0: no limit)
    fault_rate: int = 1          # ... each this many times as likely
    injected: int = 0            # deterministic mode: faults injected, and turns run
    steps: int = 0
    shrunk_from: tuple[int, int] | None = None   # shrink: (injected, steps) of the first failing run
    out_of_time: bool = False    # stopped at its time limit


def keep_test_frames(interp: Interpreter, main, tests: list[TestMethod]) -> None:
    """Recompile the test methods so their frames stay on the call stack: a failed assertion
    in tail position is then reported at its line in the test file."""
    from lp.interp.code import Method
    wanted = {(t.class_name, t.selector) for t in tests}
    for m in main.methods:
        if (m.class_name, m.selector) in wanted and not m.class_side:
            cls = interp.classes[m.class_name]
            cls.methods[m.selector] = Method(interp.compiler.method(m, cls, keep_frame=True), cls, m.selector, False)
            cls.invalidate()


COLLECT_EVERY = 200   # runs: each run freezes what is live (lp.interp.actors), garbage cycles too
_runs = itertools.count(1)


def run_test(interp: Interpreter, test: TestMethod, seed=None, faults=None, fault_rate=1,
             time_limit=None) -> Outcome:
    """Run `test` on interp (loaded with the test file; its runtime state is reset here); after
    time_limit seconds of real time it is stopped and fails."""
    from lp.interp.actors import describe_reason, run_main_code
    if next(_runs) % COLLECT_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    buf = io.StringIO()
    interp.out = interp.err = buf
    interp.main_done = interp.out_closed = False
    interp.__dict__.pop("main_reason", None)
    call = parse_text(f"{test.class_name} new {test.selector}.", test.span.file)
    code = interp.compiler.main(list(call.statements), test.span, program=False)
    status, proc, st = run_main_code(interp, code, domains=1 if seed is not None else None,
                                     seed=seed, faults=faults, fault_rate=fault_rate,
                                     time_limit=time_limit)
    o = Outcome(test, True, [], buf.getvalue(), seed, faults, fault_rate)
    if seed is not None:
        o.steps, o.injected = interp.runtime.det_stats()
    kind, value = getattr(interp, "main_reason", (rt.NORMAL, None))
    if interp.time_limit_hit:
        o.out_of_time = True
        virtual = "" if seed is None else \
            f", {o.steps} turns and {interp.runtime.det_clock_ms()} ms of virtual time"
        o.lines = [f"the test did not end within {time_limit:g} s of real time{virtual}: it may never end "
                   f"(give it longer with --timeout SECONDS)"]
    elif status == rt.EDEADLOCK:
        o.lines = ["deadlock: every actor is blocked and nothing can wake one"]
    elif proc.error is not None:
        o.lines = error_lines(interp.sources, proc.error, test.span.file)
    elif kind != rt.NORMAL:
        where = f" at {st.exit_where[0][1]}" if st.exit_where else interp.where(value)
        o.lines = [f"the test's actor ended abnormally ({describe_reason(interp, kind, value)}){where}"]
    o.passed = not o.lines
    return o


SHRINK_RATES = (2, 4, 8, 16, 32, 64, 128, 256)   # runtime/det.c's MAX_FAULT_RATE


def shrink(interp: Interpreter, failed: Outcome, time_limit=None) -> Outcome:
    """A failure under faults made smaller with the same seed and the same failure: first as few
    faults as still give it (runs allowing 1, 2, 4, ... faults, then a bisection: allowing as many
    as it injected replays it), then as short a run as possible (those faults made 2, 4, ... 256
    times as likely, so they come sooner and the test fails in fewer turns). Answers the
    smallest run found, or `failed` itself."""
    def same(o):
        return not o.passed and o.lines[:1] == failed.lines[:1]

    def allowing(most, rate=1):
        return run_test(interp, failed.test, seed=failed.seed, faults=most, fault_rate=rate, time_limit=time_limit)

    best, lo, hi, most = failed, 0, failed.injected, 1
    while most < hi:
        o = allowing(most)
        if same(o):
            best, hi = o, most
            break
        lo, most = most, most * 2
    while hi - lo > 1:
        o = allowing((lo + hi) // 2)
        if same(o):
            best, hi = o, (lo + hi) // 2
        else:
            lo = (lo + hi) // 2
    for rate in SHRINK_RATES:
        o = allowing(best.injected, rate)
        if same(o) and o.steps < best.steps:
            best = o
    if best is not failed:
        best.shrunk_from = (failed.injected, failed.steps)
    return best


def error_lines(sources: SourceMap, err, test_file: str) -> list[str]:
    """file:line: Class: message, the source line with a caret at the innermost frame in the test
    file (where the failing assertion was called), then the LP call stack."""
    from lp.interp.errors import error_message
    from lp.interp.values import Instance
    name = err.cls.name if isinstance(err, Instance) else "Error"
    trace = getattr(err, "trace", None) or []
    spans = [sp for _, sp in trace]
    at = next((sp for sp in spans if sp.file == test_file), spans[0] if spans else None)
    if at is None:
        return [f"{name}: {error_message(err)}"]
    lines = [f"{at}: {name}: {error_message(err)}"]
    lines += excerpt(sources, at)
    if len(trace) > 1:
        lines.append("LP call stack (most recent call first):")
        lines += format_trace(trace)
    return lines
