"""Last uses (Perceus): which reads of a variable are the last on their path, so the code
generator can move the value instead of `dup`ing it and dropping the binding later.

A backward pass over one function body in evaluation order, keeping the set of variables
used later. A read is a last use when its variable is not in that set. Branches are
analysed separately and joined; a loop body's reads of variables bound outside it are
never last (the body runs again); a receive's handlers are branches; `^` and tail calls end
the path. Sockets are never moved
(HELD). A closure's captures
count as reads where the closure is made; its body is another function.
"""
from __future__ import annotations

from lp.ir import nodes as I

# A binding of a socket is never moved: it lives (and its socket stays open) until its scope
# ends, as in the interpreter, where a listener nobody accepts on yet still queues connections.
HELD = {"TCPListener", "TCPSocket", "UDPSocket", "WebSocket"}


class LastUses:
    def __init__(self):
        self.last: set = set()     # id(Ref) and (id(Closure), var id) that may move

    def function(self, body: I.Body) -> "LastUses":
        self.body(body, set())
        return self

    def body(self, b: I.Body | None, live: set) -> set:
        if b is None:
            return live
        for s in reversed(b.stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live: set) -> set:
        if isinstance(s, I.Let):
            return self.expr(s.value, live)
        if isinstance(s, I.Return):
            return self.expr(s.value, set())
        return self.expr(s, live)

    def use(self, key, var: I.Var, live: set) -> set:
        if var.type.known and var.type.name in HELD:
            return live | {var.id}
        if var.id not in live:
            self.last.add(key)
            live = live | {var.id}
        return live

    def exprs(self, xs, live: set) -> set:
        for x in reversed(xs):
            live = self.expr(x, live)
        return live

    def expr(self, e, live: set) -> set:
        if isinstance(e, I.Ref):
            return self.use(id(e), e.var, live)
        if isinstance(e, I.Send):
            return self.exprs([e.receiver, *e.args], live)
        if isinstance(e, I.Closure):
            for v in reversed(e.captures):
                live = self.use((id(e), v.id), v, live)
            return live
        if isinstance(e, I.If):
            t = self.body(e.then, set(live))
            f = self.body(e.else_, set(live))
            return self.expr(e.cond, t | f)
        if isinstance(e, I.AndOr):
            r = self.body(e.right, set(live))
            return self.expr(e.left, live | r)
        if isinstance(e, I.Loop):
            inner = _reads(e.body)
            self.body(e.body, live | inner)
            return self.exprs([e.start, e.stop], live | inner)
        if isinstance(e, I.Seq):
            return self.body(e.body, live)
        if isinstance(e, I.MakeArray):
            return self.exprs(list(e.items), live)
        if isinstance(e, I.MakeRecord):
            return self.exprs(list(e.values), live)
        if isinstance(e, I.Receive):
            # the actor, the keys and the timeout are evaluated first; then one handler (or the
            # timeout's body) runs, each a branch like an If's
            arms = [self.body(b, set(live)) for _, _, b in e.entries]
            if e.on_timeout is not None:
                arms.append(self.body(e.on_timeout, set(live)))
            live = live.union(*arms)
            if e.timeout is not None:
                live = self.expr(e.timeout, live)
            live = self.exprs([k for k, _, _ in e.entries if not isinstance(k, str)], live)
            return self.expr(e.actor, live)
        return live


def _reads(b: I.Body) -> set:
    out: set = set()
    for s in b.stmts:
        out |= reads_expr(s)
    return out


def reads_expr(e) -> set:
    """Every variable read anywhere inside e (closures: their captures)."""
    out, todo = set(), [e]
    while todo:
        x = todo.pop()
        if isinstance(x, I.Ref):
            out.add(x.var.id)
        elif isinstance(x, I.Closure):
            out |= {v.id for v in x.captures}
        elif isinstance(x, I.Body):
            todo.extend(x.stmts)
        elif isinstance(x, (I.Let, I.Return)):
            todo.append(x.value)
        elif isinstance(x, I.Send):
            todo.extend([x.receiver, *x.args])
        elif isinstance(x, I.If):
            todo.extend([x.cond, *(b for b in (x.then, x.else_) if b is not None)])
        elif isinstance(x, I.AndOr):
            todo.extend([x.left, x.right])
        elif isinstance(x, I.Loop):
            todo.extend([x.start, x.stop, x.body])
        elif isinstance(x, I.Seq):
            todo.append(x.body)
        elif isinstance(x, I.MakeArray):
            todo.extend(x.items)
        elif isinstance(x, I.MakeRecord):
            todo.extend(x.values)
        elif isinstance(x, I.Receive):
            todo.append(x.actor)
            for _, _, b in x.entries:
                todo.append(b)
            if x.timeout is not None:
                todo.extend([x.timeout, x.on_timeout])
    return out
