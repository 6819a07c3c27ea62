"""Pure Integer methods (docs/native.md "Pure Integer methods"): a fast copy that may give up.

A method is pure when its receiver (or, on the class side, its class, used only to send to)
and its arguments are proven Integers, it answers an Integer, and its body does nothing but
Integer `+ - *`, comparisons, inline branches, `and:`/`or:`, bindings and sends to pure methods
that no subclass overrides. Such a method has three functions:

- `F`, which every caller calls: it runs the fast copy `lp.fast.F` on the unboxed arguments and
  answers its result, or, when the fast copy gives up, tail-calls `F.exact`;
- `F.exact`, the method compiled as any other (frames, errors, call stack), whose sends to pure
  methods call their `.exact` functions, so a program that gives up once never tries again below;
- `lp.fast.F(d, r, receiver, args...)`, answering {value, r'}: d is its frame's depth, r the
  reductions spent in this turn before it, r' those spent after it (>= 0), or GIVE_UP (an
  overflow, a frame past --stack-limit, the stack pointer below the fiber's floor) or KILLED
  (killed while yielding: unwind). Both counts stay in registers; F loads `lpn_reductions`
  before and stores it after. Frames and reductions are counted as the exact function counts
  them.
  A self-send in tail position is a jump; `A + (self-send)` in tail position adds A to an
  accumulator and jumps, one frame deeper (the self-send was not a tail call): the loop gcc makes
  of `fib`. Added in that order, the sums differ from the exact order's, so the accumulator is
  used only while every term is >= 0, where both orders overflow exactly when the total does:
  a negative term gives up (the last term, the innermost answer, only after a non-zero sum).
- the nest `lp.fast.F.nest1` .. `nestL`, inlined into lp.fast.F: level k's self-sends call
  level k + 1, level L's call lp.fast.F, so one call of lp.fast.F runs up to L levels of the
  recursion as straight code (gcc's recursive inlining; L up to 6, fewer when the method has
  many self-sends: levels()). The nest checks nothing per frame: lp.fast.F enters it only when
  its deepest frame is within --stack-limit (else it calls itself), and it counts reductions
  but checks the budget only where a call returns, with the check for GIVE_UP and KILLED (one
  unsigned compare). Between two checks run only the frames of one descent through the nest,
  so a turn may end up to L reductions after the exact function's would. Overflows give up as
  in lp.fast.F.

Giving up re-runs the whole call exactly: nothing the fast copy did can be seen (no output, no
allocation), so the exact run prints what `lp run` prints, at the cost of the time spent.
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.codegen import VAL, c64, kind
from lp.compiler.layout import I64, UNWIND
from lp.ir import nodes as I

INT_CLS = 2
ARITH = {"+": "sadd", "-": "ssub", "*": "smul"}
COMPARE = {"<": "<", ">": ">", "<=": "<=", ">=": ">=", "=": "==", "~=": "!="}
GIVE_UP, KILLED = -1, -2
I1 = ir.IntType(1)
FAST = ir.LiteralStructType([I64, I64])
MAX_LEVELS, NEST_CALLS = 6, 64


def _int(e) -> bool:
    return kind(e.type) == "Integer"


class _Scan:
    """Whether one method's body stays within the pure subset; `calls` collects the methods it
    sends to, which must be pure too."""

    def __init__(self, mod, md: I.MethodDef):
        self.mod, self.md, self.calls, self.self_sends = mod, md, set(), 0

    def method(self) -> bool:
        md = self.md
        if md.returns or kind(md.type) != "Integer" or not all(kind(p.type) == "Integer" for p in md.params):
            return False
        if not md.class_side and (md.class_name != "Integer" or kind(md.self_var.type) != "Integer"):
            return False
        return self.body(md.body, True)

    def body(self, b: I.Body, tail: bool) -> bool:
        """tail: the body's value is the method's answer; only there may a `^` stand (last)."""
        for k, s in enumerate(b.stmts):
            last = tail and k == len(b.stmts) - 1
            if isinstance(s, I.Let):
                if kind(s.var.type) not in ("Integer", "Boolean") or not self.expr(s.value):
                    return False
            elif isinstance(s, I.Return):
                if s.nonlocal_ or not last or not self.expr(s.value, True):
                    return False
            elif not self.expr(s, last):
                return False
        return bool(b.stmts)

    def expr(self, e, tail: bool = False) -> bool:
        if isinstance(e, I.Const):
            return e.kind in ("int", "bool")
        if isinstance(e, I.Ref):
            if e.var is self.md.self_var:
                return not self.md.class_side
            return kind(e.var.type) in ("Integer", "Boolean")
        if isinstance(e, I.If):
            return (not e.one_branch and e.then is not None and e.else_ is not None
                    and self.expr(e.cond) and self.body(e.then, tail) and self.body(e.else_, tail))
        if isinstance(e, I.AndOr):
            return self.expr(e.left) and self.body(e.right, False)
        if isinstance(e, I.Seq):
            return self.body(e.body, tail)
        if isinstance(e, I.Send):
            return self.send(e)
        return False

    def send(self, e: I.Send) -> bool:
        if e.super_from is not None:
            return False
        if primitive(self.mod, e) is not None:
            return all(self.expr(x) for x in (e.receiver, *e.args))
        md = callee(self.mod, e, self.md)
        if md is None or not all(_int(a) and self.expr(a) for a in e.args):
            return False
        self.calls.add(md)
        self.self_sends += md is self.md
        return md.class_side or self.expr(e.receiver)


def primitive(mod, e: I.Send) -> str | None:
    """The Integer operation a send is (`+`, `<` ...), when both sides are proven Integers and
    the send reaches the library's primitive."""
    if len(e.args) != 1 or not _int(e.receiver) or not _int(e.args[0]):
        return None
    if e.selector not in ARITH and e.selector not in COMPARE:
        return None
    t = mod.static_target(I.Ty("Integer"), e.selector)
    if t is None or t[0][0] != "prim":
        return None
    want = "Integer" if e.selector in ARITH else "Boolean"
    return e.selector if kind(e.type) == want else None


def callee(mod, e: I.Send, within: I.MethodDef) -> I.MethodDef | None:
    """The method a send reaches for every receiver, when it could be pure: an Integer receiver's
    instance method, or a class-side method sent to its class or to the class side's self."""
    r = e.receiver
    if isinstance(r, I.ClassRef) or (isinstance(r, I.Ref) and r.var is within.self_var and within.class_side):
        ty = I.Ty(f"{r.name} class") if isinstance(r, I.ClassRef) else r.type
    elif _int(r):
        ty = I.Ty("Integer")
    else:
        return None
    t = mod.static_target(ty, e.selector)
    if t is None or t[0][0] != "method":
        return None
    return t[0][1]


def pure_methods(mod) -> dict:
    """The program's pure methods (by identity): the candidates whose callees are all pure, each
    with the levels of its nest (levels())."""
    scans = {}
    for md in mod.prog.methods.values():
        s = _Scan(mod, md)
        if s.method():
            scans[md] = s
    changed = True
    while changed:
        changed = False
        for md in list(scans):
            if not scans[md].calls <= scans.keys():
                del scans[md]
                changed = True
    return {md: levels(scan.self_sends) for md, scan in scans.items()}


def levels(self_sends: int) -> int:
    """How many levels a nest unrolls: the most (up to MAX_LEVELS) that keep the calls of the
    fast copy in one nest, self_sends ** levels, within NEST_CALLS."""
    n = 0
    while self_sends and n < MAX_LEVELS and self_sends ** (n + 1) <= NEST_CALLS:
        n += 1
    return n


# ---- F: the fast copy, else the exact function ---------------------------------------------

def emit_entry(mod, md: I.MethodDef, exact: ir.Function, f: ir.Function) -> None:
    """F: the fast copy on the unboxed arguments; the exact function when it gives up, or when
    an argument is not an Integer at run time (a Dynamic value, which that function reports)."""
    b = ir.IRBuilder(f.append_basic_block("entry"))
    words = list(f.args)
    first = 2 if md.class_side else 0
    ok = ir.Constant(I1, 1)
    for k in range(first, len(words), 2):
        ok = b.and_(ok, b.icmp_unsigned("==", words[k], c64(INT_CLS)))
    exact_bb, fast_bb = f.append_basic_block("exact"), f.append_basic_block("fast")
    b.cbranch(ok, fast_bb, exact_bb)
    b.position_at_end(fast_bb)
    bits = [words[k + 1] for k in range(first, len(words), 2)]
    r = b.call(fast_fn(mod, md), [b.add(b.load(mod.depth), c64(1)), b.load(mod.reductions), *bits],
               cconv="fastcc")
    spent = b.extract_value(r, 1)
    done, killed_bb = f.append_basic_block("done"), f.append_basic_block("killed")
    sw = b.switch(spent, done)
    sw.add_case(c64(GIVE_UP), exact_bb)
    sw.add_case(c64(KILLED), killed_bb)
    b.position_at_end(done)
    b.store(spent, mod.reductions)
    b.ret(b.insert_value(ir.Constant(VAL, [c64(INT_CLS), c64(0)]), b.extract_value(r, 0), 1))
    b.position_at_end(killed_bb)
    b.ret(ir.Constant(VAL, [c64(UNWIND), c64(0)]))
    b.position_at_end(exact_bb)
    b.ret(b.call(exact, words, tail="tail", cconv="tailcc"))


def fast_fn(mod, md: I.MethodDef, level: int = 0) -> ir.Function:
    """The fast copy of md (level 0), or level k of its nest: a copy always inlined, which its
    self-sends call at level k + 1 (the last level calls level 0)."""
    f = mod.fast_fns.get((md, level))
    if f is None:
        n = len(md.params) + (0 if md.class_side else 1)
        f = ir.Function(mod.module, ir.FunctionType(FAST, [I64] * (2 + n)),
                        name=f"lp.fast.{md.name}" + (f".nest{level}" if level else ""))
        f.linkage = "internal"
        f.calling_convention = "fastcc"
        f.attributes.add("nounwind")
        if level:
            f.attributes.add("alwaysinline")
        mod.fast_fns[(md, level)] = f
        mod.todo.append(("fast", (md, level), f))
    return f


class FastGen:
    """The body of lp.fast.F (a loop whose header is a frame's entry), or of a level of its nest
    (straight code, which neither checks nor loops)."""

    def __init__(self, mod, md: I.MethodDef, level: int, f: ir.Function):
        self.mod, self.md, self.level, self.f = mod, md, level, f
        self.levels = mod.pure[md]
        b = self.b = ir.IRBuilder(f.append_basic_block("entry"))
        self.give_up_bb = f.append_basic_block("give_up")
        b.position_at_end(self.give_up_bb)
        b.ret(ir.Constant(FAST, [c64(0), c64(GIVE_UP)]))
        b.position_at_end(f.blocks[0])
        self.params = ([] if md.class_side else [md.self_var]) + list(md.params)
        if level:
            self.d, self.r, self.acc, vals = f.args[0], b.add(f.args[1], c64(1)), c64(0), f.args[2:]
        else:
            vals = self.loop_header()
        self.env = {p.id: v for p, v in zip(self.params, vals)}

    def loop_header(self) -> list:
        """Level 0's entry and the header its jumps go to: the frame's checks and count."""
        from lp.compiler.actors import BUDGET
        b, f, mod = self.b, self.f, self.mod
        # the stack grows only at a call (a jump to the header reuses the frame): checked once
        self.give_up_if(b.icmp_unsigned("<", mod.stack_pointer(b), b.load(mod.stack_floor)))
        self.limit = b.load(mod.depth_limit)
        header = self.header = f.append_basic_block("frame")
        entry = b.block
        b.branch(header)
        b.position_at_end(header)
        self.d = b.phi(I64)
        self.r_in = b.phi(I64)
        vals = self.vals = [b.phi(I64) for _ in self.params]
        self.acc = b.phi(I64)
        self.d.add_incoming(f.args[0], entry)
        self.r_in.add_incoming(f.args[1], entry)
        for p, a in zip(vals, f.args[2:]):
            p.add_incoming(a, entry)
        self.acc.add_incoming(c64(0), entry)
        self.give_up_if(b.icmp_unsigned(">", self.d, self.limit))
        spent = b.add(self.r_in, c64(1))
        self.spend(spent, b.icmp_signed(">=", spent, c64(BUDGET)))
        return vals

    def spend(self, spent, over, answer_if_negative=None) -> None:
        """self.r becomes spent, or 0 when `over` holds: the turn's budget is spent and the copy
        yields. With answer_if_negative (a callee's {value, r'}), a negative spent, the callee's
        GIVE_UP or KILLED, is answered instead."""
        b, f = self.b, self.f
        came = b.block
        over_bb, go_on = f.append_basic_block("over"), f.append_basic_block("counted")
        b.cbranch(over, over_bb, go_on).set_weights([1, 1 << 20])
        b.position_at_end(over_bb)
        if answer_if_negative is not None:
            with b.if_then(b.icmp_signed("<", spent, c64(0))):
                b.ret(answer_if_negative)
        yielded = self.preempt()
        b.branch(go_on)
        b.position_at_end(go_on)
        self.r = b.phi(I64)
        self.r.add_incoming(spent, came)
        self.r.add_incoming(c64(0), yielded)

    def give_up_if(self, cond) -> None:
        b = self.b
        cont = self.f.append_basic_block("go_on")
        b.cbranch(cond, self.give_up_bb, cont).set_weights([1, 1 << 20])
        b.position_at_end(cont)

    def run(self) -> None:
        self.tail_body(self.md.body)

    # ---- tail position: answer (acc + value), or jump to the header
    def tail_body(self, body: I.Body) -> None:
        for s in body.stmts[:-1]:
            self.stmt(s)
        last = body.stmts[-1]
        self.tail(last.value if isinstance(last, I.Return) else last)

    def tail(self, e) -> None:
        b = self.b
        if isinstance(e, I.Let):
            self.stmt(e)
            return self.answer(self.env[e.var.id])
        if isinstance(e, I.If):
            cond = self.value(e.cond)
            then_bb, else_bb = self.f.append_basic_block("then"), self.f.append_basic_block("else")
            b.cbranch(cond, then_bb, else_bb)
            r0 = self.r
            for bb, body in ((then_bb, e.then), (else_bb, e.else_)):
                b.position_at_end(bb)
                saved, self.r = dict(self.env), r0
                self.tail_body(body)
                self.env = saved
            return None
        if isinstance(e, I.Seq):
            saved = dict(self.env)
            self.tail_body(e.body)
            self.env = saved
            return None
        if isinstance(e, I.Send) and self.is_self_send(e):
            if self.level:   # the nest's frame is reused by the next level's
                return self.answer(self.call_self(self.args_of(e, self.md), self.d))
            return self.jump(self.args_of(e, self.md), self.d, self.acc)
        if isinstance(e, I.Send) and e.selector == "+" and primitive(self.mod, e) and not self.level:
            left, right = e.receiver, e.args[0]
            for term, call in ((left, right), (right, left)):
                if isinstance(call, I.Send) and self.is_self_send(call):
                    t = self.value(term)
                    args = self.args_of(call, self.md)
                    return self.jump(args, b.add(self.d, c64(1)), self.accumulate(t))
        return self.answer(self.value(e))

    def accumulate(self, t):
        """acc + t, for a term t >= 0 (else give up)."""
        b = self.b
        self.give_up_if(b.icmp_signed("<", t, c64(0)))
        return self.checked("sadd", self.acc, t)

    def answer(self, v) -> None:
        b = self.b
        if self.level:
            r = v
        else:
            self.give_up_if(b.and_(b.icmp_signed("<", v, c64(0)), b.icmp_signed("!=", self.acc, c64(0))))
            r = self.checked("sadd", self.acc, v)
        b.ret(b.insert_value(b.insert_value(ir.Constant(FAST, None), r, 0), self.r, 1))

    def jump(self, args, d, acc) -> None:
        here = self.b.block
        self.d.add_incoming(d, here)
        self.r_in.add_incoming(self.r, here)
        self.acc.add_incoming(acc, here)
        for p, a in zip(self.vals, args):
            p.add_incoming(a, here)
        self.b.branch(self.header)

    def is_self_send(self, e: I.Send) -> bool:
        return e.super_from is None and callee(self.mod, e, self.md) is self.md

    def args_of(self, e: I.Send, md: I.MethodDef) -> list:
        """The unboxed receiver (an instance-side callee's) and arguments of a send to md."""
        recv = [] if md.class_side else [self.value(e.receiver)]
        return recv + [self.value(a) for a in e.args]

    # ---- values
    def stmt(self, s) -> None:
        if isinstance(s, I.Let):
            self.env[s.var.id] = self.value(s.value)
        elif isinstance(s, I.Return):
            raise AssertionError("a return before the last statement")
        else:
            self.value(s)

    def body_value(self, body: I.Body):
        saved = dict(self.env)
        v = None
        for s in body.stmts:
            if isinstance(s, I.Let):
                self.stmt(s)
                v = self.env[s.var.id]
            else:
                v = self.value(s)
        self.env = saved
        return v

    def checked(self, op: str, a, x):
        r = self.b.call(self.mod.intrinsic(f"llvm.{op}.with.overflow.i64"), [a, x])
        self.give_up_if(self.b.extract_value(r, 1))
        return self.b.extract_value(r, 0)

    def value(self, e):
        b = self.b
        if isinstance(e, I.Const):
            return ir.Constant(I1, int(bool(e.value))) if e.kind == "bool" else c64(e.value)
        if isinstance(e, I.Ref):
            return self.env[e.var.id]
        if isinstance(e, I.Seq):
            return self.body_value(e.body)
        if isinstance(e, I.If):
            return self.branches(self.value(e.cond), lambda: self.body_value(e.then), lambda: self.body_value(e.else_))
        if isinstance(e, I.AndOr):
            left = self.value(e.left)
            right = lambda: self.body_value(e.right)   # noqa: E731
            if e.op == "and":
                return self.branches(left, right, lambda: ir.Constant(I1, 0))
            return self.branches(left, lambda: ir.Constant(I1, 1), right)
        if isinstance(e, I.Send):
            op = primitive(self.mod, e)
            if op is not None:
                x, y = self.value(e.receiver), self.value(e.args[0])
                if op in ARITH:
                    return self.checked(ARITH[op], x, y)
                return b.icmp_signed(COMPARE[op], x, y)
            md = callee(self.mod, e, self.md)
            args = self.args_of(e, md)
            d = b.add(self.d, c64(1))
            return self.call_self(args, d) if md is self.md else self.call(fast_fn(self.mod, md), args, d)
        raise AssertionError(f"not pure: {type(e).__name__}")

    def call_self(self, args, d):
        """A self-send's value, its frame at depth d: the nest's next level, the last level's
        a call of level 0. Level 0 enters the nest only when the nest's deepest frame, at most
        d + levels - 1, is within --stack-limit, as the nest does not check; else it calls itself."""
        if self.level == self.levels:
            return self.call(fast_fn(self.mod, self.md), args, d)
        nest = fast_fn(self.mod, self.md, self.level + 1)
        if self.level:
            return self.call(nest, args, d)
        b = self.b
        within = b.icmp_unsigned("<=", b.add(d, c64(self.levels - 1)), self.limit)
        return self.branches(within, lambda: self.call(nest, args, d),
                             lambda: self.call(fast_fn(self.mod, self.md), args, d))

    def call(self, fn: ir.Function, args, d):
        """The callee's value; its GIVE_UP or KILLED is answered. One unsigned compare also
        finds a turn's budget spent, which a nest does not check: the nest yields here."""
        from lp.compiler.actors import BUDGET
        b = self.b
        r = b.call(fn, [d, self.r, *args], cconv="fastcc")
        spent = b.extract_value(r, 1)
        self.spend(spent, b.icmp_unsigned(">=", spent, c64(BUDGET)), r)
        return b.extract_value(r, 0)

    def preempt(self):
        """Yield (a new turn: lpn_reductions is 0); answer KILLED when killed meanwhile. The
        block it ends in."""
        b = self.b
        k = b.call(self.mod.c("lpn_preempt"), [])
        with b.if_then(b.icmp_signed("!=", k, c64(0)), likely=False):
            b.ret(ir.Constant(FAST, [c64(0), c64(KILLED)]))
        return b.block

    def branches(self, cond, then, else_):
        b = self.b
        then_bb, else_bb = self.f.append_basic_block("then"), self.f.append_basic_block("else")
        join = self.f.append_basic_block("join")
        b.cbranch(cond, then_bb, else_bb)
        outs, r0 = [], self.r
        for bb, make in ((then_bb, then), (else_bb, else_)):
            b.position_at_end(bb)
            self.r = r0
            v = make()
            outs.append((v, self.r, b.block))
            b.branch(join)
        b.position_at_end(join)
        phi, r = b.phi(outs[0][0].type), b.phi(I64)
        for v, spent, bb in outs:
            phi.add_incoming(v, bb)
            r.add_incoming(spent, bb)
        self.r = r
        return phi
