"""Lowers AST bodies to register code (see code.py).

Control messages with literal block arguments (`ifTrue:ifFalse:` and friends,
`and:`/`or:`, `to:do:`, `timesRepeat:`) and `receive:` with a literal dispatch
table are compiled inline, as Smalltalk compilers do; every other send is a
real send. An inlined control message whose receiver turns out not to be a
Boolean (or an Integer for the loops) falls back to a real send of the same
message with the blocks as closures, compiled on first use (see `Fallback`),
so a user class may define `ifTrue:` or `to:do:` itself. Calls in tail
position become TSEND, so loops written as recursion run in constant space.
"""
from __future__ import annotations

import math

from lp.diagnostics import Diagnostic, LPError
from lp.interp import code as C
from lp.interp.values import Char, Symbol
from lp.syntax import ast as A

_IF_SELECTORS = {"ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:"}


class _Ctx:
    """One Code being compiled, with its register allocation and captured names."""

    def __init__(self, code: C.Code, parent_scope: "_Scope | None"):
        self.code = code
        self.parent_scope = parent_scope
        self.consts: dict = {}
        self.captures: list[int] = []      # outer registers, in capture order
        self.capture_regs: dict = {}       # outer (ctx id, reg) -> local reg
        self.fallbacks: list = []          # see Compiler.fallback
        self.fallback_uses: dict = {}      # fallback index -> pcs of the tests jumping to it
        self.resume: dict = {}             # fallback index -> pc after the inlined message

    def new_reg(self, value=None) -> int:
        self.code.template.append(value)
        return len(self.code.template) - 1

    def const(self, value) -> int:
        key = (type(value), value if not isinstance(value, (list, tuple)) else id(value),
               math.copysign(1.0, value) if type(value) is float else 0)   # 0.0 = -0.0, but they print apart
        r = self.consts.get(key)
        if r is None:
            r = self.consts[key] = self.new_reg(value)
        return r

    def emit(self, *ins) -> int:
        self.code.instrs.append(ins)
        return len(self.code.instrs) - 1

    def here(self) -> int:
        return len(self.code.instrs)


class _Scope:
    def __init__(self, ctx: _Ctx, parent: "_Scope | None"):
        self.ctx = ctx
        self.parent = parent
        self.names: dict[str, int] = {}

    def snapshot(self) -> "_Scope":
        """A copy of the whole scope chain as it is now (later bindings do not show in it)."""
        copy = _Scope(self.ctx, self.parent.snapshot() if self.parent is not None else None)
        copy.names = dict(self.names)
        return copy


class Fallback:
    """The closures of an inlined control message's blocks, for the real send made when its
    receiver is not a Boolean (or Integer); compiled the first time that happens."""
    __slots__ = ("compiler", "blocks", "scope", "codes")

    def __init__(self, compiler, blocks, scope: _Scope):
        self.compiler = compiler
        self.blocks = blocks
        self.scope = scope
        self.codes = None

    def closure_codes(self):
        if self.codes is None:
            self.codes = [self.compiler.closure_code(b, self.scope) for b in self.blocks]
        return self.codes


class Compiler:
    def __init__(self, classes: dict, grain_shapes=None, expect: dict | None = None):
        self.classes = classes
        self.grain_shapes = grain_shapes or {}   # lp/types/grain_shapes.py: id(initial state) -> (node, shape)
        self.shaping: set[int] = set()
        self.expect = expect or {}   # the type oracle's (lp/interp/type_oracle.py): id(send) -> class

    # ---- entry points
    def method(self, m: A.MethodDecl, cls, keep_frame=False) -> C.Code:
        """keep_frame: the body's last send is not a tail call, so the method stays on the call
        stack (`lp test` compiles test methods so, for its failure reports)."""
        code = C.Code(f"{m.class_name}{' class' if m.class_side else ''} >> {m.selector}", m.span, False)
        code.owner = cls
        code.selector = m.selector
        ctx = _Ctx(code, None)
        scope = _Scope(ctx, None)
        scope.names["self"] = ctx.new_reg()
        for p in m.params:
            scope.names[p.name] = ctx.new_reg()
        code.nparams = len(m.params)
        if keep_frame:
            ctx.emit(C.RET, self.expr(m.body, scope, tail=False), m.body)
        else:
            self.expr(m.body, scope, tail=True)
        self.end(ctx)
        return code

    def main(self, statements, span, name="main", program=True) -> C.Code:
        """A program's statements (program: its last one is no tail call, so the program's bindings, a
        socket's among them, live until it ends), or another top-level body (`lp test`'s call)."""
        code = C.Code(name, span, False)
        ctx = _Ctx(code, None)
        scope = _Scope(ctx, None)
        scope.names["self"] = ctx.new_reg()
        if not program:
            if statements:
                self.body(statements, scope, tail=True)
            else:
                ctx.emit(C.RET, ctx.const(None), None)
        else:
            r = self.body(statements, scope, tail=False) if statements else ctx.const(None)
            ctx.emit(C.RET, r, None)
        self.end(ctx)
        return code

    # ---- statements
    def body(self, stmts, scope: _Scope, tail: bool):
        """Compile statements; answers the register of the last value (None when tail)."""
        if not stmts:
            r = scope.ctx.const(None)
            if tail:
                scope.ctx.emit(C.RET, r, None)
                return None
            return r
        for s in stmts[:-1]:
            self.statement(s, scope, tail=False)
        return self.statement(stmts[-1], scope, tail)

    def statement(self, s, scope: _Scope, tail: bool):
        ctx = scope.ctx
        if isinstance(s, A.Assign):
            r = self.expr(s.value, scope, tail=False)
            scope.names[s.name] = r
            if tail:
                ctx.emit(C.RET, r, s)
                return None
            return r
        if isinstance(s, A.Return):
            r = self.expr(s.value, scope, tail=not ctx.code.is_block)
            if ctx.code.is_block:
                ctx.emit(C.NLRET, r, s)
            return None if tail else ctx.const(None)
        return self.expr(s, scope, tail)

    # ---- expressions
    def expr(self, e, scope: _Scope, tail: bool):
        ctx = scope.ctx
        if id(e) in self.grain_shapes and id(e) not in self.shaping:
            self.shaping.add(id(e))   # `GrainRef shape: '...' of: e`, compiled once
            try:
                return self.expr(typed_state(e, self.grain_shapes[id(e)][1]), scope, tail)
            finally:
                self.shaping.discard(id(e))
        r = self._value(e, scope)
        if r is not None:
            if tail:
                ctx.emit(C.RET, r, e)
                return None
            return r
        if isinstance(e, A.Send):
            return self.send(e, scope, tail)
        if isinstance(e, A.Cascade):
            recv = self.expr(e.receiver, scope, False)
            last = None
            for i, chain in enumerate(e.parts):
                cur = recv
                for j, m in enumerate(chain):
                    args = tuple(self.expr(a, scope, False) for a in m.args)
                    is_tail = tail and i == len(e.parts) - 1 and j == len(chain) - 1
                    cur = self._emit_send(scope, cur, m.selector, args, m, is_tail)
                last = cur
            return last
        if isinstance(e, A.Sequence):
            return self.body(list(e.body), _Scope(ctx, scope), tail)
        if isinstance(e, A.Block):
            out = self.closure(e, scope)
            if tail:
                ctx.emit(C.RET, out, e)
                return None
            return out
        if isinstance(e, (A.BraceArray, A.DispatchTable, A.Record)):
            out = ctx.new_reg()
            if isinstance(e, A.BraceArray):
                ctx.emit(C.ARRAY, out, tuple(self.expr(x, scope, False) for x in e.items), e)
            elif isinstance(e, A.DispatchTable):
                items = []
                for t in e.entries:
                    k, v = self.expr(t.key, scope, False), self.expr(t.handler, scope, False)
                    items.append(self._emit_send(scope, k, "->", (v,), t, False))
                ctx.emit(C.ARRAY, out, tuple(items), e)
            else:
                ctx.emit(C.RECORD, out, tuple(f.name for f in e.fields),
                         tuple(self.expr(f.value, scope, False) for f in e.fields), e)
            if tail:
                ctx.emit(C.RET, out, e)
                return None
            return out
        if isinstance(e, (A.Assign, A.Return)):
            return self.statement(e, scope, tail)
        raise LPError(Diagnostic("internal error", f"cannot compile {type(e).__name__}", e.span))

    def _value(self, e, scope: _Scope):
        """Register of a literal or name, emitting nothing; None for other nodes."""
        ctx = scope.ctx
        if isinstance(e, A.IntLit | A.FloatLit | A.StrLit):
            return ctx.const(e.value)
        if isinstance(e, A.SymLit):
            return ctx.const(Symbol(e.name))
        if isinstance(e, A.CharLit):
            return ctx.const(Char(e.value))
        if isinstance(e, A.LitArray):
            return ctx.const(literal_array(e))
        if isinstance(e, A.Name):
            return self.name(e, scope)
        return None

    def name(self, e: A.Name, scope: _Scope) -> int:
        ctx = scope.ctx
        n = e.name
        if n == "nil":
            return ctx.const(None)
        if n == "true":
            return ctx.const(True)
        if n == "false":
            return ctx.const(False)
        if n == "super":
            n = "self"
        r = self.resolve(n, scope)
        if r is not None:
            return r
        cls = self.classes.get(n)
        if cls is not None:
            return ctx.const(cls)
        if n[:1].isupper():
            raise LPError(Diagnostic("unknown class", f"There is no class named `{n}`.", e.span))
        raise LPError(Diagnostic("unknown name", f"`{n}` is not bound here.", e.span,
                                 hint="bind it first with `:=`, or pass it in as a parameter"))

    def resolve(self, name: str, scope: _Scope):
        s = scope
        while s is not None and s.ctx is scope.ctx:
            r = s.names.get(name)
            if r is not None:
                return r
            s = s.parent
        ctx = scope.ctx
        outer = ctx.parent_scope
        if outer is None:
            return None
        outer_reg = self.resolve(name, outer)
        if outer_reg is None:
            return None
        key = (id(outer.ctx), outer_reg)
        local = ctx.capture_regs.get(key)
        if local is None:
            raise AssertionError("capture registers are allocated when the block is compiled")
        return local

    def closure(self, b: A.Block, scope: _Scope) -> int:
        code, captures = self.closure_code(b, scope)
        out = scope.ctx.new_reg()
        scope.ctx.emit(C.CLOSURE, out, code, captures, b)
        return out

    def closure_code(self, b: A.Block, scope: _Scope):
        """The block's compiled body and the registers of `scope` it captures."""
        ctx = scope.ctx
        code = C.Code(f"[] in {ctx.code.name}", b.span, True)
        code.owner = ctx.code.owner
        code.returns = any(isinstance(n, A.Return) for n in A.walk(b))
        inner = _Ctx(code, scope)
        bscope = _Scope(inner, None)
        for p in b.params:
            bscope.names[p.name] = inner.new_reg()
        code.nparams = len(b.params)
        # Captures: every free name of the block that the enclosing scopes bind.
        for n in sorted(_free_names(b)):
            if n in bscope.names:
                continue
            outer_reg = self.resolve(n if n != "super" else "self", scope)
            if outer_reg is None:
                continue
            key = (id(ctx), outer_reg)
            if key not in inner.capture_regs:
                inner.capture_regs[key] = inner.new_reg()
                inner.captures.append(outer_reg)
        code.ncaptured = len(inner.captures)
        self.body(list(b.body), bscope, tail=True)
        self.end(inner)
        return code, tuple(inner.captures)

    # ---- fallbacks of inlined control messages
    def fallback(self, ctx: _Ctx, e: A.Send, scope: _Scope, recv: int, out, tail: bool, computed=()) -> int:
        """Index of a placeholder pc for the real send of `e`; emitted by `end` after the body.
        Its value goes to `out` and execution continues at `ctx.resume[index]`, set by the caller.
        `computed` maps argument positions already evaluated to their registers; the others are blocks."""
        computed = dict(computed)
        blocks = [a for k, a in enumerate(e.args) if k not in computed]
        block_regs = tuple(ctx.new_reg() for _ in blocks)
        it = iter(block_regs)
        regs = tuple(computed[k] if k in computed else next(it) for k in range(len(e.args)))
        ctx.fallbacks.append((Fallback(self, blocks, scope.snapshot()), block_regs, recv, regs, out, tail, e))
        return len(ctx.fallbacks) - 1

    def end(self, ctx: _Ctx) -> None:
        """Emit the fallback sends of the body's inlined control messages and patch their jumps."""
        for k, (fb, block_regs, recv, regs, out, tail, e) in enumerate(ctx.fallbacks):
            start = ctx.here()
            ctx.emit(C.FALLBACK, fb, block_regs, e)
            if tail:
                ctx.emit(C.TSEND, recv, e.selector, regs, e)
            else:
                ctx.emit(C.SEND, out, recv, e.selector, regs, e)
                ctx.emit(C.JMP, ctx.resume[k], e)
            for at in ctx.fallback_uses[k]:
                ins = list(ctx.code.instrs[at])
                ins[-2] = start
                ctx.code.instrs[at] = tuple(ins)
        ctx.fallbacks = []

    # ---- sends
    def send(self, e: A.Send, scope: _Scope, tail: bool):
        want = self.expect.get(id(e)) if self.expect and not tail else None
        if want is None:    # a tail send stays one (its answer is checked where the caller's send is)
            return self._send(e, scope, tail)
        ctx = scope.ctx
        r = self._send(e, scope, False)
        from lp.interp.type_oracle import SELECTOR
        return self._emit_send(scope, r, SELECTOR, (ctx.const(want),), e, False)

    def _send(self, e: A.Send, scope: _Scope, tail: bool):
        ctx = scope.ctx
        sel = e.selector
        if sel in _IF_SELECTORS and all(_inline_block(a, 0) for a in e.args):
            return self._if(e, scope, tail)
        if sel in ("and:", "or:") and _inline_block(e.args[0], 0):
            return self._and_or(e, scope, tail)
        if sel == "to:do:" and _inline_block(e.args[1], 1):
            return self._to_do(e, scope, tail)
        if sel == "timesRepeat:" and _inline_block(e.args[0], 0):
            return self._times_repeat(e, scope, tail)
        if sel in ("receive:", "receive:after:do:") and _inline_table(e.args[0]) and \
                (sel == "receive:" or _inline_block(e.args[2], 0)):
            return self._receive(e, scope, tail)
        if sel == "receive":
            return self._receive(e, scope, tail)
        if isinstance(e.receiver, A.Name) and e.receiver.name == "super":
            recv = self.name(e.receiver, scope)
            args = tuple(self.expr(a, scope, False) for a in e.args)
            if tail:
                ctx.emit(C.TSUPER, recv, sel, args, e)
                return None
            out = ctx.new_reg()
            ctx.emit(C.SUPER, out, recv, sel, args, e)
            return out
        recv = self.expr(e.receiver, scope, False)
        args = tuple(self.expr(a, scope, False) for a in e.args)
        return self._emit_send(scope, recv, sel, args, e, tail)

    def _emit_send(self, scope, recv, sel, args, node, tail):
        ctx = scope.ctx
        if tail:
            ctx.emit(C.TSEND, recv, sel, args, node)
            return None
        out = ctx.new_reg()
        ctx.emit(C.SEND, out, recv, sel, args, node)
        return out

    def _branch(self, block: A.Block, scope: _Scope, out, tail):
        r = self.body(list(block.body), _Scope(scope.ctx, scope), tail)
        if not tail:
            scope.ctx.emit(C.MOVE, out, r, block)

    def _if(self, e: A.Send, scope: _Scope, tail: bool):
        ctx = scope.ctx
        cond = self.expr(e.receiver, scope, False)
        sel = e.selector
        branches = dict(zip(A.keyword_parts(sel), e.args))
        then_b, else_b = branches.get("ifTrue:"), branches.get("ifFalse:")
        out = None if tail else ctx.new_reg()
        one_branch = then_b is None or else_b is None   # answers nil, whichever way it goes
        fb = self.fallback(ctx, e, scope, cond, out, tail)
        jf = ctx.emit(C.JF, cond, None, None, e)
        ctx.fallback_uses[fb] = [jf]
        if then_b is not None:
            if one_branch:
                self.body(list(then_b.body), _Scope(ctx, scope), False)
            else:
                self._branch(then_b, scope, out, tail)
        if one_branch:
            self._const_result(scope, None, out, tail, e)
        jend = None if tail else ctx.emit(C.JMP, None, e)
        ctx.code.instrs[jf] = (C.JF, cond, ctx.here(), None, e)
        if else_b is not None:
            if one_branch:
                self.body(list(else_b.body), _Scope(ctx, scope), False)
            else:
                self._branch(else_b, scope, out, tail)
        if one_branch:
            self._const_result(scope, None, out, tail, e)
        if jend is not None:
            ctx.code.instrs[jend] = (C.JMP, ctx.here(), e)
        ctx.resume[fb] = ctx.here()
        return out

    def _const_result(self, scope, value, out, tail, node):
        ctx = scope.ctx
        r = ctx.const(value)
        if tail:
            ctx.emit(C.RET, r, node)
        else:
            ctx.emit(C.MOVE, out, r, node)

    def _and_or(self, e: A.Send, scope: _Scope, tail: bool):
        ctx = scope.ctx
        cond = self.expr(e.receiver, scope, False)
        out = None if tail else ctx.new_reg()
        op = C.JF if e.selector == "and:" else C.JT
        fb = self.fallback(ctx, e, scope, cond, out, tail)
        j = ctx.emit(op, cond, None, None, e)
        ctx.fallback_uses[fb] = [j]
        self._branch(e.args[0], scope, out, tail)
        jend = None if tail else ctx.emit(C.JMP, None, e)
        ctx.code.instrs[j] = (op, cond, ctx.here(), None, e)
        self._const_result(scope, e.selector == "or:", out, tail, e)
        if jend is not None:
            ctx.code.instrs[jend] = (C.JMP, ctx.here(), e)
        ctx.resume[fb] = ctx.here()
        return out

    def _to_do(self, e: A.Send, scope: _Scope, tail: bool):
        ctx = scope.ctx
        start = self.expr(e.receiver, scope, False)
        stop = self.expr(e.args[0], scope, False)
        blk: A.Block = e.args[1]
        i = ctx.new_reg()
        out = None if tail else ctx.new_reg()
        fb = self.fallback(ctx, e, scope, start, out, tail, computed={0: stop})
        ctx.fallback_uses[fb] = [ctx.emit(C.INTCHECK, start, stop, i, start, None, e)]   # i := start
        loop = ctx.emit(C.FORLOOP, i, stop, None, e)    # exit when i > stop
        inner = _Scope(ctx, scope)
        inner.names[blk.params[0].name] = i
        self.body(list(blk.body), inner, tail=False)
        ctx.emit(C.FORNEXT, i, stop, loop + 1, e)
        ctx.code.instrs[loop] = (C.FORLOOP, i, stop, ctx.here(), e)
        return self._loop_result(scope, start, out, fb, tail, e)

    def _times_repeat(self, e: A.Send, scope: _Scope, tail: bool):
        ctx = scope.ctx
        n = self.expr(e.receiver, scope, False)
        i = ctx.new_reg()
        one = ctx.const(1)
        out = None if tail else ctx.new_reg()
        fb = self.fallback(ctx, e, scope, n, out, tail)
        ctx.fallback_uses[fb] = [ctx.emit(C.INTCHECK, one, n, i, n, None, e)]
        loop = ctx.emit(C.FORLOOP, i, n, None, e)
        self.body(list(e.args[0].body), _Scope(ctx, scope), tail=False)
        ctx.emit(C.FORNEXT, i, n, loop + 1, e)
        ctx.code.instrs[loop] = (C.FORLOOP, i, n, ctx.here(), e)
        return self._loop_result(scope, n, out, fb, tail, e)

    def _loop_result(self, scope, reg, out, fb, tail, node):
        """An inlined loop answers its receiver; the fallback send's answer meets it in `out`."""
        ctx = scope.ctx
        if tail:
            ctx.emit(C.RET, reg, node)
            ctx.resume[fb] = None
            return None
        ctx.emit(C.MOVE, out, reg, node)
        ctx.resume[fb] = ctx.here()
        return out

    def _result(self, scope, reg, tail, node):
        if tail:
            scope.ctx.emit(C.RET, reg, node)
            return None
        return reg

    def _receive(self, e: A.Send, scope: _Scope, tail: bool):
        """RECV dst me entries timeout_reg timeout_pc node; each entry is (kind, key_reg, param_reg, pc)."""
        ctx = scope.ctx
        me = self.expr(e.receiver, scope, False)
        out = None if tail else ctx.new_reg()
        if e.selector == "receive":
            param = out if out is not None else ctx.new_reg()
            ctx.emit(C.RECV, param, me, ((C.MATCH_ANY, None, param, ctx.here() + 1),), None, None, e)
            return self._result(scope, param, tail, e)
        table: A.DispatchTable = e.args[0]
        tmo = self.expr(e.args[1], scope, False) if e.selector == "receive:after:do:" else None
        entries = []
        keys = []
        for t in table.entries:
            if isinstance(t.key, A.Name) and t.key.name[:1].isupper():
                keys.append((C.MATCH_CLASS, self.name(t.key, scope)))
            else:
                keys.append((C.MATCH_VALUE, self.expr(t.key, scope, False)))
        recv_at = ctx.emit(C.RECV, out, me, None, tmo, None, e)
        jumps = []
        for (kind, key), t in zip(keys, table.entries):
            blk: A.Block = t.handler
            inner = _Scope(ctx, scope)
            param = ctx.new_reg()
            if blk.params:
                inner.names[blk.params[0].name] = param
            entries.append((kind, key, param, ctx.here()))
            r = self.body(list(blk.body), inner, tail)
            if not tail:
                ctx.emit(C.MOVE, out, r, blk)
                jumps.append(ctx.emit(C.JMP, None, blk))
        tmo_pc = None
        if tmo is not None:
            tmo_pc = ctx.here()
            r = self.body(list(e.args[2].body), _Scope(ctx, scope), tail)
            if not tail:
                ctx.emit(C.MOVE, out, r, e.args[2])
        end = ctx.here()
        for j in jumps:
            ctx.code.instrs[j] = (C.JMP, end, ctx.code.instrs[j][2])
        ctx.code.instrs[recv_at] = (C.RECV, out, me, tuple(entries), tmo, tmo_pc, e)
        return out


def typed_state(e, shape: str) -> A.Send:
    """The initial state of a `Grain for: C initial: e` with the shape of its type (lp/types/grain_shapes.py)."""
    return A.Send(A.Name("GrainRef", e.span), "shape:of:", (A.StrLit(shape, e.span), e), e.span, e.span)


def _inline_block(node, nparams: int) -> bool:
    return isinstance(node, A.Block) and len(node.params) == nparams


def _inline_table(node) -> bool:
    return isinstance(node, A.DispatchTable) and all(
        isinstance(t.handler, A.Block) and len(t.handler.params) <= 1 for t in node.entries)


def _free_names(block: A.Block) -> set[str]:
    """Names used anywhere inside `block` (a superset of its free names is fine)."""
    out = set()
    for n in A.walk(block):
        if isinstance(n, A.Name):
            out.add(n.name)
    return out


def literal_array(e: A.LitArray) -> tuple:
    out = []
    for x in e.items:
        if isinstance(x, A.LitArray):
            out.append(literal_array(x))
        elif isinstance(x, A.SymLit):
            out.append(Symbol(x.name))
        elif isinstance(x, A.CharLit):
            out.append(Char(x.value))
        elif isinstance(x, A.Name):
            out.append({"true": True, "false": False, "nil": None}[x.name])
        else:
            out.append(x.value)
    return tuple(out)
