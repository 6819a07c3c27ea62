"""Actors for the interpreter: each LP actor is a step actor of the C runtime whose
step runs its Process. Selective receive, futures, links, monitors and exit
signals all go through the runtime; nothing here schedules.
"""
from __future__ import annotations

import gc
import time

from lp.interp import code as C
from lp.interp.interrupt import run_interruptibly
from lp.interp.errors import ActorExit, LPRaise, make_error
from lp.interp.reason_text import bounded_print, cut
from lp.interp.registry import prim
from lp.interp.deadlock import report_deadlock
from lp.interp.values import ActorValue, Closure, Future, FutureReady, Instance, LPClass, Promise, ReplyAddress, Symbol
from lp.interp import vm as vm_module
from lp.interp.vm import BLOCK, BUDGET, DONE, SUSPEND, Call, Frame, Process
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


def _matches(interp, keys, v):
    """Index of the first (kind, key) entry of a receive table matching v, or None."""
    cls = None
    for i, (kind, key) in enumerate(keys):
        if kind == C.MATCH_ANY:
            return i
        if kind == C.MATCH_CLASS:
            if cls is None:
                t = type(v)
                cls = v.cls if t is Instance else interp.type_classes.get(t) or interp.class_of(v)
            if type(key) is LPClass and key in cls.ancestors:
                return i
        elif type(key) is type(v) and interp.equal(key, v):
            # a literal key matches values of its own class only: `1 -> [...]` does not take the
            # Float 1.0 (they are `=`), whose handler is typed Integer (docs/types.md)
            return i
    return None


def _stale(proc, payload):
    """Entries no receive ever wants: a future's wake-up no await waits for (an actor awaits one
    future at a time, and gives up its registration when it stops waiting), and the Down of an
    ask: monitor that fired after the reply came."""
    t = type(payload)
    if t is FutureReady:
        return True
    if t is rt.Down and payload.ref in proc.stale_downs:
        proc.stale_downs.discard(payload.ref)
        return True
    return False


def _forget_monitor(proc, down):
    """A `monitor:` whose Down is taken is over: its entry goes (an actor monitoring one actor after
    another, as a grain directory does its owners, would otherwise keep one per actor it ever watched)."""
    if down.actor is not None and proc.monitors.get(down.actor.id) == down.ref:
        del proc.monitors[down.actor.id]


def deadline_after(interp, ms, what):
    """The runtime deadline `ms` milliseconds from now: negative counts as 0, and a timeout past
    the clock's range never expires (the runtime saturates)."""
    if type(ms) is not int and type(ms) is not float:
        raise LPRaise(make_error(interp, f"{what} must be a number of milliseconds, not {interp.describe(ms)}"))
    return rt.deadline_after(ms)


def take_matching(proc, frame, keys, ms, what="a receive timeout", site=None):
    """The one selective receive: take the oldest message matching `keys` ((kind, key) pairs).
    Answers (index, message), TIMEOUT after `ms` (None: never), or SUSPEND with the wait
    registered in frame.wait (the same call resumes it).

    `site` (a RECV instruction) names a receive whose keys are the same objects each time it
    runs: whether a message matches depends only on the message and the keys, so the messages
    its last run passed over still do not match, and the scan starts after them."""
    ctx = proc.ctx
    interp = proc.interp
    wait = frame.wait
    if wait is None:
        deadline = -1 if ms is None else deadline_after(interp, ms, what)
        cursor = _passed_over(proc, site, keys) if site is not None else 0
    else:
        deadline, cursor = wait
    found = []

    def accept(payload):
        down = None
        if type(payload) is FutureReady or type(payload) is rt.Down or type(payload) is rt.Exit:
            if _stale(proc, payload):
                return rt.DROP
            if type(payload) is rt.Down:
                down = payload
            payload = lp_payload(interp, payload)
        i = _matches(interp, keys, payload)
        if i is not None:
            found.append(payload)
            if down is not None:
                _forget_monitor(proc, down)
        return i

    m, cursor, i = ctx.select(accept, cursor)
    if m is not None:
        if site is not None:
            proc.passed_over[id(site)] = (site, keys, rt.lib.lprt_py_msg_seq(m) - 1)
        ctx.raw_take(m)
        frame.wait = None
        return i, found[0]
    if site is not None:
        proc.passed_over[id(site)] = (site, keys, cursor)
    if deadline != -1 and (ctx.wake_reason == rt.WAKE_TIMEOUT and wait is not None or rt.lib.lprt_now() >= deadline):
        frame.wait = None
        return TIMEOUT
    frame.wait = (deadline, cursor)
    ctx.wait_receive(cursor, deadline=deadline)
    return SUSPEND


TIMEOUT = object()


def _passed_over(proc, site, keys):
    """The seq up to which the last run of receive `site` found no match, if its keys are the
    same objects now (else 0: scan everything)."""
    last = proc.passed_over.get(id(site))
    if last is None or last[0] is not site:
        return 0
    old = last[1]
    for (k1, a), (k2, b) in zip(old, keys):
        if a is not b:
            return 0
    return last[2]


def receive(proc: Process, frame: Frame, ins) -> object:
    """The RECV instruction: a literal receive table compiled to key registers and handler pcs."""
    _, _dst, me_r, entries, tmo_r, tmo_pc, node = ins
    regs = frame.regs
    me = regs[me_r]
    if type(me) is not ActorValue or me.id != proc.ctx.id:
        raise LPRaise(make_error(proc.interp, f"only an actor can receive its own messages; this is "
                                 f"{proc.interp.describe(me)}, not the running actor"))
    keys = [(kind, regs[key] if kind != C.MATCH_ANY else None) for kind, key, _, _ in entries]
    r = take_matching(proc, frame, keys, None if tmo_r is None else regs[tmo_r], site=ins)
    if r is SUSPEND:
        return SUSPEND
    if r is TIMEOUT:
        frame.pc = tmo_pc
        return None
    _, _, param, target = entries[r[0]]
    regs[param] = r[1]
    frame.pc = target
    return None


vm_module.__dict__["_receive"] = receive


# ---- the step function

class ActorState:
    """Binds a Process to its runtime actor."""

    def __init__(self, interp, proc: Process, is_main=False):
        self.interp = interp
        self.proc = proc
        self.is_main = is_main
        self.exit_where = None     # trace of the `exit:` that ended the actor
        proc.stale_downs = set()   # refs of ask: monitors whose Down is still to be dropped
        proc.passed_over = {}      # id(RECV) -> (RECV, keys, seq): see take_matching

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
            self.exit_where = e.where
            # what its frames held (a socket, say) is released now, as on a normal end: the LP frames, and
            # the Python frames the exception's traceback keeps in a cycle with it
            proc.stack.clear()
            e.__traceback__ = e.__context__ = None
            ctx.set_exit_reason(e.kind, e.value)
            self.report_unmatched(ctx)
            self.ending()
            return rt.DONE
        if r == DONE:
            if proc.error is not None:
                ctx.set_exit_reason(rt.ERROR, proc.error)
            self.report_unmatched(ctx)
            self.ending()
            return rt.DONE
        if r == BLOCK:
            return rt.BLOCK
        ctx.reductions(BUDGET)   # preempted: the turn spent its budget (deterministic mode's clock counts it)
        return rt.YIELD

    def ending(self):
        """The main actor's last step is over: the program ends now. Set before the runtime
        notifies its links and monitors, so that what they do in the moment before the run
        stops (a linked supervisor stopping its children, say) writes nothing."""
        if self.is_main:
            self.interp.main_done = True

    def on_exit(self, ctx, kind, value):
        if self.interp.observer is not None:
            self.interp.observer.ended(ctx.id)
        if self.is_main:
            self.interp.main_done = True
            self.interp.main_reason = (kind, value)

    def report_unmatched(self, ctx):
        """Warn about mail the actor leaves behind; runs before its death is visible to anyone."""
        interp = self.interp
        if self.is_main or interp.quiet or interp.main_done:
            return
        n = 0
        stale = self.proc.stale_downs
        for m in ctx.messages():
            pl = m.payload
            if type(pl) is not FutureReady and not (type(pl) is rt.Down and pl.ref in stale):
                n += 1
        if n:
            interp.report(f"actor {ctx.id} ended with {n} unmatched message{'s' if n != 1 else ''} "
                          "in its mailbox")


def spawn(interp, closure: Closure, link_to=None, monitor_by=None, parent=None):
    code = closure.code
    if code.nparams > 1:
        raise LPRaise(make_error(interp, f"Actor spawn: takes a block with one parameter (the actor itself), "
                                 f"not {code.nparams}"))
    regs = code.template[:]
    regs[code.nparams:code.nparams + code.ncaptured] = closure.captured
    proc = Process(interp, Frame(code, regs, None, closure.home))
    st = ActorState(interp, proc)
    observer = interp.observer
    if observer is None:
        return ActorValue(interp.runtime.spawn(st.step, on_exit=st.on_exit, link=link_to))
    # registered before it can run (and end, on another domain)
    ref = interp.runtime.spawn(st.step, on_exit=st.on_exit, link=link_to, start=False)
    observer.spawned(ref.id, observer.site_of(code), parent.id if parent is not None else None)
    interp.runtime.start(ref)
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
    return spawn(p.interp, blk, parent=p.ctx)


@prim("Actor", "spawnLink:", class_side=True)
def _spawn_link(p, cls, blk):
    return spawn(p.interp, blk, link_to=p.ctx, parent=p.ctx)


@prim("Actor", "trapExits:", class_side=True)
def _trap(p, cls, on):
    p.ctx.trap_exits(on is True)
    return None


@prim("Actor", "millisecondClock", class_side=True)
def _clock(p, cls):
    """Milliseconds on the runtime's monotonic clock."""
    return rt.lib.lprt_now() // 1_000_000


_UNIX_BASE: list = []   # the system's clock less the runtime's, in ms, taken at the first unixMillis


@prim("Actor", "unixMillis", class_side=True)
def _unix_millis(p, cls):
    """Milliseconds since 1970 (alarm times, docs/durable.md): the system's clock when first asked,
    then advancing with the runtime's clock, so that under a seed it is virtual like every other
    time (a lease or an alarm waited for in virtual time)."""
    now = rt.lib.lprt_now() // 1_000_000
    if not _UNIX_BASE:
        _UNIX_BASE.append(time.time_ns() // 1_000_000 - now)
    return _UNIX_BASE[0] + now


@prim("Actor", "microsecondClock", class_side=True)
def _clock_us(p, cls):
    """Microseconds on the runtime's monotonic clock."""
    return rt.lib.lprt_now() // 1_000


@prim("Actor", "exit:", class_side=True)
def _exit_self(p, cls, reason):
    kind, value = reason_kind(p.interp, reason)
    raise ActorExit(kind, value)


@prim("Actor", "sleep:", class_side=True)
def _sleep(p, cls, ms):
    frame = p.stack[-1]
    if frame.wait is not None:
        frame.wait = None
        return None
    frame.wait = ("sleep",)
    p.ctx.wait_sleep(deadline=deadline_after(p.interp, ms, "Actor sleep:"))
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


class _Asked:
    """Until an ask: future is resolved its `value` slot holds the actor asked (Future has no
    slot of its own for it), so whoever awaits it can monitor that actor."""
    __slots__ = ("ref", "id")

    def __init__(self, actor: ActorValue):
        self.ref, self.id = actor.ref, actor.id


@prim("Actor", "ask:")
def _ask(p, target, msg):
    if type(msg) is not Instance or "reply" not in msg.cls.field_index:
        raise LPRaise(make_error(p.interp, f"ask: needs an instance of a class with a `reply` field, not "
                                 f"{p.interp.describe(msg)}"))
    fut = Future()
    if type(target) is ActorValue:
        fut.value = _Asked(target)
    values = list(msg.values)
    values[msg.cls.field_index["reply"]] = ReplyAddress(fut, p.me)
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
    if table is None:
        keys = [(C.MATCH_ANY, None)]
    else:
        from lp.interp.values import Association
        if type(table) is not tuple or not all(type(a) is Association for a in table):
            raise LPRaise(make_error(interp, "receive: expects a table of `key -> [:msg | ...]` entries"))
        keys = [(C.MATCH_CLASS if type(a.key) is LPClass else C.MATCH_VALUE, a.key) for a in table]
    if type(me) is not ActorValue or me.id != p.ctx.id:
        raise LPRaise(make_error(interp, "only an actor can receive its own messages"))
    r = take_matching(p, p.stack[-1], keys, ms)
    if r is SUSPEND:
        return SUSPEND
    if r is TIMEOUT:
        return Call(on_timeout) if type(on_timeout) is Closure else on_timeout
    i, v = r
    if table is None:
        return v
    handler = table[i].value
    if type(handler) is not Closure:
        return handler
    return Call(handler, (v,) if handler.code.nparams == 1 else ())


# ---- failure

def _other_actor(p, sel: str, b):
    """b, the actor a failure selector names (unchecked programs can pass anything)."""
    if type(b) not in (ActorValue, ReplyAddress):
        raise LPRaise(make_error(p.interp, f"#{sel} expects an actor, not {p.interp.describe(b)}"))
    return b


@prim("Actor", "linkTo:")
def _link(p, a, b):
    b = _other_actor(p, "linkTo:", b)
    if a.id != p.ctx.id:
        raise LPRaise(make_error(p.interp, "linkTo: is sent by an actor to link itself: `Actor self linkTo: other`"))
    r = p.ctx.link(b.ref)
    if r == -1:
        dead = b.ref.dead_reason()
        why = describe_reason(p.interp, *dead) if dead else "dead"
        raise LPRaise(make_error(p.interp, f"cannot link to Actor<{b.id}>: it has already ended ({why})"))
    return None


@prim("Actor", "unlinkFrom:")
def _unlink(p, a, b):
    b = _other_actor(p, "unlinkFrom:", b)
    p.ctx.unlink(b.ref)
    return None


@prim("Actor", "monitor:")
def _monitor(p, a, b):
    b = _other_actor(p, "monitor:", b)
    if a.id != p.ctx.id:
        raise LPRaise(make_error(p.interp, "monitor: is sent by the watching actor: `Actor self monitor: other`"))
    p.monitors[b.id] = p.ctx.monitor(b.ref)
    return None


@prim("Actor", "demonitor:")
def _demonitor(p, a, b):
    b = _other_actor(p, "demonitor:", b)
    ref = p.monitors.pop(b.id, None)
    if ref is not None:
        p.ctx.demonitor(b.ref, ref)
    return None


@prim("Actor", "exit:")
def _exit_other(p, target, reason):
    kind, value = reason_kind(p.interp, reason)
    if target.id == p.ctx.id and (kind == rt.KILLED or not p.ctx.traps_exits()):
        # a signal to oneself takes effect before the next instruction (even #normal, as in Erlang)
        raise ActorExit(kind, value, unwind=False)
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
    """Wait for fut. An ask: future is awaited as Erlang's gen_server:call waits: the waiter
    monitors the actor asked, whose death before the reply raises here."""
    frame = p.stack[-1]
    ctx = p.ctx
    if frame.wait is None:
        deadline = -1 if ms is None else deadline_after(p.interp, ms, "an await: timeout")
        # The wake-up and the Down can only come after the registration and the monitor below:
        # scanning from here never walks the messages already waiting (Erlang's receive mark).
        cursor = ctx.mark()
        with fut.lock:
            if fut.resolved:
                return fut.value
            asked = fut.value
            fut.waiters.append(ctx)
        mref = ctx.monitor(asked.ref) if type(asked) is _Asked else None
    else:
        deadline, cursor, asked, mref = frame.wait

    def accept(payload):
        t = type(payload)
        if t is FutureReady:
            return payload if payload.future is fut else rt.DROP
        if t is rt.Down:
            if payload.ref == mref:
                return payload
            if payload.ref in p.stale_downs:
                p.stale_downs.discard(payload.ref)
                return rt.DROP
        return None

    m, cursor, hit = ctx.select(accept, cursor)
    if m is not None:
        ctx.raw_take(m)
        frame.wait = None
        if type(hit) is FutureReady or fut.resolved:
            _end_wait(p, fut, asked, mref, hit)
            return fut.value
        _end_wait(p, fut, asked, mref, hit)
        raise LPRaise(make_error(p.interp, f"the actor asked (Actor<{asked.id}>) died before replying: "
                                 f"{describe_reason(p.interp, hit.reason, hit.reason_value)}"))
    if deadline != -1 and ((ctx.wake_reason == rt.WAKE_TIMEOUT and frame.wait is not None)
                           or rt.lib.lprt_now() >= deadline):
        frame.wait = None
        _end_wait(p, fut, asked, mref, None)
        if fut.resolved:
            return fut.value
        raise LPRaise(make_error(p.interp, f"await: timed out after {p.interp.print_string(ms if ms > 0 else 0)} ms"))
    frame.wait = (deadline, cursor, asked, mref)
    ctx.wait_receive(cursor, deadline=deadline)
    return SUSPEND


def _end_wait(p, fut, asked, mref, taken):
    """Undo an await's registrations; a Down that may still come is dropped when it does."""
    ctx = p.ctx
    with fut.lock:
        if ctx in fut.waiters:
            fut.waiters.remove(ctx)
    if mref is not None and type(taken) is not rt.Down and not ctx.demonitor(asked.ref, mref):
        p.stale_downs.add(mref)


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

def run_program(interp, main, domains=None, seed=None, faults=None, fault_rate=1, prelude=(),
                time_limit=None) -> int:
    """Run the main program's statements as the main actor (in deterministic mode with a seed),
    after the `prelude` statements (`--observe`'s); answers the process exit status. With a
    time_limit, see run_main_code."""
    code = interp.compiler.main(list(prelude) + list(main.statements), main.span)
    status, proc, st = run_main_code(interp, code, domains, seed, faults, fault_rate, time_limit)
    if status == rt.EDEADLOCK:
        return 1
    if proc.error is not None:
        interp.report_uncaught(proc.error)
        return 1
    kind, value = getattr(interp, "main_reason", (rt.NORMAL, None))
    if kind != rt.NORMAL:
        # stopped from outside (a linked actor's failure, an exit signal) or by `Actor exit:`
        where = f" at {st.exit_where[0][1]}" if st.exit_where else interp.where(value)
        interp.report(f"the main actor ended abnormally ({describe_reason(interp, kind, value)}){where}",
                      always=True)
        return 1
    return 0


def run_main_code(interp, code, domains=None, seed=None, faults=None, fault_rate=1, time_limit=None):
    """Run compiled main code as the main actor of a fresh runtime (deterministic when `seed` is
    given: runtime/DESIGN.md); answers (runtime status, the main Process, its ActorState). After
    time_limit seconds (real time) the main actor is killed and interp.time_limit_hit set."""
    # Everything loaded so far lives for the whole run: keep the cycle collector off it, and
    # collect young objects less often (actors allocate many small, acyclic objects).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    proc = Process(interp, Frame(code, code.template[:], None))
    interp.main_process = proc
    st = ActorState(interp, proc, is_main=True)
    runtime = rt.Runtime(domains=domains, on_unobserved=interp.unobserved, observe=interp.observer is not None,
                         on_deadlock=lambda: report_deadlock(interp, runtime), seed=seed, faults=faults,
                         fault_rate=fault_rate)
    interp.runtime = runtime
    ref = runtime.spawn(st.step, on_exit=st.on_exit, start=False)
    if interp.observer is not None:
        interp.observer.spawned(ref.id, "main", None)

    def interrupted():
        interp.main_done = True
        ref.exit(rt.KILLED)

    # The runtime runs on its own thread so this one stays free to take Ctrl-C.
    def out_of_time():
        interp.time_limit_hit = True
        interp.main_done = True
        ref.exit(rt.KILLED)

    interp.time_limit_hit = False
    status = run_interruptibly(lambda: runtime.run(ref), interrupted, limit=time_limit, on_limit=out_of_time)
    interp.out.flush()
    return status, proc, st


def describe_reason(interp, kind, value) -> str:
    """A reason in a few hundred characters at most, whatever its size or depth."""
    if kind == rt.KILLED:
        return "killed"
    if kind == rt.NORMAL:
        return "normal"
    if isinstance(value, Instance) and "message" in value.cls.field_index:
        msg = value.get("message")
        return f"{value.cls.name}: {cut(msg) if type(msg) is str else bounded_print(interp, msg)}"
    return bounded_print(interp, value)
