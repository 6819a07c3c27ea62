"""Thin Python wrapper over the C runtime (lp.runtime._lprt).

Step actors are Python callables `step(actor) -> YIELD | BLOCK | DONE` run by
the C domains through cffi callbacks (which take the GIL). Python values
travel as handles into a per-runtime table whose counts follow the runtime's
retain/release hooks. An exception escaping a step ends that actor with
reason ERROR(exception). `spawn_gen` runs a generator as a step actor, for
code that reads better as `msg = yield Receive(...)`.
"""
import itertools
import sys
import struct
import threading
import time
import traceback

from ._lprt import ffi, lib

NORMAL, KILLED, ERROR = lib.LPRT_NORMAL, lib.LPRT_KILLED, lib.LPRT_ERROR
YIELD, BLOCK, DONE = lib.LPRT_YIELD, lib.LPRT_BLOCK, lib.LPRT_DONE
WAKE_START, WAKE_YIELD, WAKE_MESSAGE = lib.LPRT_WAKE_START, lib.LPRT_WAKE_YIELD, lib.LPRT_WAKE_MESSAGE
WAKE_TIMEOUT, WAKE_FD, WAKE_RESOLVED = lib.LPRT_WAKE_TIMEOUT, lib.LPRT_WAKE_FD, lib.LPRT_WAKE_RESOLVED
WAKE_KILLED = lib.LPRT_WAKE_KILLED
READ, WRITE = lib.LPRT_READ, lib.LPRT_WRITE
STATES = {lib.LPRT_ST_EMBRYO: "embryo", lib.LPRT_ST_RUNNABLE: "runnable", lib.LPRT_ST_RUNNING: "running",
          lib.LPRT_ST_WAITING: "waiting", lib.LPRT_ST_DEAD: "dead"}
_REASON_NAMES = {NORMAL: "normal", KILLED: "killed", ERROR: "error"}


_OK = lib.LPRT_OK
EDEADLOCK = lib.LPRT_EDEADLOCK
_py_send, _msg_key, _msg_seq, _take_user = lib.lprt_py_send, lib.lprt_py_msg_key, lib.lprt_py_msg_seq, \
    lib.lprt_py_take_user
_scan = lib.lprt_py_scan
DROP = object()  # Actor.select: an accept function's verdict "remove this entry, keep scanning"
_step_fn = lib.lprt_py_step


def now_ns():
    return lib.lprt_now()


INT64_MAX = (1 << 63) - 1
MAX_MS = 2 ** 62   # past the clock's range: the runtime saturates such a deadline to "never"


def deadline_after(ms):
    """The runtime deadline `ms` milliseconds from now: None is no deadline (-1), a negative or
    NaN timeout counts as 0, one too large for the clock never expires."""
    if ms is None:
        return -1
    if not ms > 0:
        return lib.lprt_deadline_ms(0)
    return lib.lprt_deadline_ms(int(min(ms, MAX_MS)))


def monotonic_deadline_after(ms):
    """deadline_after without a call into C (which releases Python's lock, so on two domains the
    other domain's thread can take it): the runtime's clock is CLOCK_MONOTONIC, Python's
    time.monotonic_ns, unless it is `lp test`'s simulated clock (then use deadline_after)."""
    if ms is None:
        return -1
    now = time.monotonic_ns()
    if not ms > 0:
        return now
    ms = int(min(ms, MAX_MS))
    return INT64_MAX if ms > (INT64_MAX - now) // 1_000_000 else now + ms * 1_000_000


class _Values:
    """Handle table: key -> object, keys odd so none is NULL. A value starts with one
    reference; `_extra` counts the references beyond the first (rare: shared exit reasons)."""

    def __init__(self):
        self._lock = threading.RLock()  # re-entered when a GC-run __del__ releases a value
        self._objs = {}
        self._extra = {}
        self._keys = itertools.count(1, 2)   # next() is atomic under the GIL

    def put_key(self, obj):
        k = next(self._keys)
        self._objs[k] = obj
        return k

    def put(self, obj):
        return ffi.cast("void *", self.put_key(obj))

    def get(self, ptr):
        k = int(ffi.cast("uintptr_t", ptr))
        return self._objs[k] if k else None

    def retain(self, ptr):
        k = int(ffi.cast("uintptr_t", ptr))
        with self._lock:
            self._extra[k] = self._extra.get(k, 0) + 1

    def release(self, ptr):
        self.release_key(int(ffi.cast("uintptr_t", ptr)))

    def release_key(self, k):
        with self._lock:
            n = self._extra.get(k)
            if n is None:
                del self._objs[k]
            elif n == 1:
                del self._extra[k]
            else:
                self._extra[k] = n - 1

    def __len__(self):
        return len(self._objs)


# ---- callbacks from the C runtime (domain threads, GIL taken by cffi) ----

@ffi.def_extern()
def lprt_py_retain(value, ud):
    ffi.from_handle(ud)._values.retain(value)


@ffi.def_extern()
def lprt_py_release(value, ud):
    ffi.from_handle(ud)._values.release(value)


@ffi.def_extern()
def lprt_py_step(actor, ud):
    st = ffi.from_handle(ud)
    try:
        r = st.fn(st.ctx)
        return DONE if r is None else int(r)
    except BaseException as e:  # noqa: BLE001 — any escape ends the actor, never the thread
        # The traceback's frames reference the actor (a cycle through C that
        # the GC cannot see): keep its text, drop the frames.
        try:
            e.lp_traceback = traceback.format_exc()
        except AttributeError:
            pass
        e.__traceback__ = None
        st.ctx.set_exit_reason(ERROR, e)
        st.ctx._rt._step_failed(e)
        return DONE


@ffi.def_extern()
def lprt_py_on_exit(actor, kind, value, actor_ud, ud):
    rt = ffi.from_handle(ud)
    st = ffi.from_handle(actor_ud)
    try:
        if st.on_exit is not None:
            st.on_exit(st.ctx, kind, rt._values.get(value) if kind == ERROR else None)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    finally:
        # the runtime never calls back into this actor again: break the
        # handle <-> state cycle so its values go without waiting for the GC
        rt._states.pop(st.id, None)
        st.fn = st.ctx = st.on_exit = st.handle = None


@ffi.def_extern()
def lprt_py_unobserved(actor, kind, value, ud):
    rt = ffi.from_handle(ud)
    reason = rt._values.get(value) if kind == ERROR else None
    try:
        if rt.on_unobserved is not None:
            rt.on_unobserved(int(lib.lprt_id(actor)), kind, reason)
        else:
            sys.stderr.write(f"actor {int(lib.lprt_id(actor))} died: {_REASON_NAMES[kind]}"
                             f"{'' if reason is None else ' ' + repr(reason)}\n")
    except BaseException:  # noqa: BLE001
        traceback.print_exc()


@ffi.def_extern()
def lprt_py_deadlock(crt, ud):
    rt = ffi.from_handle(ud)
    try:
        rt.on_deadlock()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()


# ---- messages ----

class Down:
    """A monitored actor died."""
    __slots__ = ("actor", "ref", "reason", "reason_value")

    def __init__(self, actor, ref, reason, reason_value):
        self.actor, self.ref, self.reason, self.reason_value = actor, ref, reason, reason_value

    def __repr__(self):
        return f"Down({self.actor!r}, ref={self.ref}, {_REASON_NAMES[self.reason]})"


class Exit:
    """A linked actor died (delivered only when trapping exits) or an exit signal."""
    __slots__ = ("actor", "reason", "reason_value")

    def __init__(self, actor, reason, reason_value):
        self.actor, self.reason, self.reason_value = actor, reason, reason_value

    def __repr__(self):
        return f"Exit({self.actor!r}, {_REASON_NAMES[self.reason]})"


class Message:
    """A mailbox entry seen by its owner; valid until taken."""
    __slots__ = ("_ptr", "_rt", "seq", "kind")

    def __init__(self, rt, ptr):
        self._rt, self._ptr, self.seq, self.kind = rt, ptr, int(ptr.seq), int(ptr.kind)

    @property
    def payload(self):
        """The user value, or a Down / Exit for runtime-generated entries."""
        p, rt = self._ptr, self._rt
        if self.kind == lib.LPRT_MSG_USER:
            return rt._values.get(p.value)
        actor = ActorRef._borrowed(rt, p.actor) if p.actor != ffi.NULL else None
        kind = int(p.reason.kind)
        rv = rt._values.get(p.reason.value) if kind == ERROR else None
        if self.kind == lib.LPRT_MSG_DOWN:
            return Down(actor, int(p.ref), kind, rv)
        return Exit(actor, kind, rv)


# ---- actors ----

class ActorRef:
    """A counted reference to an actor (any thread may send / signal)."""
    __slots__ = ("_rt", "_ptr", "id", "__weakref__")

    def __init__(self, rt, ptr, id=None):
        """Takes over one reference of `ptr`."""
        self._rt, self._ptr, self.id = rt, ptr, int(lib.lprt_id(ptr)) if id is None else id

    @classmethod
    def _borrowed(cls, rt, ptr):
        lib.lprt_retain(ptr)
        return ActorRef(rt, ptr)

    def __del__(self):
        p, self._ptr = getattr(self, "_ptr", None), None
        if p is not None:
            lib.lprt_release(p)

    def __eq__(self, other):
        return isinstance(other, ActorRef) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<actor {self.id}>"

    def send(self, value):
        """Asynchronous send; False if the actor is dead (message dropped)."""
        return _py_send(self._ptr, self._rt._values.put_key(value)) == _OK

    def exit(self, kind, value=None, sender=None):
        """Exit signal. KILLED is untrappable; a trapping target gets an Exit message."""
        v = self._rt._values.put(value) if kind == ERROR else ffi.NULL
        lib.lprt_exit(sender._ptr if sender is not None else ffi.NULL, self._ptr, kind, v)

    @property
    def state(self):
        return STATES[lib.lprt_state(self._ptr)]

    @property
    def mailbox_len(self):
        return int(lib.lprt_mbox_len(self._ptr))

    def dead_reason(self):
        """(kind, value) once dead, else None."""
        out = ffi.new("void **")
        k = lib.lprt_dead_reason(self._ptr, out)
        if k < 0:
            return None
        return k, (self._rt._values.get(out[0]) if k == ERROR else None)


class Actor(ActorRef):
    """The running actor's view of itself: mailbox scan, waits, links, monitors."""
    __slots__ = ("_scan_out",)

    def __init__(self, rt, ptr, id=None):
        super().__init__(rt, ptr, id)
        self._scan_out = ffi.new("uint64_t[2]")

    def set_background(self):
        """lprt_set_background: this actor (and those it spawns) wakes no parked domain."""
        lib.lprt_set_background(self._ptr)

    # mailbox (owner only)
    def first(self):
        p = lib.lprt_mbox_first(self._ptr)
        return Message(self._rt, p) if p != ffi.NULL else None

    def next(self, m):
        p = lib.lprt_mbox_next(self._ptr, m._ptr)
        return Message(self._rt, p) if p != ffi.NULL else None

    def after(self, seq):
        p = lib.lprt_mbox_after(self._ptr, seq)
        return Message(self._rt, p) if p != ffi.NULL else None

    def messages(self, after=0):
        """Entries oldest -> newest (after `after`); taking the current one is allowed."""
        m = self.after(after) if after else self.first()
        while m is not None:
            nxt = self.next(m)
            yield m
            m = nxt

    # raw scan for engines: entries as cdata pointers, user values by key
    def raw_first(self):
        return lib.lprt_mbox_first(self._ptr)

    def raw_after(self, seq):
        return lib.lprt_mbox_after(self._ptr, seq)

    def raw_next(self, p):
        return lib.lprt_mbox_next(self._ptr, p)

    def scan(self, p=None, after=0):
        """One mailbox step in one crossing: (entry, seq, payload) of the entry after p (or the first
        after seq `after`), or (None, 0, None) at the end. Payloads are user values or Down / Exit."""
        out = self._scan_out
        n = _scan(self._ptr, p if p is not None else ffi.NULL, after, out)
        if not n:
            return None, 0, None
        k = out[1]
        return n, out[0], (self._rt._values._objs[k] if k else Message(self._rt, n).payload)

    def mark(self):
        """The seq of the newest mailbox entry so far: everything arriving later is after it."""
        return lib.lprt_mbox_mark(self._ptr)

    def select(self, accept, cursor=0):
        """Selective receive's one scan. Walks the entries after seq `cursor`, oldest first, calling
        accept(payload): None skips the entry, DROP removes it, anything else selects it.
        Answers (entry, payload, verdict) for the selected entry (still in the mailbox: take it
        with raw_take), or (None, cursor, None) with the last seq examined, where a blocked
        receive resumes."""
        scan = self.scan
        m, seq, payload = scan(None, cursor)
        while m is not None:
            verdict = accept(payload)
            if verdict is None:
                cursor = seq
                m, seq, payload = scan(m)
            elif verdict is DROP:
                nxt = scan(m)
                self.raw_take(m)
                m, seq, payload = nxt
            else:
                return m, payload, verdict
        return None, cursor, None

    def raw_payload(self, p):
        """(seq, payload) of an entry: the user value, or a Down / Exit."""
        k = _msg_key(p)
        if k:
            return _msg_seq(p), self._rt._values._objs[k]
        return _msg_seq(p), Message(self._rt, p).payload

    def raw_take(self, p):
        """Remove entry p (from raw_first/raw_next) from the mailbox."""
        if _msg_key(p):
            self._rt._values.release_key(_take_user(self._rt._rt, self._ptr, p))
        else:
            lib.lprt_mbox_take(self._ptr, p)
            lib.lprt_msg_free(self._rt._rt, p)

    def take(self, m):
        """Remove `m` from the mailbox and return its payload."""
        payload = m.payload
        lib.lprt_mbox_take(self._ptr, m._ptr)
        lib.lprt_msg_free(self._rt._rt, m._ptr)
        m._ptr = None
        return payload

    # waits (register, then return BLOCK from the step)
    def wait_receive(self, after_seq=0, timeout_ms=None, deadline=None):
        if deadline is None:
            deadline = deadline_after(timeout_ms)
        lib.lprt_wait_receive(self._ptr, after_seq, deadline)
        return BLOCK

    def wait_sleep(self, ms=None, deadline=None):
        lib.lprt_wait_sleep(self._ptr, deadline_after(ms) if deadline is None else deadline)
        return BLOCK

    def wait_fd(self, fd, events, timeout_ms=None, deadline=None):
        if deadline is None:
            deadline = deadline_after(timeout_ms)
        lib.lprt_wait_fd(self._ptr, fd, events, deadline)
        return BLOCK

    def wait_fd_or_receive(self, fd, events, after_seq=0, deadline=-1):
        lib.lprt_wait_fd_or_receive(self._ptr, fd, events, after_seq, deadline)
        return BLOCK

    def wait_resolve(self, host, service=None, family=0, socktype=0, timeout_ms=None):
        dl = deadline_after(timeout_ms)
        lib.lprt_wait_resolve(self._ptr, host.encode() if host else ffi.NULL,
                              str(service).encode() if service is not None else ffi.NULL,
                              family, socktype, dl)
        return BLOCK

    def resolved(self):
        """After WAKE_RESOLVED: (status, [(family, host, port), ...])."""
        status = ffi.new("int *")
        ai = lib.lprt_resolved(self._ptr, status)
        out = []
        cur = ffi.new("struct addrinfo **", ai)
        fam, port, buf = ffi.new("int *"), ffi.new("int *"), ffi.new("char[64]")
        while lib.lprt_py_addrinfo_next(cur, fam, buf, 64, port):
            out.append((fam[0], ffi.string(buf).decode(), port[0]))
        lib.lprt_py_freeaddrinfo(ai)
        return status[0], out

    @property
    def wake_reason(self):
        return lib.lprt_wake_reason(self._ptr)

    def reductions(self, n=1):
        """Spend n reductions; True when the turn is over (return YIELD)."""
        return bool(lib.lprt_reductions(self._ptr, n))

    # failure
    def set_exit_reason(self, kind, value=None):
        lib.lprt_set_exit_reason(self._ptr, kind, self._rt._values.put(value) if kind == ERROR else ffi.NULL)

    def link(self, other):
        """0 linked; -1 other is dead (not trapping); 1 dead and an Exit was delivered."""
        return lib.lprt_link(self._ptr, other._ptr)

    def unlink(self, other):
        lib.lprt_unlink(self._ptr, other._ptr)

    def monitor(self, other):
        return int(lib.lprt_monitor(self._ptr, other._ptr))

    def demonitor(self, other, ref):
        return bool(lib.lprt_demonitor(other._ptr, ref))

    def trap_exits(self, on=True):
        lib.lprt_trap_exits(self._ptr, 1 if on else 0)

    def traps_exits(self):
        return bool(lib.lprt_traps_exits(self._ptr))


class _State:
    __slots__ = ("fn", "ctx", "on_exit", "id", "handle")


class Runtime:
    """One runtime: create, spawn the main actor (and others), run once."""

    def __init__(self, domains=None, budget=0, on_unobserved=None, on_deadlock=None, seed=None, faults=None,
                 fault_rate=1, observe=False):
        """on_deadlock(): called (on a domain thread, every actor blocked) when no actor can ever
        run again; run() then answers EDEADLOCK. Only for programs where nothing but the
        actors themselves sends messages or signals."""
        self._values = _Values()
        self._states = {}
        self.on_unobserved = on_unobserved
        self.on_deadlock = on_deadlock
        self.step_errors = []     # exceptions that escaped step functions, in order
        self._main = None
        self._handle = ffi.new_handle(self)
        cfg = ffi.new("lprt_config *", {"domains": domains or 0, "budget": budget, "fiber_stack": 0,
                                        "deterministic": seed is not None, "seed": seed or 0,
                                        "faults": faults is not None, "max_faults": faults or 0,
                                        "fault_rate": fault_rate, "observe": bool(observe)})
        hooks = ffi.new("lprt_hooks *", {
            "retain": lib.lprt_py_retain, "release": lib.lprt_py_release,
            "on_exit": lib.lprt_py_on_exit, "unobserved": lib.lprt_py_unobserved,
            "ud": self._handle,
            "deadlock": lib.lprt_py_deadlock if on_deadlock is not None else ffi.NULL})
        self._rt = lib.lprt_new(cfg, hooks)
        if self._rt == ffi.NULL:
            raise MemoryError("lprt_new")
        self.domains = lib.lprt_domain_count(self._rt)

    def __del__(self):
        rt, self._rt = getattr(self, "_rt", None), None
        if rt is not None:
            lib.lprt_free(rt)

    def spawn(self, fn, *, on_exit=None, link=None, monitor=None, trap_exits=False, start=True):
        """Spawn a step actor running fn(actor) per turn. `link` / `monitor`: an
        Actor registered before the new actor can run. Returns (ref, monitor_ref)
        when `monitor` is given, else the ref."""
        st = _State()
        st.fn, st.on_exit = fn, on_exit
        st.handle = ffi.new_handle(st)
        idp = ffi.new("uint64_t *")
        ptr = lib.lprt_py_create(self._rt, _step_fn, st.handle, 0, idp)
        if ptr == ffi.NULL:
            raise MemoryError("lprt_create_step")
        st.id = int(idp[0])
        st.ctx = Actor(self, ptr, st.id)
        self._states[st.id] = st
        ref = ActorRef(self, ptr, st.id)
        if trap_exits:
            st.ctx.trap_exits(True)
        if link is not None:
            lib.lprt_link(link._ptr, ptr)
        mref = monitor.monitor(ref) if monitor is not None else None
        if start:
            lib.lprt_start(ptr)   # only now can the actor run: its state is complete
        return (ref, mref) if monitor is not None else ref

    def spawn_gen(self, genfn, *args, **kw):
        """Spawn a generator-driven actor: genfn(actor, *args) yields Receive / Sleep requests."""
        return self.spawn(_GenDriver(genfn, args), **kw)

    def start(self, ref):
        lib.lprt_start(ref._ptr)

    def run(self, main):
        """Run until `main` ends; returns its reason kind (or EDEADLOCK). The GIL is released
        meanwhile. An AssertionError escaping any step stops the run and is raised here."""
        self._main = main
        r = lib.lprt_run(self._rt, main._ptr)
        self._main = None
        for e in self.step_errors:
            if isinstance(e, AssertionError):
                raise e
        return r

    def _step_failed(self, e):
        """An exception ended an actor (reason ERROR(e)). A failed assertion is a test's failure,
        not an actor's: stop the whole run at once so run() can raise it."""
        self.step_errors.append(e)
        if isinstance(e, AssertionError) and self._main is not None:
            self._main.exit(KILLED)

    @property
    def deterministic(self):
        return bool(lib.lprt_deterministic(self._rt))

    def det_stats(self):
        """Deterministic mode: (actor turns run, faults injected)."""
        return int(lib.lprt_det_steps(self._rt)), int(lib.lprt_det_faults(self._rt))

    def det_clock_ms(self):
        """Deterministic mode: the virtual clock, in milliseconds."""
        return int(lib.lprt_det_clock(self._rt)) // 1_000_000

    def snapshot_rows(self):
        """The live actors as tuples in SNAPSHOT_FIELDS order (state as LPRT_ST_*, kind as 0/1,
        traps as 0/1): unpacked in C from one buffer, so 100,000 actors take milliseconds."""
        n = lib.lprt_snapshot(self._rt, ffi.NULL, 0)
        buf = ffi.new("lprt_actor_info[]", n + 64)
        n = min(lib.lprt_snapshot(self._rt, buf, n + 64), n + 64)
        return list(_SNAPSHOT_ROW.iter_unpack(ffi.buffer(buf, n * _SNAPSHOT_ROW.size)))

    def snapshot(self):
        return [dict(zip(SNAPSHOT_FIELDS, r), state=STATES[r[1]], kind="fiber" if r[2] else "step",
                     traps=bool(r[6])) for r in self.snapshot_rows()]

    def peers(self, actor_id, cap=64):
        """(ids linked to the actor, ids of the actors monitoring it), each at most `cap`, with
        their full counts; None when it is not live."""
        links, watchers = ffi.new("uint64_t[]", cap), ffi.new("uint64_t[]", cap)
        nl, nw = ffi.new("size_t *"), ffi.new("size_t *")
        if not lib.lprt_actor_peers(self._rt, actor_id, links, nl, watchers, nw, cap):
            return None
        return ([int(links[i]) for i in range(min(nl[0], cap))], int(nl[0]),
                [int(watchers[i]) for i in range(min(nw[0], cap))], int(nw[0]))

    def peek(self, actor_id, cap=10):
        """With observe=True: the oldest messages in a live actor's mailbox, up to cap, as
        (kind, value), value None for DOWN/EXIT and TAKEN for a message taken meanwhile; None
        when the actor is not live."""
        kinds, values = ffi.new("int[]", cap), ffi.new("void *[]", cap)
        n = lib.lprt_mbox_peek(self._rt, actor_id, kinds, values, cap)
        if n < 0:
            return None
        objs = self._values._objs
        return [(int(kinds[i]), objs.get(int(ffi.cast("uintptr_t", values[i])), TAKEN)
                 if kinds[i] == lib.LPRT_MSG_USER else None)
                for i in range(n)]

    def domain_loads(self):
        """Per domain: turns run, nanoseconds parked (idle) so far, actors queued."""
        buf = ffi.new("lprt_domain_info[]", 256)
        n = min(lib.lprt_domain_snapshot(self._rt, buf, 256), 256)
        return [{"turns": int(buf[i].turns), "parked_ns": int(buf[i].parked_ns), "queued": int(buf[i].queued)}
                for i in range(n)]

    def stats(self):
        s = ffi.new("lprt_stats *")
        lib.lprt_get_stats(self._rt, s)
        return {k: int(getattr(s, k)) for k in ("spawned", "exited", "steals", "parks", "messages", "seek_steps")}

    @property
    def live_values(self):
        return len(self._values)



TAKEN = object()   # peek: the message was taken (and its value freed) while it was looked at
SNAPSHOT_FIELDS = ("id", "state", "kind", "mailbox", "turns", "domain", "traps", "links", "monitors")
_SNAPSHOT_ROW = struct.Struct("=QiiQQiiii")
assert _SNAPSHOT_ROW.size == ffi.sizeof("lprt_actor_info") and all(
    ffi.offsetof("lprt_actor_info", f) == o for f, o in
    zip(SNAPSHOT_FIELDS, (0, 8, 12, 16, 24, 32, 36, 40, 44))), "lprt_actor_info changed: update _SNAPSHOT_ROW"


# ---- generator actors ----

class _Timeout:
    def __repr__(self):
        return "TIMEOUT"


TIMEOUT = Timeout = _Timeout()


class Receive:
    """Selective receive: the first payload with match(payload) true, else TIMEOUT after timeout_ms."""
    __slots__ = ("match", "timeout_ms", "deadline", "cursor")

    def __init__(self, match=None, timeout_ms=None):
        self.match, self.timeout_ms, self.deadline, self.cursor = match, timeout_ms, None, 0


class Sleep:
    __slots__ = ("ms", "deadline")

    def __init__(self, ms):
        self.ms, self.deadline = ms, None


class _GenDriver:
    def __init__(self, genfn, args):
        self.genfn, self.args, self.gen, self.req, self.blocked = genfn, args, None, None, False

    def _advance(self, value):
        try:
            self.req = self.gen.send(value)
        except StopIteration:
            self.req = None
            return False
        return True

    def __call__(self, actor):
        if self.gen is None:
            self.gen = self.genfn(actor, *self.args)
            if not self._advance(None):
                return DONE
        woke_timeout = self.blocked and actor.wake_reason == WAKE_TIMEOUT
        self.blocked = False
        while True:
            if actor.reductions(1):
                return YIELD
            req = self.req
            if isinstance(req, Receive):
                if req.deadline is None:
                    req.deadline = deadline_after(req.timeout_ms)
                match = req.match
                found, payload, _ = actor.select(
                    lambda p: True if match is None or match(p) else None, req.cursor)
                if found is not None:
                    actor.raw_take(found)
                    ok = self._advance(payload)
                elif woke_timeout or (req.deadline >= 0 and lib.lprt_now() >= req.deadline):
                    ok = self._advance(TIMEOUT)
                else:
                    req.cursor = payload
                    self.blocked = True
                    return actor.wait_receive(req.cursor, deadline=req.deadline)
            elif isinstance(req, Sleep):
                if woke_timeout:
                    ok = self._advance(None)
                else:
                    self.blocked = True
                    return actor.wait_sleep(req.ms)
            else:
                raise TypeError(f"actor yielded {req!r}; expected Receive or Sleep")
            woke_timeout = False
            if not ok:
                return DONE
