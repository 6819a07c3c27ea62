"""Emits one LP function (a method, a block body, main or a primitive wrapper) as LLVM IR.

Values are `V`s: the two i64 words of docs/native.md "Values" plus the IR type the
checker proved. The generator keeps the function's *owned* values on a stack
(`self.owned`): parameters, bindings and evaluated temporaries. A call pops
what it consumes; leaving a scope drops what the scope bound; every way out
of the function (return, tail call, unwinding) drops everything still owned
(docs/native.md "Memory" and "Errors and non-local return").
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.dynamic import is_dynamic, require, settle
from lp.compiler.layout import CLASS_VALUE, FIRST_HEAP, I32, I64, IMMEDIATE_CLASSES, PTR, UNWIND
from lp.compiler.lastuse import reads_expr
from lp.compiler.unsupported import Unsupported
from lp.ir import nodes as I

VAL = ir.LiteralStructType([I64, I64])
BLOCK_CAPS = 32      # offsetof(lpn_block, cap)
INST_FIELDS = 16     # offsetof(lpn_inst, field)
ARR_ITEMS = 16       # offsetof(lpn_arr, item)


def fn_type(nargs: int) -> ir.FunctionType:
    """An LP function: the receiver (or block) and each argument as two i64 words."""
    return ir.FunctionType(VAL, [I64] * (2 + 2 * nargs))


def kind(ty: I.Ty | None) -> str | None:
    """The class a type proves (`Point`, `Integer`, `Point class`), or None."""
    if ty is None or ty.var is not None or not ty.known or ty.name in ("Protocol",):
        return None
    return ty.name


def counted(ty: I.Ty | None) -> bool:
    k = kind(ty)
    return not (k in IMMEDIATE_CLASSES or (k is not None and k.endswith(" class")))


class V:
    __slots__ = ("cls", "bits", "ty")

    def __init__(self, cls, bits, ty: I.Ty):
        self.cls, self.bits, self.ty = cls, bits, ty


def c64(n: int) -> ir.Constant:
    return ir.Constant(I64, n)


class FunctionGen:
    """kind: 'method', 'block', 'main' or 'prim'. `trace_name` is the frame name in LP call stacks."""

    def __init__(self, mod, fn: ir.Function, kind_: str, trace_name: str | None, class_side: bool = False,
                 owner: str | None = None):
        self.mod = mod
        self.fn = fn
        self.kind = kind_
        self.trace_name = mod.layout.cstring(trace_name) if trace_name else None
        self.class_side = class_side
        self.owner = owner
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.owned: list[V] = []
        self.env: dict[int, V] = {}
        self.caps: dict[int, int] = {}
        self.block_ptr = None
        self.depth = None         # the frame count this function's prologue stored
        self.home = None          # this method's Home token (a method some block `^`s from)
        self.last: set = set()    # reads that move their variable (compiler/lastuse.py)
        self.method = None        # (MethodDef, Variant) when this is a method's function
        self.result_ty = None     # a method's or block's answer type, which its callers trust

    # ---- small helpers
    def pair(self, v: V) -> list:
        return [v.cls, v.bits]

    def make(self, cls, bits, ty) -> V:
        if isinstance(cls, int):
            cls = c64(cls)
        if isinstance(bits, int):
            bits = c64(bits)
        return V(cls, bits, ty)

    def nil(self) -> V:
        return self.make(0, 0, I.Ty("UndefinedObject"))

    def push(self, v: V) -> V:
        self.owned.append(v)
        return v

    def pop(self) -> V:
        return self.owned.pop()

    def pop_n(self, n: int) -> list[V]:
        if n == 0:
            return []
        out = self.owned[-n:]
        del self.owned[-n:]
        return out

    def dup(self, v: V) -> None:
        if counted(v.ty):
            self.b.call(self.mod.rt("dup"), self.pair(v))

    def drop(self, v: V) -> None:
        if counted(v.ty):
            self.b.call(self.mod.rt("drop"), self.pair(v))

    def drop_all(self, keep: int = 0) -> None:
        for v in reversed(self.owned[keep:]):
            self.drop(v)

    def terminated(self) -> bool:
        return self.b.block.is_terminated

    def dead(self) -> V:
        """Continue in an unreachable block after a `ret` (code after `^` or a tail call)."""
        self.b.position_at_end(self.fn.append_basic_block("dead"))
        return self.push(self.nil())

    def counts_depth(self) -> bool:
        return self.kind in ("method", "block", "main")

    def prologue(self) -> None:
        """Count this frame in `lpn_depth` and spend a reduction in `lpn_reductions` (docs/native.md
        "Depth"): past --stack-limit, or below the fiber's stack floor, tail-call the function's
        cold path (compiler/deep.py): the same call on the actor's deep stack, or the stack
        overflow error answered to the caller, which records the frame of the send that
        overflowed; past the turn's budget, yield (an actor killed meanwhile only unwinds).
        The depth this frame counted is kept (`self.depth`): leaving stores it less one, so
        no return reads lpn_depth back, which chained every call to the last one's store."""
        from lp.compiler.actors import BUDGET
        from lp.compiler.deep import cold_path, yield_path
        depth = self.depth = self.b.add(self.b.load(self.mod.depth), c64(1))
        self.b.store(depth, self.mod.depth)
        sp = self.mod.stack_pointer(self.b)
        over = self.b.or_(self.b.icmp_unsigned(">", depth, self.b.load(self.mod.depth_limit)),
                          self.b.icmp_unsigned("<", sp, self.b.load(self.mod.stack_floor)))
        with self.b.if_then(over, likely=False):
            self.b.ret(self.b.call(cold_path(self), list(self.fn.args), tail="tail", cconv="tailcc"))

        spent = self.b.add(self.b.load(self.mod.reductions), c64(1))
        self.b.store(spent, self.mod.reductions)
        with self.b.if_then(self.b.icmp_unsigned(">=", spent, c64(BUDGET)), likely=False):
            self.b.ret(self.b.call(yield_path(self), list(self.fn.args), tail="tail", cconv="tailcc"))

    def leave(self) -> None:
        if self.counts_depth():
            self.b.store(self.b.sub(self.depth, c64(1)), self.mod.depth)

    def ret(self, v: V) -> None:
        self.leave()
        if self.home is not None:
            self.b.call(self.mod.c("lpn_home_end"), [self.home])
        agg = self.b.insert_value(self.b.insert_value(ir.Constant(VAL, None), v.cls, 0), v.bits, 1)
        self.b.ret(agg)

    def ret_owned(self, v: V) -> None:
        """Return `v` (on top of the stack) after dropping everything else owned."""
        assert self.owned and self.owned[-1] is v
        if self.result_ty is not None:
            v = settle(self, v, self.result_ty, None)
        self.pop()
        self.drop_all()
        self.ret(v)

    def site(self, span) -> int:
        return self.mod.layout.site(span)

    # ---- unwinding
    def is_unwind(self, v: V):
        return self.b.icmp_unsigned("==", v.cls, c64(UNWIND))

    def unwind_here(self, site: int | None) -> None:
        """The current block answers UNWIND: record this frame, drop what is owned, pass it on
        (or take a `^` aimed at this method)."""
        if self.trace_name is not None and site is not None:
            self.b.call(self.mod.c("lpn_trace_push"), [self.trace_name, ir.Constant(I32, site)])
        self.drop_all()
        if self.home is not None:
            r = self.b.call(self.mod.c("lpn_nlr_take"), [self.home])
            cls = self.b.extract_value(r, 0)
            bits = self.b.extract_value(r, 1)
            taken = self.b.icmp_unsigned("!=", cls, c64(UNWIND))
            with self.b.if_then(taken):
                self.ret(V(cls, bits, I.UNKNOWN))
        self.ret(self.make(UNWIND, 0, I.UNKNOWN))

    def check(self, v: V, site: int | None) -> V:
        """After a call: if it answered UNWIND, unwind (v is on top of the stack, not owned yet)."""
        cond = self.is_unwind(v)
        bad = self.fn.append_basic_block("unwind")
        ok = self.fn.append_basic_block("ok")
        self.b.cbranch(cond, bad, ok).set_weights([1, 1 << 20])   # unwinding is laid out cold
        self.b.position_at_end(bad)
        saved = list(self.owned)
        if self.owned and self.owned[-1] is v:
            self.pop()
        self.unwind_here(site)
        self.owned = saved
        self.b.position_at_end(ok)
        return v

    def guard(self, v: V, site: int | None) -> V:
        """A primitive's result: pushed, checked, answered (still pushed)."""
        self.push(v)
        return self.check(v, site)

    def raise_now(self, site: int | None) -> None:
        """The current path has raised (a C call answered UNWIND for sure)."""
        self.unwind_here(site)

    def unpack(self, r, ty) -> V:
        return V(self.b.extract_value(r, 0), self.b.extract_value(r, 1), ty)

    # ---- calls of LP code (methods, blocks, dispatch stubs)
    def can_tail_call(self, nwords: int) -> bool:
        """Whether a call passing nwords words can be a tail call here. x86-64 passes six words in
        registers; a musttail call whose stack arguments differ in size from this function's own
        loses them in LLVM's back end (tests/native/programs/tail_stack_args.lp), so it becomes a
        plain call (loops written as self-recursion have equal prototypes and stay tail calls)."""
        return self.home is None and not (max(nwords, len(self.fn.args)) > 6 and nwords != len(self.fn.args))

    def call_lp(self, callee, ftype, recv: V, args: list[V], site: int, tail: bool, ty: I.Ty,
                checked: bool = True):
        """recv and args are the top of the owned stack; they are consumed. Answers the pushed
        result, or None after a tail call."""
        operands = self.pair(recv) + [w for a in args for w in self.pair(a)]
        if tail and self.home is None and not self.can_tail_call(len(operands)):
            tail = False
            r = self.call_lp(callee, ftype, recv, args, site, False, ty, checked=False)
            self.ret_owned(r)
            return None
        if tail and self.home is None:
            self.pop_n(len(args) + 1)
            self.drop_all()
            self.leave()
            self.b.ret(self.b.call(callee, operands, tail="tail", cconv="tailcc"))
            return None
        self.pop_n(len(args) + 1)
        r = self.b.call(callee, operands, cconv="tailcc")
        v = self.push(self.unpack(r, ty))
        if checked:
            self.check(v, site)
        return v

    def call_c(self, name: str, args: list, ty: I.Ty, site: int | None, may_fail: bool = True) -> V:
        r = self.b.call(self.mod.c(name), args)
        v = self.unpack(r, ty)
        if may_fail:
            return self.guard(v, site)
        return self.push(v)

    # ---- function bodies
    def body(self, body: I.Body, tail: bool) -> V | None:
        """Answers the pushed value of the body, or None when it ended in a ret/tail call."""
        if not body.stmts:
            v = self.push(self.nil())
            return self.finish(v, tail)
        last = len(body.stmts) - 1
        for k, s in enumerate(body.stmts):
            v = self.stmt(s, tail and k == last)
            if k < last:
                if v is None:
                    self.dead()
                    v = self.owned[-1]
                if v is not _BOUND:
                    self.drop(self.pop())
            else:
                if v is _BOUND:
                    var = s.var
                    v = self.ref(var)
                    return self.finish(v, tail)
                return v
        return None

    def finish(self, v: V | None, tail: bool) -> V | None:
        if v is not None and tail:
            self.ret_owned(v)
            return None
        return v

    def scoped(self, fn, *args) -> V | None:
        """Run fn (which pushes one value) and drop what it bound below that value."""
        base = {id(x) for x in self.owned}
        v = fn(*args)
        if v is None:
            self.owned = [x for x in self.owned if id(x) in base]
            return None
        res = self.pop()
        self.end_scope(base)
        return self.push(res)

    def end_scope(self, base: set) -> None:
        """Drop what was pushed since `base` (the ids owned then) and is still owned."""
        for x in reversed(self.owned):
            if id(x) not in base:
                self.drop(x)
        self.owned = [x for x in self.owned if id(x) in base]

    def stmt(self, s, tail: bool):
        if isinstance(s, I.Let):
            v = self.value(s.value, False)
            if v is None:
                v = self.dead()
            v.ty = s.var.type if s.var.type.known and not is_dynamic(v.ty) else v.ty
            self.env[s.var.id] = v
            return _BOUND
        if isinstance(s, I.Return):
            if s.nonlocal_:
                return self.nonlocal_return(s)
            v = self.value(s.value, self.kind == "method")
            if v is not None:
                self.ret_owned(v)
            return None
        return self.value(s, tail)

    def value(self, e, tail: bool) -> V | None:
        v = self.expr(e, tail)
        if v is not None and is_dynamic(e.type):
            v.ty = e.type        # whatever it flowed through (compiler/dynamic.py)
        return self.finish(v, tail) if v is not None else None

    # ---- expressions
    def expr(self, e, tail: bool) -> V | None:
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            raise Unsupported(f"`{type(e).__name__}` expressions", e.span)
        return m(e, tail)

    def x_Const(self, e: I.Const, tail) -> V:
        return self.push(self.const(e))

    def const(self, e: I.Const) -> V:
        t = e.type if e.type.known else I.Ty({"int": "Integer", "float": "Float", "bool": "Boolean",
                                             "nil": "UndefinedObject", "char": "Character", "symbol": "Symbol",
                                             "string": "String", "array": "Array"}[e.kind])
        k = e.kind
        if k == "int":
            return self.make(2, e.value & (2**64 - 1), t)
        if k == "float":
            import struct
            return self.make(3, struct.unpack("<Q", struct.pack("<d", e.value))[0], t)
        if k == "bool":
            return self.make(1, int(e.value), t)
        if k == "nil":
            return self.make(0, 0, t)
        if k == "char":
            return self.make(4, ord(e.value), t)
        if k == "symbol":
            return self.make(5, self.mod.layout.symbol(e.value).ptrtoint(I64), t)
        if k == "string":
            return self.make(16, self.mod.layout.static_string(e.value).ptrtoint(I64), t)
        if k == "array":
            items = e.value
            arr = self.b.call(self.mod.c("lpn_arr_new"), [c64(len(items))])
            for i, item in enumerate(items):
                self.store_value(arr, ARR_ITEMS + 16 * i, self.const(item))
            return self.make(17, self.b.ptrtoint(arr, I64), t)
        raise Unsupported(f"literals of kind {k}", e.span)

    def store_value(self, base, offset: int, v: V) -> None:
        p = self.b.gep(base, [c64(offset)], source_etype=ir.IntType(8))
        self.b.store(v.cls, p)
        self.b.store(v.bits, self.b.gep(base, [c64(offset + 8)], source_etype=ir.IntType(8)))

    def load_value(self, base, offset: int, ty) -> V:
        p = self.b.gep(base, [c64(offset)], source_etype=ir.IntType(8))
        q = self.b.gep(base, [c64(offset + 8)], source_etype=ir.IntType(8))
        return V(self.b.load(p, typ=I64), self.b.load(q, typ=I64), ty)

    def as_ptr(self, v: V):
        return self.b.inttoptr(v.bits, PTR)

    def ref(self, var: I.Var, key=None) -> V:
        v = self.env.get(var.id)
        if v is not None and key is not None and key in self.last:
            for k in range(len(self.owned) - 1, -1, -1):
                if self.owned[k] is v:
                    del self.owned[k]
                    return self.push(V(v.cls, v.bits, var.type if var.type.known and not is_dynamic(v.ty) else v.ty))
        if v is None:
            k = self.caps.get(var.id)
            if k is None:
                raise Unsupported(f"the variable `{var.name}` here", var.span)
            v = self.load_value(self.block_ptr, BLOCK_CAPS + 16 * k, var.type)
        w = V(v.cls, v.bits, var.type if var.type.known and not is_dynamic(v.ty) else v.ty)
        self.dup(w)
        return self.push(w)

    def borrowed(self, e, later=()) -> V | None:
        """For a callee that borrows its operand e: the value of a variable read that is not the
        variable's last on its path and that the operands evaluated after it (`later`) do not
        read (so the binding, or the block holding the capture, still holds it during and after
        the call), neither dup'd nor pushed; None for any other expression."""
        if not isinstance(e, I.Ref):
            return None
        if any(e.var.id in reads_expr(x) for x in later if x is not None and not isinstance(x, str)):
            return None
        v = self.env.get(e.var.id)
        if v is not None and id(e) in self.last:
            return None
        if v is None:
            k = self.caps.get(e.var.id)   # a block's capture: the block holds it until it returns
            if k is None:
                return None
            v = self.load_value(self.block_ptr, BLOCK_CAPS + 16 * k, e.var.type)
        return V(v.cls, v.bits, e.var.type if e.var.type.known and not is_dynamic(v.ty) else v.ty)

    def x_Ref(self, e: I.Ref, tail) -> V:
        return self.ref(e.var, id(e))

    def x_ClassRef(self, e: I.ClassRef, tail) -> V:
        if e.name not in self.mod.layout.ids:
            raise Unsupported(f"the class `{e.name}`", e.span)
        return self.push(self.make(CLASS_VALUE, self.mod.layout.class_id(e.name), I.Ty(f"{e.name} class")))

    def x_Seq(self, e: I.Seq, tail) -> V | None:
        return self.scoped(self.body, e.body, tail)

    def x_MakeArray(self, e: I.MakeArray, tail) -> V:
        elem = e.type.args[0] if e.type.name == "Array" and len(e.type.args) == 1 else None
        for x in e.items:
            v = self.value(x, False)
            if v is None:
                self.dead()
            elif elem is not None:
                settle(self, v, elem, self.site(x.span))
        items = self.pop_n(len(e.items))
        arr = self.b.call(self.mod.c("lpn_arr_new"), [c64(len(items))])
        for i, v in enumerate(items):
            self.store_value(arr, ARR_ITEMS + 16 * i, v)
        return self.push(self.make(17, self.b.ptrtoint(arr, I64), e.type))

    def x_MakeRecord(self, e: I.MakeRecord, tail):
        raise Unsupported("records outside `fields:` and `with:`", e.span)

    def x_Receive(self, e: I.Receive, tail):
        from lp.compiler.actors import receive
        return receive(self, e, tail)

    # ---- inlined control
    def branch_merge(self, arms, ty: I.Ty) -> V | None:
        """arms: callables that each emit into a fresh block and answer a pushed V or None.
        Every arm that ends normally leaves the same owned stack below its value. Answers the
        merged value (a phi), or None when every arm ended the function."""
        merge = self.fn.append_basic_block("merge")
        blocks = [self.fn.append_basic_block("arm") for _ in arms]
        incoming = []
        base = list(self.owned)
        for bb, arm in zip(blocks, arms):
            self.b.position_at_end(bb)
            self.owned = list(base)
            v = arm()
            if v is not None and not self.terminated():
                self.pop()
                incoming.append((v, self.b.block, list(self.owned)))
        if not incoming:
            self.owned = base
            self.b.position_at_end(merge)
            self.b.unreachable()
            return None
        # an arm may have moved or consumed a value another arm still owns: drop it there
        common = set.intersection(*({id(x) for x in after} for _, _, after in incoming))
        for v, bb, after in incoming:
            self.b.position_at_end(bb)
            for x in reversed(after):
                if id(x) not in common:
                    self.drop(x)
            self.b.branch(merge)
        self.owned = [x for x in incoming[0][2] if id(x) in common]
        self.b.position_at_end(merge)
        cls = self.b.phi(I64)
        bits = self.b.phi(I64)
        for v, bb, _ in incoming:
            cls.add_incoming(v.cls, bb)
            bits.add_incoming(v.bits, bb)
        tys = {str(v.ty) for v, _, _ in incoming}
        if any(is_dynamic(v.ty) for v, _, _ in incoming):
            ty = I.Ty("Dynamic")
        out_ty = ty if ty.known or is_dynamic(ty) else (incoming[0][0].ty if len(tys) == 1 else I.UNKNOWN)
        if not counted(out_ty) and any(counted(v.ty) for v, _, _ in incoming):
            # the checker types a discarded conditional or receive `nil` (UndefinedObject), but an arm
            # may answer a counted value: typed so, it would never be dropped (a leak per statement)
            out_ty = I.UNKNOWN
        return self.push(V(cls, bits, out_ty))

    def if_else(self, cond, arm_true, arm_false, ty: I.Ty) -> V | None:
        here = self.b.block
        n_before = len(self.fn.blocks)
        v = self.branch_merge([arm_true, arm_false], ty)
        arms = self.fn.blocks[n_before + 1:n_before + 3]
        with self.b.goto_block(here):
            self.b.cbranch(cond, arms[0], arms[1])
        return v

    def x_If(self, e: I.If, tail) -> V | None:
        c = self.value(e.cond, False)
        if c is None:
            return None
        require(self, c, "Boolean", _IF_SELECTOR[e.then is not None, e.else_ is not None], self.site(e.span))
        self.pop()
        branch_tail = tail and not e.one_branch

        def arm(body):
            def run():
                if body is None:
                    return self.push(self.nil())
                v = self.scoped(self.body, body, branch_tail)
                if v is not None and e.one_branch:
                    self.drop(self.pop())
                    v = self.push(self.nil())
                return v
            return run
        return self.if_else(self.b.trunc(c.bits, ir.IntType(1)), arm(e.then), arm(e.else_), e.type)

    def x_AndOr(self, e: I.AndOr, tail) -> V | None:
        left = self.value(e.left, False)
        if left is None:
            return None
        require(self, left, "Boolean", e.op + ":", self.site(e.span))
        self.pop()
        cond = self.b.trunc(left.bits, ir.IntType(1))
        short = self.make(1, 0 if e.op == "and" else 1, I.Ty("Boolean"))
        right = lambda: self.scoped(self.body, e.right, tail)  # noqa: E731
        const = lambda: self.push(short)  # noqa: E731
        if e.op == "and":
            return self.if_else(cond, right, const, I.Ty("Boolean"))
        return self.if_else(cond, const, right, I.Ty("Boolean"))

    def x_Loop(self, e: I.Loop, tail) -> V | None:
        start = self.value(e.start, False)
        stop = self.value(e.stop, False)
        if start is None or stop is None:
            return None
        site = self.site(e.span)
        if e.kind == "to:do:":
            require(self, start, "Integer", "to:do:", site)
            settle(self, stop, I.Ty("Integer"), site)
        else:
            require(self, stop, "Integer", "timesRepeat:", site)
        self.pop_n(2)
        pre = self.b.block
        head = self.fn.append_basic_block("loop")
        body = self.fn.append_basic_block("body")
        done = self.fn.append_basic_block("done")
        self.b.branch(head)
        self.b.position_at_end(head)
        i = self.b.phi(I64)
        i.add_incoming(start.bits, pre)
        self.b.cbranch(self.b.icmp_signed("<=", i, stop.bits), body, done)
        self.b.position_at_end(body)
        base = {id(x) for x in self.owned}
        if e.var is not None:
            self.env[e.var.id] = self.push(V(c64(2), i, I.Ty("Integer")))
        v = self.scoped(self.body, e.body, False)
        if v is None:
            self.dead()
        self.drop(self.pop())
        self.end_scope(base)
        # the last index is never incremented, so `1 to: MaxInt do:` ends without an overflow
        last = self.b.icmp_signed(">=", i, stop.bits)
        nxt = self.fn.append_basic_block("next")
        self.b.cbranch(last, done, nxt)
        self.b.position_at_end(nxt)
        from lp.compiler.actors import spend_reduction

        def killed():
            saved = list(self.owned)
            self.unwind_here(None)
            self.owned = saved
        spend_reduction(self, killed)
        i.add_incoming(self.b.add(i, c64(1)), self.b.block)
        self.b.branch(head)
        self.b.position_at_end(done)
        return self.push(start if e.kind == "to:do:" else stop)

    # ---- closures and ^
    def x_Closure(self, e: I.Closure, tail) -> V:
        fn = self.mod.block_fn(e, self.owner, self.class_side)
        home = ir.Constant(PTR, None)
        if e.returns:
            home = self.current_home()
        blk = self.b.call(self.mod.c("lpn_block_new"), [fn, c64(len(e.params)), c64(len(e.captures)), home])
        for k, var in enumerate(e.captures):
            v = settle(self, self.ref(var, (id(e), var.id)), var.type, self.site(e.span))
            self.pop()
            self.store_value(blk, BLOCK_CAPS + 16 * k, v)
        return self.push(self.make(22, self.b.ptrtoint(blk, I64), e.type))

    def current_home(self):
        """A new reference to the Home token `^` returns to (this method's, or the enclosing block's)."""
        if self.home is not None:
            h = self.home
        elif self.block_ptr is not None:
            p = self.b.gep(self.block_ptr, [c64(16)], source_etype=ir.IntType(8))
            h = self.b.load(p, typ=PTR)
        else:
            return ir.Constant(PTR, None)
        self.b.call(self.mod.c("lpn_dup_obj"), [h])
        return h

    def nonlocal_return(self, s: I.Return):
        v = self.value(s.value, False)
        if v is None:
            return None
        h = self.current_home()
        self.pop()
        self.b.call(self.mod.c("lpn_nlr"), [c64(23), self.b.ptrtoint(h, I64), v.cls, v.bits])
        self.unwind_here(self.site(s.span))
        return None

    # ---- sends
    def x_Send(self, e: I.Send, tail) -> V | None:
        return self.mod.sends.emit(self, e, tail)


_BOUND = V(None, None, I.UNKNOWN)
# the selector an inlined If stands for, by (has then, has else)
_IF_SELECTOR = {(True, True): "ifTrue:ifFalse:", (True, False): "ifTrue:", (False, True): "ifFalse:",
                (False, False): "ifTrue:"}
