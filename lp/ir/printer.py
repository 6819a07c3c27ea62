"""A readable text form of the typed IR, for debugging (`lp ir FILE`).

Each expression is printed with its type after a colon; `tail` marks sends in
tail position, `captures` a closure's captured variables, `v<id>` a Var.
"""
from __future__ import annotations

from lp.ir import nodes as I


def var(v: I.Var) -> str:
    return f"{v.name}.{v.id}"


class _Printer:
    def __init__(self):
        self.lines: list[str] = []

    def out(self, depth: int, text: str):
        self.lines.append("  " * depth + text)

    def body(self, b: I.Body, d: int):
        if not b.stmts:
            self.out(d, "nil")
        for s in b.stmts:
            self.stmt(s, d)

    def stmt(self, s, d: int):
        if isinstance(s, I.Let):
            self.out(d, f"let {var(s.var)} : {s.var.type} =")
            self.expr(s.value, d + 1)
        elif isinstance(s, I.Return):
            self.out(d, "return^ (non-local)" if s.nonlocal_ else "return")
            self.expr(s.value, d + 1)
        else:
            self.expr(s, d)

    def expr(self, e, d: int):
        t = f" : {e.type}"
        if isinstance(e, I.Const):
            if e.kind == "array":
                self.out(d, f"#({' '.join(repr(c.value) for c in e.value)}){t}")
            else:
                self.out(d, f"{e.kind} {e.value!r}{t}")
        elif isinstance(e, I.Ref):
            self.out(d, f"{var(e.var)}{t}")
        elif isinstance(e, I.ClassRef):
            self.out(d, f"class {e.name}{t}")
        elif isinstance(e, I.Send):
            flags = (" tail" if e.tail else "") + (f" super-from {e.super_from}" if e.super_from else "")
            self.out(d, f"send #{e.selector}{flags}{t}  @{e.span}")
            self.expr(e.receiver, d + 1)
            for a in e.args:
                self.expr(a, d + 1)
        elif isinstance(e, I.Closure):
            ps = " ".join(":" + var(p) for p in e.params)
            caps = ", ".join(var(c) for c in e.captures)
            self.out(d, f"block [{ps}] captures ({caps}){' returns^' if e.returns else ''}{t}")
            self.body(e.body, d + 1)
        elif isinstance(e, I.If):
            self.out(d, f"if{' (one branch: nil)' if e.one_branch else ''}{' tail' if e.tail else ''}{t}")
            self.expr(e.cond, d + 1)
            for label, b in (("then", e.then), ("else", e.else_)):
                if b is not None:
                    self.out(d + 1, label + ":")
                    self.body(b, d + 2)
        elif isinstance(e, I.AndOr):
            self.out(d, f"{e.op}{t}")
            self.expr(e.left, d + 1)
            self.body(e.right, d + 1)
        elif isinstance(e, I.Loop):
            v = f" {var(e.var)}" if e.var else ""
            self.out(d, f"loop {e.kind}{v}{t}")
            self.expr(e.start, d + 1)
            self.expr(e.stop, d + 1)
            self.out(d + 1, "do:")
            self.body(e.body, d + 2)
        elif isinstance(e, I.Seq):
            self.out(d, f"seq{t}")
            self.body(e.body, d + 1)
        elif isinstance(e, I.MakeArray):
            self.out(d, f"array{t}")
            for x in e.items:
                self.expr(x, d + 1)
        elif isinstance(e, I.MakeRecord):
            self.out(d, f"record ({' '.join(e.names)}){t}")
            for x in e.values:
                self.expr(x, d + 1)
        elif isinstance(e, I.Receive):
            self.out(d, f"receive{' tail' if e.tail else ''}{t}")
            self.expr(e.actor, d + 1)
            for key, v, b in e.entries:
                k = key if isinstance(key, str) else f"{key.kind} {key.value!r}"
                self.out(d + 1, f"{k} -> [{':' + var(v) if v else ''}]")
                self.body(b, d + 2)
            if e.timeout is not None:
                self.out(d + 1, "after:")
                self.expr(e.timeout, d + 2)
                self.body(e.on_timeout, d + 2)
        else:
            self.out(d, f"<{type(e).__name__}>")


def format_method(m: I.MethodDef) -> str:
    p = _Printer()
    params = " ".join(var(v) + " : " + str(v.type) for v in m.params)
    p.out(0, f"method {m.name} ({var(m.self_var)} : {m.self_var.type}{', ' + params if params else ''})"
             f" -> {m.type}{' [home of ^]' if m.returns else ''}")
    p.body(m.body, 1)
    return "\n".join(p.lines)


def format_program(prog: I.Program, user_only: bool = True) -> str:
    """The program's user classes and methods and its main body (the core library's when not user_only)."""
    out = []
    for c in prog.classes.values():
        if not (user_only and c.builtin):
            out.append(f"class {c.name} < {c.superclass} fields ({' '.join(c.fields)})")
    for m in prog.methods.values():
        if not user_only or m.span.file == prog.file:
            out.append(format_method(m))
    p = _Printer()
    p.out(0, f"main ({var(prog.main_self)})")
    p.body(prog.main, 1)
    out.append("\n".join(p.lines))
    return "\n".join(out) + "\n"
