"""Actors for the interpreter: each LP actor is a step actor of the C runtime whose
step runs its Process. Selective receive, futures, links, monitors and exit
signals all go through the runtime; nothing here schedules.
"""
from __future__ import annotations

import gc
import sys
import threading

from lp.interp import code as C
from lp.interp.errors import ActorExit, LPRaise, error_message, make_error
from lp.interp.printer import print_string
from lp.interp.registry import prim
from lp.interp.values import ActorValue, Closure, Future, FutureReady, Instance, LPClass, Promise, ReplyAddress, Symbol
from lp.interp import vm as vm_module
from lp.interp.vm import BLOCK, DONE, SUSPEND, YIELD, Call, Frame, Process
from lp.runtime import binding as rt

NORMAL_SYM, KILLED_SYM = Symbol("normal"), Symbol("killed")


# ---- reasons and system messages

def reason_value(kind, value):
    if kind == rt.NORMAL:
        return NORMAL_SYM
    if kind == rt.KILLED:
        return KILLED_SYM
    return value


def reason_kind(interp, reason):
    """An LP exit reason as the runtime's (kind, value)."""
    if reason is NORMAL_SYM:
        return rt.NORMAL, None
    if reason is KILLED_SYM:
        return rt.KILLED, None
    return rt.ERROR, reason


def lp_payload(interp, payload):
    """A mailbox payload as an LP value (Down / Exit entries become instances)."""
    if type(payload) is rt.Down or type(payload) is rt.Exit:
        cls = interp.classes["Down" if type(payload) is rt.Down else "Exit"]
        actor = ActorValue(payload.actor) if payload.actor is not None else None
        return Instance(cls, (actor, reason_value(payload.reason, payload.reason_value)))
    return payload


def _matches(interp, entries, regs, v):
    """(param register, handler pc) of the first entry matching v; entries hold key registers."""
    cls = None
    for kind, key, param, target in entries:
        if kind == C.MATCH_ANY:
            return param, target
        if kind == C.MATCH_CLASS:
            if cls is None:
                t = type(v)
                cls = v.cls if t is Instance else interp.type_classes.get(t) or interp.class_of(v)
            k = regs[key]
            if type(k) is LPClass and k in cls.ancestors:
                return param, target
        elif interp.equal(regs[key], v):
            return param, target
    return None


def receive(proc: Process, frame: Frame, ins) -> object:
    """The RECV instruction: take the oldest message matching an entry, or block."""
    _, _dst, me_r, entries, tmo_r, tmo_pc, node = ins
    regs = frame.regs
    ctx = proc.ctx
    me = regs[me_r]
    if type(me) is not ActorValue or me.id != ctx.id:
        raise LPRaise(make_error(proc.interp, f"only an actor can receive its own messages; this is "
                                 f"{proc.interp.describe(me)}, not the running actor"))
    interp = proc.interp
    wait = frame.wait
    if wait is None:
        deadline = -1
        if tmo_r is not None:
            ms = regs[tmo_r]
            if type(ms) is not int and type(ms) is not float:
                raise LPRaise(make_error(interp, f"a receive timeout must be a number of milliseconds, "
                                         f"not {interp.describe(ms)}"))
            deadline = rt.lib.lprt_deadline_ms(max(0, int(ms)))
        cursor = 0
    else:
        deadline, cursor = wait
        if ctx.wake_reason == rt.WAKE_TIMEOUT:
            frame.wait = None
            frame.pc = tmo_pc
            return None
    scan = ctx.scan
    m, seq, payload = scan(None, cursor)
    while m is not None:
        if type(payload) is not FutureReady:
            if type(payload) is rt.Down or type(payload) is rt.Exit:
                payload = lp_payload(interp, payload)
            hit = _matches(interp, entries, regs, payload)
            if hit is not None:
                ctx.raw_take(m)
                frame.wait = None
                regs[hit[0]] = payload
                frame.pc = hit[1]
                return None
        cursor = seq
        m, seq, payload = scan(m)
    if deadline != -1 and rt.lib.lprt_now() >= deadline:
        frame.wait = None
        frame.pc = tmo_pc
        return None
    frame.wait = (deadline, cursor)
    ctx.wait_receive(cursor, deadline=deadline)
    return SUSPEND


vm_module.__dict__["_receive"] = receive


# ---- the step function

class ActorState:
    """Binds a Process to its runtime actor."""

    def __init__(self, interp, proc: Process, is_main=False):
        self.interp = interp
        self.proc = proc
        self.is_main = is_main

    def step(self, ctx):
        proc = self.proc
        if proc.ctx is None:
            proc.ctx = ctx
            proc.me = ActorValue(ctx)
            first = proc.stack[0]
            if first.code.is_block and first.code.nparams == 1:
                first.regs[0] = proc.me
        try:
            r = proc.run()
        except ActorExit as e:
            ctx.set_exit_reason(e.kind, e.value)
            self.report_unmatched(ctx)
            return rt.DONE
        if r == DONE:
            if proc.error is not None:
                ctx.set_exit_reason(rt.ERROR, proc.error)
            self.report_unmatched(ctx)
            return rt.DONE
        return rt.BLOCK if r == BLOCK else rt.YIELD

    def on_exit(self, ctx, kind, value):
        if self.is_main:
            self.interp.main_done = True
            self.interp.main_reason = (kind, value)

    def report_unmatched(self, ctx):
        """Warn about mail the actor leaves behind; runs before its death is visible to anyone."""
        interp = self.interp
        if self.is_main or interp.quiet or interp.main_done:
            return
        n = 0
        for m in ctx.messages():
            if type(m.payload) is not FutureReady:
                n += 1
        if n:
            interp.report(f"actor {ctx.id} ended with {n} unmatched message{'s' if n != 1 else ''} "
                          "in its mailbox")


def spawn(interp, closure: Closure, link_to=None, monitor_by=None):
    code = closure.code
    if code.nparams > 1:
        raise LPRaise(make_error(interp, f"Actor spawn: takes a block with one parameter (the actor itself), "
                                 f"not {code.nparams}"))
    regs = code.template[:]
    regs[code.nparams:code.nparams + code.ncaptured] = closure.captured
    proc = Process(interp, Frame(code, regs, None, closure.home))
    st = ActorState(interp, proc)
    ref = interp.runtime.spawn(st.step, on_exit=st.on_exit, link=link_to)
    return ActorValue(ref)


# ---- Actor class side

def _current(p):
    return p.me


@prim("Actor", "self", class_side=True)
def _self(p, cls):
    return p.me


@prim("Actor", "spawn:", class_side=True)
def _spawn(p, cls, blk):
    if type(blk) is not Closure:
        raise LPRaise(make_error(p.interp, f"Actor spawn: needs a block, not {p.interp.describe(blk)}"))
    return spawn(p.interp, blk)


@prim("Actor", "spawnLink:", class_side=True)
def _spawn_link(p, cls, blk):
    return spawn(p.interp, blk, link_to=p.ctx)


@prim("Actor", "trapExits:", class_side=True)
def _trap(p, cls, on):
    p.ctx.trap_exits(on is True)
    return None


@prim("Actor", "millisecondClock", class_side=True)
def _clock(p, cls):
    """Milliseconds on the runtime's monotonic clock."""
    return rt.lib.lprt_now() // 1_000_000


@prim("Actor", "exit:", class_side=True)
def _exit_self(p, cls, reason):
    kind, value = reason_kind(p.interp, reason)
    if kind == rt.ERROR and isinstance(value, Instance) and value.trace is None:
        value.trace = p.trace()
    raise ActorExit(kind, value)


@prim("Actor", "sleep:", class_side=True)
def _sleep(p, cls, ms):
    frame = p.stack[-1]
    if frame.wait is not None:
        frame.wait = None
        return None
    if type(ms) is not int and type(ms) is not float:
        raise LPRaise(make_error(p.interp, f"Actor sleep: expects milliseconds, not {p.interp.describe(ms)}"))
    frame.wait = ("sleep",)
    p.ctx.wait_sleep(max(0, int(ms)))
    return SUSPEND


# ---- sending

def send(p, target, msg):
    if type(target) is ReplyAddress:
        resolve(target.future, msg)
        return msg
    target.ref.send(msg)
    return msg


@prim("Actor", "!")
def _bang(p, target, msg):
    return send(p, target, msg)


@prim("Actor", "ask:")
def _ask(p, target, msg):
    if type(msg) is not Instance or "reply" not in msg.cls.field_index:
        raise LPRaise(make_error(p.interp, f"ask: needs an instance of a class with a `reply` field, not "
                                 f"{p.interp.describe(msg)}"))
    fut = Future()
    values = list(msg.values)
    values[msg.cls.field_index["reply"]] = ReplyAddress(fut)
    send(p, target, Instance(msg.cls, tuple(values)))
    return fut


@prim("Actor", "receive")
def _receive_any(p, me):
    return _receive_table(p, me, None, None, None)


@prim("Actor", "receive:")
def _receive(p, me, table):
    return _receive_table(p, me, table, None, None)


@prim("Actor", "receive:after:do:")
def _receive_after(p, me, table, ms, blk):
    return _receive_table(p, me, table, ms, blk)


def _receive_table(p, me, table, ms, on_timeout):
    """receive: with a table built at run time (literal tables are compiled to RECV)."""
    interp = p.interp
    entries = []
    if table is None:
        entries.append((C.MATCH_ANY, None, 0, 0))
    else:
        from lp.interp.values import Association, LPClass
        if type(table) is not tuple or not all(type(a) is Association for a in table):
            raise LPRaise(make_error(interp, "receive: expects a table of `key -> [:msg | ...]` entries"))
        for i, a in enumerate(table):
            kind = C.MATCH_CLASS if type(a.key) is LPClass else C.MATCH_VALUE
            entries.append((kind, a.key, i, i))
    frame = p.stack[-1]
    ctx = p.ctx
    if type(me) is not ActorValue or me.id != ctx.id:
        raise LPRaise(make_error(interp, "only an actor can receive its own messages"))
    if frame.wait is None:
        deadline = -1 if ms is None else rt.lib.lprt_deadline_ms(max(0, int(ms)))
        cursor = 0
    else:
        deadline, cursor = frame.wait
        if ctx.wake_reason == rt.WAKE_TIMEOUT:
            frame.wait = None
            return Call(on_timeout) if type(on_timeout) is Closure else on_timeout
    m = ctx.after(cursor) if cursor else ctx.first()
    while m is not None:
        payload = m.payload
        if type(payload) is not FutureReady:
            v = lp_payload(interp, payload)
            for kind, key, i, _ in entries:
                if kind == C.MATCH_ANY or (kind == C.MATCH_CLASS and interp.class_of(v).inherits(key)) or \
                        (kind == C.MATCH_VALUE and interp.equal(key, v)):
                    ctx.take(m)
                    frame.wait = None
                    if table is None:
                        return v
                    handler = table[i].value
                    if type(handler) is not Closure:
                        return handler
                    return Call(handler, (v,) if handler.code.nparams == 1 else ())
        cursor = m.seq
        m = ctx.next(m)
    if deadline != -1 and rt.lib.lprt_now() >= deadline:
        frame.wait = None
        return Call(on_timeout) if type(on_timeout) is Closure else on_timeout
    frame.wait = (deadline, cursor)
    ctx.wait_receive(cursor, deadline=deadline)
    return SUSPEND


# ---- failure

@prim("Actor", "linkTo:")
def _link(p, a, b):
    if a.id != p.ctx.id:
        raise LPRaise(make_error(p.interp, "linkTo: is sent by an actor to link itself: `Actor self linkTo: other`"))
    r = p.ctx.link(b.ref)
    if r == -1:
        dead = b.ref.dead_reason()
        why = print_string(p.interp, reason_value(*dead)) if dead else "dead"
        raise LPRaise(make_error(p.interp, f"cannot link to Actor<{b.id}>: it has already ended ({why})"))
    return None


@prim("Actor", "unlinkFrom:")
def _unlink(p, a, b):
    p.ctx.unlink(b.ref)
    return None


@prim("Actor", "monitor:")
def _monitor(p, a, b):
    if a.id != p.ctx.id:
        raise LPRaise(make_error(p.interp, "monitor: is sent by the watching actor: `Actor self monitor: other`"))
    p.monitors[b.id] = p.ctx.monitor(b.ref)
    return None


@prim("Actor", "demonitor:")
def _demonitor(p, a, b):
    ref = p.monitors.pop(b.id, None)
    if ref is not None:
        p.ctx.demonitor(b.ref, ref)
    return None


@prim("Actor", "exit:")
def _exit_other(p, target, reason):
    kind, value = reason_kind(p.interp, reason)
    target.ref.exit(kind, value, sender=p.ctx)
    return target


@prim("Actor", "id")
def _id(p, a):
    return a.id


@prim("Actor", "isAlive")
def _alive(p, a):
    return a.ref.dead_reason() is None


# ---- futures

def resolve(fut: Future, value) -> bool:
    with fut.lock:
        if fut.resolved:
            return False
        fut.resolved = True
        fut.value = value
        waiters, fut.waiters = fut.waiters, []
    for w in waiters:
        w.send(FutureReady(fut))
    return True


def _await(p, fut, ms):
    frame = p.stack[-1]
    ctx = p.ctx
    if frame.wait is None:
        with fut.lock:
            if fut.resolved:
                return fut.value
            fut.waiters.append(ctx)
        deadline = -1 if ms is None else rt.lib.lprt_deadline_ms(max(0, int(ms)))
        cursor = 0
    else:
        deadline, cursor = frame.wait
        if ctx.wake_reason == rt.WAKE_TIMEOUT and not fut.resolved:
            frame.wait = None
            raise LPRaise(make_error(p.interp, f"await: timed out after {ms} ms"))
    m = ctx.after(cursor) if cursor else ctx.first()
    while m is not None:
        pl = m.payload
        if type(pl) is FutureReady and pl.future is fut:
            ctx.take(m)
            frame.wait = None
            return fut.value
        cursor = m.seq
        m = ctx.next(m)
    frame.wait = (deadline, cursor)
    ctx.wait_receive(cursor, deadline=deadline)
    return SUSPEND


@prim("Future", "await")
def _await0(p, fut):
    return _await(p, fut, None)


@prim("Future", "await:")
def _await_ms(p, fut, ms):
    return _await(p, fut, ms)


@prim("Future", "isResolved")
def _is_resolved(p, fut):
    return fut.resolved


@prim("Promise", "new", class_side=True)
def _promise(p, cls):
    return Promise()


@prim("Promise", "resolve:")
def _resolve(p, pr, v):
    if not resolve(pr.future, v):
        raise LPRaise(make_error(p.interp, "this promise is already resolved"))
    return v


@prim("Promise", "future")
def _future(p, pr):
    return pr.future


# ---- running a program

def run_program(interp, main, domains=None) -> int:
    """Run the main program's statements as the main actor; answers the process exit status."""
    code = interp.compiler.main(list(main.statements), main.span)
    # Everything loaded so far lives for the whole run: keep the cycle collector off it, and
    # collect young objects less often (actors allocate many small, acyclic objects).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    proc = Process(interp, Frame(code, code.template[:], None))
    interp.main_process = proc
    st = ActorState(interp, proc, is_main=True)
    runtime = rt.Runtime(domains=domains, on_unobserved=interp.unobserved)
    interp.runtime = runtime
    ref = runtime.spawn(st.step, on_exit=st.on_exit, start=False)
    # The runtime runs on its own thread so this one stays free to take Ctrl-C.
    runner = threading.Thread(target=runtime.run, args=(ref,), name="lp-runtime", daemon=True)
    runner.start()
    try:
        while runner.is_alive():
            runner.join(0.2)
    except KeyboardInterrupt:
        interp.main_done = True
        ref.exit(rt.KILLED)
        runner.join(5)
        raise
    interp.out.flush()
    if proc.error is not None:
        interp.report_uncaught(proc.error)
        return 1
    kind, value = getattr(interp, "main_reason", (rt.NORMAL, None))
    if kind != rt.NORMAL:
        # stopped from outside (a linked actor's failure, an exit signal) or by `Actor exit:`
        interp.report(f"the main actor ended abnormally ({describe_reason(interp, kind, value)})"
                      f"{interp.where(value)}", always=True)
        return 1
    return 0


def describe_reason(interp, kind, value) -> str:
    if kind == rt.KILLED:
        return "killed"
    if kind == rt.NORMAL:
        return "normal"
    if isinstance(value, Instance):
        return f"{value.cls.name}: {error_message(value)}"
    return print_string(interp, value)
