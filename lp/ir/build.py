"""Builds the typed IR (lp/ir/nodes.py) from the parsed modules and the checker's result.

Names are resolved to Vars the way the interpreter's compiler resolves them to
registers; each expression takes its type from `CheckResult.types`. A control
message is inlined only when the checker proves its receiver's class (Boolean
for the `ifTrue:` family and `and:`/`or:`, Integer for `to:do:` and
`timesRepeat:`) and its block arguments are literal; otherwise it stays a
`Send` with closures, which has the same meaning.
"""
from __future__ import annotations

from itertools import count

from lp.ir import nodes as I
from lp.syntax import ast as A
from lp.types.library import BUILTIN_CLASSES, BUILTIN_FIELDS
from lp.types.terms import DYN, TCon, TProto, TSpecial, TVar, prune

_IF = {"ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:"}


def _proxied_call(rt: I.Ty, sel: str) -> bool:
    """A send through a `Remote[C]` or `GrainRef[C]` that the proxy forwards (not one it answers
    itself): its answer comes decoded from JSON, from another process that may be another program."""
    from lp.types.library import INSTANCE_SIGS, UNIVERSAL_SIGS
    return rt.name in ("Remote", "GrainRef") and sel not in UNIVERSAL_SIGS and sel not in INSTANCE_SIGS.get(rt.name, {})


def convert_type(t, depth: int = 0) -> I.Ty:
    t = prune(t) if t is not None else None
    if t is None or depth > 8:
        return I.UNKNOWN
    if type(t) is TVar:
        return I.Ty("", (), t.id)
    if type(t) is TSpecial:
        return I.Ty("Dynamic") if t is DYN else I.UNKNOWN
    if type(t) is TProto:
        return I.Ty("Protocol")
    if type(t) is TCon:
        return I.Ty(t.name, tuple(convert_type(a, depth + 1) for a in t.args))
    return I.UNKNOWN


class _Scope:
    def __init__(self, parent: "_Scope | None", fn: "_Fn"):
        self.parent = parent
        self.fn = fn
        self.names: dict[str, I.Var] = {}

    def lookup(self, name: str) -> I.Var | None:
        s = self
        while s is not None:
            v = s.names.get(name)
            if v is not None:
                return v
            s = s.parent
        return None


class _Fn:
    """A method, block or main body being built: the Vars it defines and the Refs it makes."""
    def __init__(self, name: str, is_block: bool, cls: str | None):
        self.name = name
        self.is_block = is_block
        self.cls = cls
        self.defined: set[int] = set()
        self.used: list[I.Var] = []
        self.returns = False


class Builder:
    def __init__(self, types: dict, grain_shapes=None):
        self.types = types
        self.grain_shapes = grain_shapes or {}   # id(initial state of a grain) -> (node, shape text)
        self.ids = count(1)
        self.classes: dict[str, I.ClassDef] = {}

    # ---- helpers
    def ty(self, node) -> I.Ty:
        entry = self.types.get(id(node))
        return convert_type(entry[1]) if entry is not None else I.UNKNOWN

    def new_var(self, name, t, span, fn: _Fn) -> I.Var:
        v = I.Var(name, next(self.ids), t, span)
        fn.defined.add(v.id)
        return v

    # ---- program
    def program(self, modules: list[A.Program], main: A.Program) -> I.Program:
        self.declare([c for m in modules for c in m.classes])
        methods = {}
        for m in modules:
            for d in m.methods:
                md = self.method(d)
                methods[md.key] = md
        fn = _Fn("main", False, None)
        scope = _Scope(None, fn)
        self_var = self.new_var("self", I.Ty("UndefinedObject"), main.span, fn)
        scope.names["self"] = self_var
        # only the main module's run; its last statement is no tail call: the program's bindings (a
        # socket's among them) live until it ends, not only until its last statement begins
        body = self.body(main.statements, scope, fn, False, I.UNKNOWN)
        return I.Program(main.file, self.classes, methods, body, self_var)

    def declare(self, decls):
        def every_field(name):   # a builtin's fields: its superclass's, then its own (as for user classes)
            sup = BUILTIN_CLASSES.get(name)
            return (every_field(sup) if sup else ()) + tuple(BUILTIN_FIELDS.get(name, {}))

        for name, sup in BUILTIN_CLASSES.items():
            self.classes[name] = I.ClassDef(name, sup, every_field(name), True)
        pending = {d.name: d for d in decls}
        while pending:
            progressed = False
            for name, d in list(pending.items()):
                sup = self.classes.get(d.superclass)
                if sup is None and d.superclass in pending:
                    continue
                inherited = sup.fields if sup is not None else ()
                self.classes[name] = I.ClassDef(name, d.superclass, inherited + tuple(d.fields), False, d.span)
                del pending[name]
                progressed = True
            if not progressed:
                for name, d in pending.items():
                    self.classes[name] = I.ClassDef(name, d.superclass, tuple(d.fields), False, d.span)
                break

    def method(self, d: A.MethodDecl) -> I.MethodDef:
        name = f"{d.class_name}{' class' if d.class_side else ''} >> {d.selector}"
        fn = _Fn(name, False, d.class_name)
        scope = _Scope(None, fn)
        self_t = I.Ty(f"{d.class_name} class") if d.class_side else I.Ty(d.class_name)
        self_var = self.new_var("self", self_t, d.span, fn)
        scope.names["self"] = self_var
        params = []
        for p in d.params:
            v = self.new_var(p.name, self.ty(p), p.span, fn)
            scope.names[p.name] = v
            params.append(v)
        mt = self.types.get(id(d))
        result = I.UNKNOWN
        if mt is not None:
            t = prune(mt[1])
            if type(t) is TCon and t.args:
                result = convert_type(t.args[-1])
        body_expr = self.expr(d.body, scope, fn, tail=True)
        body = I.Body((body_expr,), result)
        return I.MethodDef(d.class_name, d.class_side, d.selector, self_var, tuple(params), body, result,
                           d.span, fn.returns, name)

    # ---- statements
    def body(self, stmts, scope: _Scope, fn: _Fn, tail: bool, t: I.Ty) -> I.Body:
        out = []
        for k, s in enumerate(stmts):
            out.append(self.stmt(s, scope, fn, tail and k == len(stmts) - 1))
        return I.Body(tuple(out), t)

    def stmt(self, s, scope: _Scope, fn: _Fn, tail: bool):
        if isinstance(s, A.Assign):
            value = self.expr(s.value, scope, fn, tail=False)
            v = self.new_var(s.name, self.ty(s), s.name_span, fn)
            scope.names[s.name] = v
            return I.Let(v, value, s.span)
        if isinstance(s, A.Return):
            if fn.is_block:
                fn.returns = True
                return I.Return(self.expr(s.value, scope, fn, tail=False), True, s.span)
            return I.Return(self.expr(s.value, scope, fn, tail=True), False, s.span)
        return self.expr(s, scope, fn, tail)

    # ---- expressions
    def ref(self, v: I.Var, span, fn: _Fn) -> I.Ref:
        fn.used.append(v)
        return I.Ref(v, v.type, span)

    def expr(self, e, scope: _Scope, fn: _Fn, tail: bool):
        shaped = self.grain_shapes.get(id(e))
        if shaped is not None and shaped[0] is e:
            # `Grain for: C initial: e`: e passes through `GrainRef shape: '...' of: e` (lp/types/grain_shapes.py)
            inner = self.plain_expr(e, scope, fn, False)
            return I.Send(I.ClassRef("GrainRef", I.Ty("GrainRef class"), e.span), "shape:of:",
                          (I.Const("string", shaped[1], I.Ty("String"), e.span), inner), inner.type, e.span, tail)
        return self.plain_expr(e, scope, fn, tail)

    def plain_expr(self, e, scope: _Scope, fn: _Fn, tail: bool):
        t = self.ty(e)
        if isinstance(e, A.IntLit):
            return I.Const("int", e.value, t, e.span)
        if isinstance(e, A.FloatLit):
            return I.Const("float", e.value, t, e.span)
        if isinstance(e, A.StrLit):
            return I.Const("string", e.value, t, e.span)
        if isinstance(e, A.CharLit):
            return I.Const("char", e.value, t, e.span)
        if isinstance(e, A.SymLit):
            return I.Const("symbol", e.name, t, e.span)
        if isinstance(e, A.LitArray):
            return self.lit_array(e, t)
        if isinstance(e, A.Name):
            return self.name(e, scope, fn, t)
        if isinstance(e, A.Send):
            return self.send(e, scope, fn, tail, t)
        if isinstance(e, A.Cascade):
            return self.cascade(e, scope, fn, tail, t)
        if isinstance(e, A.Sequence):
            return I.Seq(self.body(e.body, _Scope(scope, fn), fn, tail, t), t, e.span)
        if isinstance(e, A.Block):
            return self.closure(e, scope, fn, t)
        if isinstance(e, A.BraceArray):
            return I.MakeArray(tuple(self.expr(x, scope, fn, False) for x in e.items), t, e.span)
        if isinstance(e, A.Record):
            return I.MakeRecord(tuple(f.name for f in e.fields),
                                tuple(self.expr(f.value, scope, fn, False) for f in e.fields), t, e.span)
        if isinstance(e, A.DispatchTable):
            items = []
            for en in e.entries:
                k = self.expr(en.key, scope, fn, False)
                h = self.expr(en.handler, scope, fn, False)
                items.append(I.Send(k, "->", (h,), self.ty(en), en.span))
            return I.MakeArray(tuple(items), t, e.span)
        if isinstance(e, (A.Assign, A.Return)):
            return self.stmt(e, scope, fn, tail)
        raise ValueError(f"cannot build IR for {type(e).__name__}")

    def lit_array(self, e: A.LitArray, t: I.Ty) -> I.Const:
        items = []
        for x in e.items:
            xt = self.ty(x)
            if isinstance(x, A.LitArray):
                items.append(self.lit_array(x, xt))
            elif isinstance(x, A.Name):
                kind = "nil" if x.name == "nil" else "bool"
                items.append(I.Const(kind, {"true": True, "false": False, "nil": None}[x.name], xt, x.span))
            else:
                kind = {A.IntLit: "int", A.FloatLit: "float", A.StrLit: "string", A.CharLit: "char",
                        A.SymLit: "symbol"}[type(x)]
                items.append(I.Const(kind, x.name if isinstance(x, A.SymLit) else x.value, xt, x.span))
        return I.Const("array", tuple(items), t, e.span)

    def name(self, e: A.Name, scope: _Scope, fn: _Fn, t: I.Ty):
        n = e.name
        if n == "nil":
            return I.Const("nil", None, t, e.span)
        if n in ("true", "false"):
            return I.Const("bool", n == "true", t, e.span)
        v = scope.lookup("self" if n == "super" else n)
        if v is not None:
            return self.ref(v, e.span, fn)
        return I.ClassRef(n, t, e.span)

    def closure(self, b: A.Block, scope: _Scope, fn: _Fn, t: I.Ty) -> I.Closure:
        inner = _Fn(f"[] in {fn.name}", True, fn.cls)
        bscope = _Scope(scope, inner)
        params = []
        for p in b.params:
            v = self.new_var(p.name, self.ty(p), p.span, inner)
            bscope.names[p.name] = v
            params.append(v)
        result = t.args[-1] if t.name == "Block" and t.args else I.UNKNOWN
        body = self.body(b.body, bscope, inner, True, result)
        captures, seen = [], set()
        for v in inner.used:
            if v.id not in inner.defined and v.id not in seen:
                seen.add(v.id)
                captures.append(v)
        fn.used.extend(captures)
        if inner.returns:
            fn.returns = True
        return I.Closure(tuple(params), body, tuple(captures), t, b.span, inner.returns, inner.name)

    def cascade(self, e: A.Cascade, scope: _Scope, fn: _Fn, tail: bool, t: I.Ty):
        recv = self.expr(e.receiver, scope, fn, False)
        tmp = self.new_var("cascade", recv.type, e.receiver.span, fn)
        stmts = [I.Let(tmp, recv, e.span)]
        for i, chain in enumerate(e.parts):
            cur = self.ref(tmp, e.receiver.span, fn)
            for j, m in enumerate(chain):
                args = tuple(self.expr(a, scope, fn, False) for a in m.args)
                last = i == len(e.parts) - 1 and j == len(chain) - 1
                cur = I.Send(cur, m.selector, args, self.ty(m), m.span, tail and last)
            stmts.append(cur)
        return I.Seq(I.Body(tuple(stmts), t), t, e.span)

    def send(self, e: A.Send, scope: _Scope, fn: _Fn, tail: bool, t: I.Ty):
        sel = e.selector
        rt = self.ty(e.receiver)
        if sel in _IF and rt.name == "Boolean" and all(_block(a, 0) for a in e.args):
            parts = dict(zip(A.keyword_parts(sel), e.args))
            one = len(e.args) == 1
            branch_tail = tail and not one
            cond = self.expr(e.receiver, scope, fn, False)
            then_b = parts.get("ifTrue:")
            else_b = parts.get("ifFalse:")
            tb = self.body(then_b.body, _Scope(scope, fn), fn, branch_tail, self.ty(then_b)) if then_b else None
            eb = self.body(else_b.body, _Scope(scope, fn), fn, branch_tail, self.ty(else_b)) if else_b else None
            return I.If(cond, tb, eb, one, t, e.span, tail)
        if sel in ("and:", "or:") and rt.name == "Boolean" and _block(e.args[0], 0):
            left = self.expr(e.receiver, scope, fn, False)
            right = self.body(e.args[0].body, _Scope(scope, fn), fn, tail, self.ty(e.args[0]))
            return I.AndOr(sel[:-1], left, right, t, e.span, tail)
        if sel == "to:do:" and rt.name == "Integer" and self.ty(e.args[0]).name == "Integer" \
                and _block(e.args[1], 1):
            start = self.expr(e.receiver, scope, fn, False)
            stop = self.expr(e.args[0], scope, fn, False)
            blk = e.args[1]
            inner = _Scope(scope, fn)
            v = self.new_var(blk.params[0].name, I.Ty("Integer"), blk.params[0].span, fn)
            inner.names[v.name] = v
            return I.Loop("to:do:", start, stop, v, self.body(blk.body, inner, fn, False, I.UNKNOWN), t, e.span)
        if sel == "timesRepeat:" and rt.name == "Integer" and _block(e.args[0], 0):
            n = self.expr(e.receiver, scope, fn, False)
            one = I.Const("int", 1, I.Ty("Integer"), e.span)
            body = self.body(e.args[0].body, _Scope(scope, fn), fn, False, I.UNKNOWN)
            return I.Loop("timesRepeat:", one, n, None, body, t, e.span)
        if sel == "receive" or (sel in ("receive:", "receive:after:do:") and _table(e.args[0])
                                and (sel == "receive:" or _block(e.args[2], 0))):
            return self.receive(e, scope, fn, tail, t)
        recv = self.expr(e.receiver, scope, fn, False)
        args = tuple(self.expr(a, scope, fn, False) for a in e.args)
        sup = fn.cls if isinstance(e.receiver, A.Name) and e.receiver.name == "super" else None
        if _proxied_call(rt, sel) or (recv.type.name == "Dynamic" and recv.type.var is None):
            # decoded from another process's answer, or what a Dynamic value answers: Dynamic too
            t = I.Ty("Dynamic")
        return I.Send(recv, sel, args, t, e.span, tail, sup)

    def receive(self, e: A.Send, scope: _Scope, fn: _Fn, tail: bool, t: I.Ty) -> I.Receive:
        me = self.expr(e.receiver, scope, fn, False)
        if e.selector == "receive":
            return I.Receive(me, (), None, None, t, e.span, tail)
        entries, first = [], []
        for en in e.args[0].entries:
            if isinstance(en.key, A.Name) and en.key.name[:1].isupper() and scope.lookup(en.key.name) is None:
                key = en.key.name
            else:
                key = self.expr(en.key, scope, fn, False)
            blk = en.handler
            if not isinstance(blk, A.Block):
                entries.append(self.handler_value(key, blk, scope, fn, tail, first))
                continue
            inner = _Scope(scope, fn)
            v = None
            if blk.params:
                v = self.new_var(blk.params[0].name, self.ty(blk.params[0]), blk.params[0].span, fn)
                inner.names[v.name] = v
            entries.append((key, v, self.body(blk.body, inner, fn, tail, self.ty(blk))))
        tmo = on_tmo = None
        if e.selector == "receive:after:do:":
            tmo = self.expr(e.args[1], scope, fn, False)
            on_tmo = self.body(e.args[2].body, _Scope(scope, fn), fn, tail, self.ty(e.args[2]))
        rec = I.Receive(me, tuple(entries), tmo, on_tmo, t, e.span, tail)
        return I.Seq(I.Body((*first, rec), t), t, e.span) if first else rec

    def handler_value(self, key, handler, scope: _Scope, fn: _Fn, tail: bool, first: list):
        """An entry whose handler is a block value (`Integer -> h`): the value is taken before the
        wait, as `lp run` evaluates the table, and the entry's body runs it on the message."""
        ht = self.ty(handler)
        blk = self.new_var("handler", ht, handler.span, fn)
        first.append(I.Let(blk, self.expr(handler, scope, fn, False), handler.span))
        result = ht.args[-1] if ht.name == "Block" and ht.args else I.UNKNOWN
        v = self.new_var("message", ht.args[0] if ht.name == "Block" and ht.args else I.UNKNOWN, handler.span, fn)
        run = I.Send(self.ref(blk, handler.span, fn), "value:", (self.ref(v, handler.span, fn),), result,
                     handler.span, tail)
        return key, v, I.Body((run,), result)


def _block(node, nparams: int) -> bool:
    return isinstance(node, A.Block) and len(node.params) == nparams


def _table(node) -> bool:
    return isinstance(node, A.DispatchTable) and all(
        not isinstance(t.handler, A.Block) or len(t.handler.params) <= 1 for t in node.entries)


def build_program(main: A.Program, imports, check_result) -> I.Program:
    modules = []
    for m in [*imports, main]:
        if isinstance(m, A.Program) and not any(m is x for x in modules):
            modules.append(m)
    return Builder(check_result.types, check_result.grain_shapes).program(modules, main)
