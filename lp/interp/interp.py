"""The interpreter: builds the class table from the programs, compiles them, and runs
the main actor on the C runtime.
"""
from __future__ import annotations

import os
import sys
import threading

from lp.core_helpers import is_private
from lp.classdecls import validate
from lp.diagnostics import Diagnostic, LPError
from lp.interp import builtins
from lp.interp.code import FieldGetter, Method
from lp.interp.compiler import Compiler
from lp.interp.errors import make_error
from lp.interp.printer import describe, print_string
from lp.interp.values import Instance, LPClass
from lp.syntax import ast as A
from lp.types.problems import MethodOnUnknownClass
from lp.types.reports import class_problem, render

DEFAULT_STACK_LIMIT = 200_000
TRACE_HEAD, TRACE_TAIL = 12, 4


def headline_span(trace):
    """Where an uncaught error is reported: the innermost frame in the program's own files, so that an
    error the stdlib passes on (a grain method's, re-raised in its caller) names the user's line; the
    innermost frame when every frame is the stdlib's. runtime/native/error.c chooses alike."""
    for _, span in trace:
        if not span.file.replace("\\", "/").startswith("stdlib/"):
            return span
    return trace[0][1]


def format_trace(trace) -> list[str]:
    """Call stack lines, runs of the same frame collapsed, very long stacks cut in the middle."""
    runs: list[list] = []
    for fname, sp in trace:
        if runs and runs[-1][0] == fname and runs[-1][1] == sp:
            runs[-1][2] += 1
        else:
            runs.append([fname, sp, 1])
    lines = [f"  {f}  ({sp})" + (f"  [{n} times]" if n > 1 else "") for f, sp, n in runs]
    if len(lines) > TRACE_HEAD + TRACE_TAIL:
        cut = len(lines) - TRACE_HEAD - TRACE_TAIL
        lines = lines[:TRACE_HEAD] + [f"  ... {cut} more ..."] + lines[-TRACE_TAIL:]
    return lines


class Interpreter:
    def __init__(self, sources=None, out=None, err=None, quiet=False, stack_limit=DEFAULT_STACK_LIMIT):
        self.sources = sources
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.quiet = quiet
        self.stack_limit = stack_limit
        self.classes: dict[str, LPClass] = {}
        self.type_classes: dict[type, LPClass] = {}
        self.out_lock = threading.Lock()
        self.runtime = None
        self.main_process = None
        self.main_done = False
        self.observer = None   # lp.observe.watch.Watch under --observe
        self.grain_shapes_made: dict = {}   # id(state) -> (state, shape text): prims_grain.py `shape:of:`
        self.int_ops: dict = {}
        self.out_closed = False
        self.type_expectations = None   # lp/interp/type_oracle.py, when it is on
        builtins.install(self)

    # ---- loading
    def load(self, programs: list[A.Program], grain_shapes=None) -> None:
        """Declare every class, then compile every method (declarations are hoisted). grain_shapes: the
        checker's CheckResult.grain_shapes, the type of each grain's initial state (none without a check)."""
        decls = [d for p in programs for d in p.classes]
        # lp/classdecls.py validates the declarations as the checker does, worded as it words them
        builtins = {n: (c.superclass.name if c.superclass else None, tuple(c.fields))
                    for n, c in self.classes.items() if c.builtin}
        v = validate(decls, builtins)
        if v.problems:
            first = min(v.problems, key=lambda p: (p.decl.span.line, p.decl.span.col))
            raise LPError(class_problem(first))
        pending = list(v.kept)
        while pending:     # superclasses first (validate broke every cycle)
            later = []
            for d in pending:
                sup = self.classes.get(v.superclass[d.name])
                if sup is None:
                    later.append(d)
                else:
                    self.add_class(LPClass(d.name, sup, v.fields[d.name]))
            pending = later
        comp = Compiler(self.classes, grain_shapes, self.type_expectations)
        for p in programs:
            for m in p.methods:
                cls = self.classes.get(m.class_name)
                if cls is None:
                    raise LPError(render(MethodOnUnknownClass(m.class_name, m.span, None)))
                code = comp.method(m, cls)
                table = cls.class_methods if m.class_side else cls.methods
                table[m.selector] = Method(code, cls, m.selector, m.class_side)
        for c in self.classes.values():
            c.invalidate()
        self.compiler = comp
        from lp.interp.prims_numbers import int_fast_paths
        self.int_ops = int_fast_paths(self)

    def add_class(self, cls: LPClass) -> None:
        self.classes[cls.name] = cls
        for i, f in enumerate(cls.fields):
            cls.methods.setdefault(f, FieldGetter(i, f))

    # ---- helpers for primitives
    def describe(self, v) -> str:
        return describe(self, v)

    def print_string(self, v) -> str:
        return print_string(self, v)

    def class_of(self, v) -> LPClass:
        if type(v) is Instance:
            return v.cls
        if type(v) is LPClass:
            return v
        return self.type_classes[type(v)]

    def not_understood(self, recv, selector: str, node, via_super=False, start=None):
        """The error for a send nobody implements; `start` is where a super send began looking."""
        import difflib
        what = describe(self, recv)
        if type(recv) is LPClass:
            names, c = set(), (start if via_super else recv)
            while c is not None:
                names |= set(c.class_methods)
                c = c.superclass
        else:
            names, c = set(), (start if via_super else self.class_of(recv))
            while c is not None:
                names |= set(c.methods)
                c = c.superclass
        names.discard(selector)
        names = {n for n in names if not is_private(n)}   # the core library's helpers (lp/core_helpers.py)
        close = difflib.get_close_matches(selector, sorted(names), n=1, cutoff=0.75)
        hint = f" (did you mean #{close[0]}?)" if close else ""
        if via_super:
            where = f"{start.name} and its superclasses" if start is not None else "its superclass"
            return make_error(self, f"{what} does not understand #{selector} through super: {where} "
                                    f"define no such method{hint}")
        return make_error(self, f"{what} does not understand #{selector}{hint}")

    def equal(self, a, b) -> bool:
        from lp.interp.prims_objects import lp_equal
        return lp_equal(a, b)

    def report(self, text: str, always: bool = False) -> None:
        """One line on stderr about the program's actors (callers honour --quiet unless `always`)."""
        with self.out_lock:
            self.out.flush()
            self.err.write(f"lp: {text}\n")
            self.err.flush()

    def where(self, err) -> str:
        trace = getattr(err, "trace", None)
        return f" at {trace[0][1]}" if trace else ""

    def unobserved(self, actor_id, kind, value):
        from lp.interp.actors import describe_reason
        if self.observer is not None and not self.main_done:
            self.observer.died(actor_id, describe_reason(self, kind, value), self.where(value).removeprefix(" at "))
        if self.quiet or self.main_done or (self.main_process is not None and self.main_process.ctx is not None
                                            and self.main_process.ctx.id == actor_id):
            return
        self.report(f"actor {actor_id} died ({describe_reason(self, kind, value)}){self.where(value)}, "
                    "and no link or monitor observed it")

    def report_uncaught(self, err) -> None:
        from lp.diagnostics import render
        from lp.interp.errors import error_message
        from lp.interp.values import Instance
        msg = error_message(err)
        name = err.cls.name if isinstance(err, Instance) else "Error"
        trace = getattr(err, "trace", None) or []
        lines = []
        if trace:
            span = headline_span(trace)
            lines.append(f"{span}: {name}: {msg}")
            if self.sources is not None:
                excerpt = render(Diagnostic("uncaught error", "", span), self.sources).split("\n")[2:-3]
                lines += [x for x in excerpt]
            lines.append("LP call stack (most recent call first):")
            lines += format_trace(trace)
        else:
            lines.append(f"{name}: {msg}")
        with self.out_lock:
            self.out.flush()
            self.err.write("\n".join(lines) + "\n")
            self.err.flush()

    def write(self, text: str) -> None:
        """Standard output. Once the main actor has ended the program is over: actors still
        running in the moment before the run stops write nothing (docs/language.md, Actors)."""
        with self.out_lock:
            if self.out_closed or self.main_done:
                return
            try:
                self.out.write(text)
            except BrokenPipeError:
                # the reader went away (`lp run x.lp | head`): stop writing, quietly
                self.out_closed = True
                try:
                    os.dup2(os.open(os.devnull, os.O_WRONLY), self.out.fileno())
                except (OSError, ValueError, AttributeError):
                    pass

    # ---- running
    def run_main(self, main: A.Program, domains=None, seed=None, faults=None, fault_rate=1, prelude=(),
                 time_limit=None) -> int:
        from lp.interp.actors import run_program
        return run_program(self, main, domains, seed, faults, fault_rate, prelude, time_limit)
