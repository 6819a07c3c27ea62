"""Ops and result handlers of reliable calls in the checker (docs/reliable.md, "Typed ops").

`Step none call: 'Stock/main' op: #take: input: s then: #taken: for: r` names two methods by
Symbol: the op, a method of the class the literal address names (the part before `/`), which the
callee runs on a `Run`; and the result handler, a method of the calling grain's class (the class of
the method the send is in), run on a `ReliableCall`. Both must be literal Symbols, so that the
checker types each as the send it stands for (`aStock take: aRun`, `self taken: aCall`, each
answering a `Step`), with a caret on the Symbol. An address that is not a literal leaves the op's
class open: some grain class of the program must have the op, and it is typed in every class that
has it. A method of the kernel (ReliableHandler's) is no op and no result handler. `node root: 'Shop/web' op: #order:
input: s id: i` is checked the same way. The library's own sends (stdlib/reliable.lp) pass the
Symbols along and are not checked again.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import problems as P
from lp.types.errors import did_you_mean
from lp.types.terms import TCon, prune

LIBRARY = "stdlib/reliable.lp"
HANDLER = "ReliableHandler"
# selector -> (receiver class, index of the address, of the op, of the result handler or None)
SENDS = {
    "call:op:input:then:for:": ("Step", 0, 1, 3),
    "call:op:input:then:memo:for:": ("Step", 0, 1, 3),
    "after:call:op:input:then:for:": ("Step", 1, 2, 4),
    "after:call:op:input:then:memo:for:": ("Step", 1, 2, 4),
    "root:op:input:id:": ("ReliableNode", 0, 1, None),
}


def named_selectors(n) -> list[str]:
    """The selectors a reliable send names by Symbol (the checker's method graph counts them as sends)."""
    spec = SENDS.get(getattr(n, "selector", None))
    if spec is None:
        return []
    return [n.args[i].name for i in spec[2:] if i is not None and type(n.args[i]) is A.SymLit]


def _grain_classes(ck) -> list[str]:
    return [name for name, c in ck.table.classes.items() if name != HANDLER and ck.table.is_ancestor(HANDLER, name)]


def _has(ck, cname, sel) -> bool:
    return any(sel in c.methods for c in ck.table.chain(cname) if c.name != HANDLER and not c.builtin)


def _kernel(ck, sel) -> bool:
    """`sel` names a method of the kernel (ReliableHandler's, inherited or not, or one named kernel...), which
    the kernel refuses as an op or a handler at run time too."""
    return sel.startswith("kernel") or any(sel in c.methods for c in ck.table.chain(HANDLER))


def _check(ck, cname, sym, role, arg_class):
    """`cname` has the one-argument method `sym` names, taking an `arg_class` and answering a Step."""
    sel = sym.name
    if _kernel(ck, sel):
        ck.report(P.ReliableKernelMethod(role, sel, sym.span))
        return
    near = did_you_mean(sel, sorted({s for c in ck.table.chain(cname) if c.name != HANDLER and not c.builtin
                                     for s in c.methods if s.count(":") == 1 and s.endswith(":")}))
    if not (sel.endswith(":") and sel.count(":") == 1) or not _has(ck, cname, sel):
        ck.report(P.ReliableUnknownMethod(role, sel, cname, near, sym.span))
        return
    answer = ck.send(ck.table.instance_type(cname, level=ck.level), sel,
                     [ck.table.instance_type(arg_class, level=ck.level)], sym, ck.new_proto(), False, arg_nodes=(sym,))
    step = ck.table.instance_type("Step", level=ck.level)   # Step is generic in a program that leaves its fields open
    clash = ck.unify(step, answer)
    if clash:
        ck.report(P.Mismatch("reliable handler", (role, sel), clash, sym.span, TCon("Step"), answer))


def _op(ck, n, to, sym):
    if type(to) is A.StrLit:
        if "/" not in to.value:
            ck.report(P.ReliableBadAddress(to.span))
            return
        cname = to.value.split("/", 1)[0]
        if cname not in _grain_classes(ck):
            ck.report(P.ReliableUnknownClass(cname, did_you_mean(cname, _grain_classes(ck)), to.span))
            return
        _check(ck, cname, sym, "op", "Run")
        return
    owners = [c for c in _grain_classes(ck) if _has(ck, c, sym.name)]
    if _kernel(ck, sym.name):
        ck.report(P.ReliableKernelMethod("op", sym.name, sym.span))
        return
    if not owners:
        ck.report(P.ReliableUnknownMethod("op", sym.name, "any reliable grain class", None, sym.span))
    for cname in owners:
        _check(ck, cname, sym, "op", "Run")


def form(ck, n, scope, cx, discard):
    recv_class, to_i, op_i, then_i = SENDS[n.selector]
    if type(n.receiver) is A.Name and n.receiver.name == "super":
        return None
    rt = ck.infer(n.receiver, scope, cx)
    r = prune(rt)
    ats = [ck.block_arg(a, scope, cx, False) for a in n.args]
    if type(r) is TCon and r.name == recv_class and HANDLER in ck.table.classes and n.span.file != LIBRARY:
        for i, role in ((op_i, "op"), (then_i, "result handler")):
            if i is not None and type(n.args[i]) is not A.SymLit:
                ck.report(P.ReliableNotLiteral(role, n.args[i].span))
        op = n.args[op_i]
        if type(op) is A.SymLit:
            _op(ck, n, n.args[to_i], op)
        then = n.args[then_i] if then_i is not None else None
        if type(then) is A.SymLit:
            if cx.cls is None or cx.class_side or cx.cls.name not in _grain_classes(ck):
                ck.report(P.ReliableUnknownMethod("result handler", then.name,
                                                  "the calling class (a reliable grain class)", None, then.span))
            else:
                _check(ck, cx.cls.name, then, "result handler", "ReliableCall")
    return ck.send(rt, n.selector, ats, n, cx.actor, discard, arg_nodes=n.args)


def register(parts):
    for sel in SENDS:
        parts.forms[sel] = form
