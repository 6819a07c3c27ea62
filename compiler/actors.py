"""Actors in native code: the `Actor` / `Future` / `Promise` primitives, receive tables lowered to
one scan of the runtime's mailbox with the handler bodies inlined as branches (so a handler's
tail call, `Counter run: me count: n + 1`, is a real tail call), and the C entry that starts a
spawned block (runtime/native/actors.c; docs/native.md "Actors")."""
from __future__ import annotations

from llvmlite import ir

from lp.compiler import prims
from lp.compiler.codegen import VAL, V, c64
from lp.compiler.dynamic import trusted_read
from lp.compiler.layout import CLASS_VALUE, I64, PTR
from lp.compiler.prims import prim
from lp.ir import nodes as I

C_FUNCS = {
    "lpn_actor_self": ("V", []),
    "lpn_actor_spawn": ("V", ["v", "i64", "i64"]),
    "lpn_actor_send": ("V", ["v", "v"]),
    "lpn_actor_send_b": ("V", ["v", "v"]),
    "lpn_actor_ask": ("V", ["v", "v"]),
    "lpn_receive": ("i64", ["v", "v", "p", "i64", "i64", "p", "i64", "p"]),
    "lpn_actor_sleep": ("V", ["v"]),
    "lpn_future_await": ("V", ["v", "v", "i64", "i64"]),
    "lpn_future_is_resolved": ("V", ["v"]),
    "lpn_promise_new": ("V", []),
    "lpn_promise_future": ("V", ["v"]),
    "lpn_promise_resolve": ("V", ["v", "v"]),
    "lpn_actor_link": ("V", ["v", "v"]),
    "lpn_actor_unlink": ("V", ["v", "v"]),
    "lpn_actor_monitor": ("V", ["v", "v"]),
    "lpn_actor_demonitor": ("V", ["v", "v"]),
    "lpn_actor_exit_self": ("V", ["v", "i64"]),
    "lpn_actor_exit": ("V", ["v", "v", "i64"]),
    "lpn_actor_trap_exits": ("V", ["v"]),
    "lpn_actor_id": ("V", ["v"]),
    "lpn_actor_is_alive": ("V", ["v"]),
    "lpn_clock": ("V", ["i64"]),
    "lpn_preempt": ("i64", []),
    "lpn_reason_op": ("V", ["v", "i64"]),
}
INT, BOOL, NIL = I.Ty("Integer"), I.Ty("Boolean"), I.Ty("UndefinedObject")
ANY = "for any message"


def _site(site) -> ir.Constant:
    return c64(-1 if site is None else site)


def _args(vs) -> list:
    return [w for v in vs for w in (v.cls, v.bits)]


def _call(name, nargs, ty=None, may_fail=True, site_arg=False, lead_class=False):
    """A primitive that is one call of an lpn_actor function on the receiver and arguments
    (lead_class: the receiver is the class `Actor`, which is not passed)."""
    def emit(g, sel, n, site, tail, rty):
        vs = g.pop_n(nargs + 1)
        if lead_class:
            vs = vs[1:]
        extra = [_site(site)] if site_arg else []
        return g.call_c(name, _args(vs) + extra, ty or (rty if rty.known else I.UNKNOWN), site, may_fail=may_fail)
    return emit


for _key, _emit in {
    (True, "self"): _call("lpn_actor_self", 0, I.Ty("Actor"), False, lead_class=True),
    (True, "spawn:"): None, (True, "spawnLink:"): None,
    (True, "trapExits:"): _call("lpn_actor_trap_exits", 1, NIL, False, lead_class=True),
    (True, "exit:"): _call("lpn_actor_exit_self", 1, None, True, True, lead_class=True),
    (True, "sleep:"): _call("lpn_actor_sleep", 1, NIL, True, lead_class=True),
    (True, "millisecondClock"): None, (True, "microsecondClock"): None, (True, "unixMillis"): None,
    (False, "!"): _call("lpn_actor_send", 1),
    (False, "ask:"): _call("lpn_actor_ask", 1),
    (False, "linkTo:"): _call("lpn_actor_link", 1, NIL),
    (False, "unlinkFrom:"): _call("lpn_actor_unlink", 1, NIL, False),
    (False, "monitor:"): _call("lpn_actor_monitor", 1, NIL),
    (False, "demonitor:"): _call("lpn_actor_demonitor", 1, NIL, False),
    (False, "exit:"): _call("lpn_actor_exit", 1, None, True, True),
    (False, "id"): _call("lpn_actor_id", 0, INT, False),
    (False, "isAlive"): _call("lpn_actor_is_alive", 0, BOOL, False),
}.items():
    if _emit is not None:
        prims.PRIMS[("Actor", _key[0], _key[1])] = _emit

prims.BORROWING[("Actor", False, "!")] = _call("lpn_actor_send_b", 1)
prims.PRIMS[("Future", False, "isResolved")] = _call("lpn_future_is_resolved", 0, BOOL, False)
prims.PRIMS[("Promise", True, "new")] = _call("lpn_promise_new", 0, None, False, lead_class=True)
prims.PRIMS[("Promise", False, "future")] = _call("lpn_promise_future", 0, None, False)
prims.PRIMS[("Promise", False, "resolve:")] = _call("lpn_promise_resolve", 1)


_REASON = {"isNormal": "n", "isKilled": "k", "isError": "e", "error": "E"}


@prim("Reason", *_REASON)
@prim("Symbol", *_REASON)
@prim("Error", *_REASON)
def _reason(g, sel, n, site, tail, ty):
    v = g.pop()
    return g.call_c("lpn_reason_op", [v.cls, v.bits, c64(ord(_REASON[sel]))], BOOL if sel != "error" else
                    (ty if ty.known else I.UNKNOWN), site, may_fail=False)


@prim("Actor", "spawn:", "spawnLink:", side=True)
def _spawn(g, sel, n, site, tail, ty):
    _, blk = g.pop_n(2)
    link, where = c64(int(sel == "spawnLink:")), c64(-1 if site is None else site)   # where: the observer's
    return g.call_c("lpn_actor_spawn", [blk.cls, blk.bits, link, where], I.Ty("Actor"), site)


_CLOCKS = {"millisecondClock": 0, "microsecondClock": 1, "unixMillis": 2}


@prim("Actor", *_CLOCKS, side=True)
def _clock(g, sel, n, site, tail, ty):
    g.pop()
    return g.call_c("lpn_clock", [c64(_CLOCKS[sel])], INT, site, may_fail=False)


@prim("Future", "await", "await:")
def _await(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)
    ms = vs[1] if n else g.nil()
    return g.call_c("lpn_future_await", _args([vs[0], ms]) + [c64(n), _site(site)],
                    ty if ty.known else I.UNKNOWN, site)


@prim("Actor", "receive")
def _receive_any(g, sel, n, site, tail, ty):
    me = g.pop()
    out = _slot(g, VAL)
    _scan(g, me, True, [], g.nil(), False, ANY, site, out)
    r = g.b.load(out, typ=VAL)
    return g.push(V(g.b.extract_value(r, 0), g.b.extract_value(r, 1), ty if ty.known else I.UNKNOWN))


# ---- receive tables ---------------------------------------------------------------------

def _slot(g, ty):
    """An alloca in the function's entry block (so a receive in a loop does not grow the stack)."""
    b = ir.IRBuilder(g.fn.entry_basic_block)
    b.position_at_start(g.fn.entry_basic_block)
    return b.inttoptr(b.ptrtoint(b.alloca(ty), I64), PTR)


def _scan(g, me: V, own_me: bool, keys: list[V], tmo: V, has_tmo: bool, what: str, site, out):
    """Call lpn_receive (it consumes tmo and borrows me and the keys; an owned me is dropped after).
    Unwinds on -2; answers the index."""
    karr = ir.Constant(PTR, None)
    if keys:
        karr = _slot(g, ir.ArrayType(VAL, len(keys)))
        for k, v in enumerate(keys):
            g.store_value(karr, 16 * k, v)
    idx = g.b.call(g.mod.c("lpn_receive"), [me.cls, me.bits, tmo.cls, tmo.bits, karr, c64(len(keys)),
                                             c64(int(has_tmo)), g.mod.layout.cstring(what), _site(site), out])
    for v in reversed(keys):
        g.drop(v)
    if own_me:
        g.drop(me)
    bad = g.fn.append_basic_block("recv_raised")
    ok = g.fn.append_basic_block("recv_ok")
    g.b.cbranch(g.b.icmp_signed("==", idx, c64(-2)), bad, ok)
    g.b.position_at_end(bad)
    g.unwind_here(site)
    g.b.position_at_end(ok)
    return idx


def _key_text(key) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, I.Const):
        v = key.value
        if key.kind == "symbol":
            return "#" + v if v.replace("_", "a").replace(":", "").isalnum() else "#'" + v + "'"
        if key.kind == "string":
            return "'" + v.replace("'", "''") + "'"
        if key.kind == "char":
            return "$" + v
        if key.kind == "bool":
            return "true" if v else "false"
        if key.kind == "nil":
            return "nil"
        return str(v)
    return "?"


def _what(e: I.Receive) -> str:
    if not e.entries:
        return "in receive " + ANY     # `me receive` (lp/interp/deadlock.py names the selector)
    text = " or ".join(_key_text(k) for k, _, _ in e.entries)
    return "in receive: for " + (text if len(text) <= 200 else text[:200] + "...")


def receive(g, e: I.Receive, tail: bool):
    """A literal receive table: one scan, then a branch per entry (and the timeout) with the
    handler body inlined."""
    if g.home is not None:
        tail = False
    me = g.borrowed(e.actor, [k for k, _, _ in e.entries] + [e.timeout])   # no dup, no drop
    if me is None and g.value(e.actor, False) is None:
        return g.dead()
    keys = []
    for key, _, _ in e.entries:
        if isinstance(key, str):
            keys.append(g.push(g.make(CLASS_VALUE, g.mod.layout.class_id(key), I.Ty(f"{key} class"))))
        elif g.value(key, False) is None:
            g.dead()
            keys.append(g.owned[-1])
        else:
            keys.append(g.owned[-1])
    if e.timeout is not None:
        if g.value(e.timeout, False) is None:
            g.dead()
        tmo = g.pop()
    else:
        tmo = g.nil()
    keys = g.pop_n(len(keys))
    own_me = me is None
    if own_me:
        me = g.pop()
    out = _slot(g, VAL)
    site = g.site(e.span)
    idx = _scan(g, me, own_me, keys if e.entries else [], tmo, e.timeout is not None, _what(e), site, out)

    def arm(var, body):
        def bound():
            r = g.b.load(out, typ=VAL)
            v = V(g.b.extract_value(r, 0), g.b.extract_value(r, 1), var.type if var is not None else I.UNKNOWN)
            if var is None:
                g.drop(v)
            else:
                g.env[var.id] = g.push(v)
            return g.body(body, tail)
        return lambda: g.scoped(bound)

    if not e.entries:
        r = g.b.load(out, typ=VAL)
        if g.mod.makes_dynamic:   # a sender may have sent a Dynamic value (compiler/dynamic.py)
            return trusted_read(g, g.b.extract_value(r, 0), g.b.extract_value(r, 1), e.type, g.site(e.span))
        return g.push(V(g.b.extract_value(r, 0), g.b.extract_value(r, 1), e.type if e.type.known else I.UNKNOWN))
    arms = [arm(var, body) for _, var, body in e.entries]
    if e.on_timeout is not None:
        arms.append(lambda: g.scoped(g.body, e.on_timeout, tail))
    here = g.b.block
    n_before = len(g.fn.blocks)
    v = g.branch_merge(arms, e.type)
    blocks = g.fn.blocks[n_before + 1:n_before + 1 + len(arms)]
    with g.b.goto_block(here):
        sw = g.b.switch(idx, blocks[-1])
        for k, bb in enumerate(blocks[:len(e.entries)]):
            sw.add_case(c64(k), bb)
        if e.on_timeout is not None:
            sw.add_case(c64(-1), blocks[-1])
    return v


# ---- entry points and preemption --------------------------------------------------------

BUDGET = 2000   # reductions in a turn (runtime/native/actors.c, the interpreter's lp/interp/vm.py)


def thread_local(gv) -> None:
    """The per-domain-thread globals (lpn_depth, lpn_reductions): actors.c saves and restores
    them around every fiber switch."""
    gv.storage_class = "thread_local(localexec)"


def spend_reduction(g, unwind) -> None:
    """One reduction (a frame's entry, a loop back-edge): past the turn's budget, yield; an actor
    killed meanwhile comes back only to unwind (`unwind()` emits that path)."""
    spent = g.b.add(g.b.load(g.mod.reductions), c64(1))
    g.b.store(spent, g.mod.reductions)
    with g.b.if_then(g.b.icmp_unsigned(">=", spent, c64(BUDGET)), likely=False):
        k = g.b.call(g.mod.c("lpn_preempt"), [])
        with g.b.if_then(g.b.icmp_signed("!=", k, c64(0)), likely=False):
            unwind()


def emit_call_block(mod) -> None:
    """lpn_call_block(block, arg, nargs): the C side starts a spawned block through it."""
    f = ir.Function(mod.module, ir.FunctionType(VAL, [I64] * 5), name="lpn_call_block")
    bc, bb, ac, ab, nargs = f.args
    b = ir.IRBuilder(f.append_basic_block("entry"))
    code = b.load(b.gep(b.inttoptr(bb, PTR), [c64(8)], source_etype=ir.IntType(8)), typ=PTR)
    zero = f.append_basic_block("zero")
    one = f.append_basic_block("one")
    b.cbranch(b.icmp_signed("==", nargs, c64(0)), zero, one)
    for bb_, n in ((zero, 0), (one, 1)):
        b.position_at_end(bb_)
        args = [bc, bb] + ([ac, ab] if n else [])
        b.ret(b.call(mod.indirect(code, n), args, cconv="tailcc"))

