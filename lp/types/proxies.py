"""Proxies in the checker: `Remote[C]` (docs/network.md, "Remote") and `GrainRef[C]` (docs/grains.md).
`Remote at: url for: #Counter id: x` is `Remote[Counter]` when the class is a literal naming a class
of the program, else `Dynamic`; `(Grain for: Counter initial: c) id: 'a'` is `GrainRef[Counter]`
(stdlib/grain.lp's signatures). A send to a proxy of `Counter` is typed as the same send to a
`Counter` (its methods and fields, the program's own, never the builtin ones), except the messages
every object understands and the proxy class's own selectors, which the proxy answers itself; the
method runs in another actor (the server's or the grain owner's), so its actor context is a fresh
one, not the caller's.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import constraints as C
from lp.types import problems as P
from lp.types.generics import align
from lp.types.named_sends import performed_selector
from lp.types.errors import did_you_mean
from lp.types.library import INSTANCE_SIGS, UNIVERSAL_SIGS, parse_sig
from lp.types.terms import DYN, ERR, TCon, TVar, prune, show

PROXIES = {"Remote": "remote", "GrainRef": "grain"}   # proxy class -> the side a report names (reports.py)
GRAIN_SERVERS = ("for:initial:",)   # `Grain for: C initial: ...` and its longer forms name C
CLIENT_CLASS = "RemoteClient"   # stdlib/remote.lp, which `Import module: #Remote` brings
SERVER_CLASS = "RemoteServer"
GRAIN_CLASS = "Grain class"   # stdlib/grain.lp: `Grain for: C initial: s` and its longer forms
SIGS = {
    "at:for:id:": parse_sig("at: String for: Symbol id: a -> UndefinedObject"),
    "at:for:id:timeout:": parse_sig("at: String for: Symbol id: a timeout: Integer -> UndefinedObject"),
}


def proxied_classes(items, grains: bool = True) -> set[str]:
    """The classes some `Remote at:for:id:` or `Grain for:initial:...` names with a literal: a send
    whose receiver is unknown and whose selector only such a class understands waits for the
    receiver's type (a proxy or an instance) instead of taking the class's instance type at once.
    Without `grains`, only the Remote ones: an object in another process, whose instance type the
    program cannot see, so generics.generic_fields keeps its fields one type per program."""
    out = set()
    stack = list(items)
    while stack:
        n = stack.pop()
        if type(n) in (A.Send, A.Message):
            if n.selector in SIGS and len(n.args) > 1 and type(n.args[1]) is A.SymLit:
                out.add(n.args[1].name)
            elif grains and n.selector.startswith(GRAIN_SERVERS) and n.args and type(n.args[0]) is A.Name:
                out.add(n.args[0].name)
        stack.extend(n.children())
    return out


def remote_at(ck, cname, ats, node, actor, arg_nodes, discard):
    sel = node.selector
    ck.apply_sig(SIGS[sel], TCon("Remote class"), ats, node, arg_nodes, discard, class_side=True)
    if CLIENT_CLASS not in ck.table.classes:
        ck.report(P.RemoteNeedsModule(node.span))
    target = arg_nodes[1] if len(arg_nodes) > 1 else None
    if type(target) is not A.SymLit:
        return DYN
    info = ck.table.classes.get(target.name)
    if info is None or info.builtin:
        users = [n for n, c in ck.table.classes.items() if not c.builtin]
        ck.report(P.RemoteUnknownClass(target.name, did_you_mean(target.name, users), target.span,
                                       info is not None))
        return ERR
    inst = ck.table.instance_type(target.name, level=ck.level)
    # The object served may have any types in a generic class's parameters (another program may serve
    # it): they are Dynamic, as an answer decoded from the network is (docs/network.md).
    return TCon("Remote", (TCon(inst.name, tuple(DYN for _ in inst.args)),), node.span)


def form_instance_of(receiver, obj_arg, class_arg):
    """A form for a send that serves an object as the class another argument names (with a literal):
    `server register: obj for: #C id: x` (`Remote at:for: #C` proxies type their answers as C's) and
    `Grain for: C initial: obj ...` (the grain is reached as C). The object must be an instance of C or of
    a subclass; without a literal the run time checks it (stdlib/remote.lp, stdlib/grain.lp)."""

    def form(ck, n, scope, cx, discard):
        named = n.args[class_arg] if len(n.args) > max(obj_arg, class_arg) else None
        if type(named) is A.SymLit:
            name = named.name
        elif type(named) is A.Name and scope.lookup(named.name) is None:
            name = named.name
        else:
            return None
        info = ck.table.classes.get(name)
        if info is None or info.builtin:
            return None
        rt = ck.infer(n.receiver, scope, cx)
        ats = [ck.block_arg(a, scope, cx, False) for a in n.args]
        t = ck.send(rt, n.selector, ats, n, cx.actor, discard, arg_nodes=n.args)
        r = prune(rt)
        if type(r) is TCon and r.name == receiver:
            obj = prune(ats[obj_arg])
            obj_node = n.args[obj_arg]
            if receiver == GRAIN_CLASS:   # the state's type, for the run time's check (grain_shapes.py)
                ck.grain_states[id(obj_node)] = (obj_node, ats[obj_arg])
            if type(obj) is TVar:
                ck.unify(obj, ck.table.instance_type(name, why=named.span, level=ck.level))
            elif type(obj) is TCon and not ck.table.is_ancestor(name, obj.name):
                because = obj.why if obj.why and obj.why != obj_node.span and obj.why.line > 0 else None
                ck.report(P.ServedAsAnotherClass(show(obj), name, receiver == GRAIN_CLASS, obj_node.span, because))
        return t
    return form


def library_actor(ck, r):
    """The context of a method called through the proxy r: a fresh protocol (the library's actor runs
    it), which may not receive (actors.finish checks `ck.proxy_contexts`)."""
    p = ck.new_proto()
    ck.proxy_contexts.append((p, PROXIES[r.name]))
    return p


def proxy_send(ck, r, sel, ats, node, arg_nodes):
    """A send to a `Remote[C]` or `GrainRef[C]`: None when the proxy answers it itself."""
    if sel in UNIVERSAL_SIGS or sel in ck.table.classes["Object"].methods or not r.args \
            or sel in INSTANCE_SIGS.get(r.name, {}):
        return None
    target = prune(r.args[0])
    if type(target) is TVar:   # the class is not known yet: the send waits for it, as one to a C would
        result = ck.fresh()
        ck.watch(target, C.ProxySend(r, sel, list(ats), result, library_actor(ck, r), node, arg_nodes, False))
        return result
    if type(target) is not TCon:
        return ck.send(target, sel, ats, node, library_actor(ck, r), False, arg_nodes)
    for info in ck.table.chain(target.name):
        if info.builtin:
            break
        mi = info.methods.get(sel)
        if mi is not None:
            t = ck.call_method(mi, target, ats, node, library_actor(ck, r), arg_nodes)
            if r.name == "GrainRef":
                answer = prune(t)
                if type(answer) is TVar:
                    ck.watch(answer, C.Check("grain_answer", [answer, target], node))
                else:
                    grain_answer(ck, answer, target, node)
            return t
        if sel in info.field_types:
            return ck.field_type(info, sel, node, target)
    names = set()
    for info in ck.table.chain(target.name):
        if not info.builtin:
            names.update(info.methods)
            names.update(info.field_types)
    span = getattr(node, "selector_span", None) or node.span
    ck.report(P.NotUnderstood(show(target), sel, span, None, did_you_mean(sel, names), None, None, PROXIES[r.name],
                              show(r)))
    return ERR


def grain_answer(ck, answer, state, node):
    """A grain method's answer that is an instance of the grain's class (or of a subclass) becomes the
    grain's state (docs/grains.md), so it must have the state's type: `Box[Integer]`'s `put:` cannot
    answer a `Box[String]`."""
    state = prune(state)
    if type(answer) is not TCon or type(state) is not TCon or not ck.table.is_ancestor(state.name, answer.name):
        return
    clash = align(ck, state, answer)
    if clash:
        ck.report(P.Mismatch("grain state", (state.name,), clash, node.span, state, answer))


def performed_here(ck, node, actor, arg_nodes):
    """`Remote perform: #sel on: obj withArguments: args` runs obj's method in the calling actor. Which
    class obj has is not followed (it may be Dynamic), so every method of that name the primitive can
    run (an instance method of a class of the program) is taken as run here. A computed selector
    reaches any method: docs/types.md, "Known limits"."""
    sel = performed_selector(node)
    if sel is None:
        return
    for mi in ck.method_list:
        if mi.decl.selector == sel and not mi.class_side and not mi.cls.builtin:
            ck.run_method_in(mi, actor)
    performed_send(ck, node, sel, actor, arg_nodes)


def performed_send(ck, node, sel, actor, arg_nodes):
    """`Remote perform: #sel on: obj withArguments: { a. b }`, when obj's class is known and has a method
    `sel` taking as many arguments as are written out, makes the send `obj sel a b`: it is typed as
    that send (its answer stays Dynamic), so an argument the method cannot take is an error here.
    A selector the class has no method for, or another number of arguments, is the run time's
    RemoteError (docs/network.md)."""
    if len(arg_nodes) != 3 or type(arg_nodes[2]) not in (A.BraceArray, A.LitArray):
        return
    items = arg_nodes[2].items
    recv = ck.types.get(id(arg_nodes[1]))
    elems = [ck.types.get(id(i)) for i in items]
    if recv is None or None in elems or len(items) != _arity(sel):
        return
    r = prune(recv[1])
    if type(r) is not TCon or not any(sel in info.methods for info in ck.table.chain(r.name) if not info.builtin):
        return
    send = A.Send(arg_nodes[1], sel, tuple(items), node.span, arg_nodes[0].span)
    ck.send(r, sel, [t for _, t in elems], send, actor, True, arg_nodes=tuple(items))


def _arity(sel):
    return sel.count(":") if sel[:1].isalpha() or sel[:1] == "_" else 1


def register(parts):
    parts.runtime_messages[("Remote class", "perform:on:withArguments:")] = performed_here
    parts.forms["register:for:id:"] = form_instance_of(SERVER_CLASS, 0, 1)
    for prefix in GRAIN_SERVERS:
        parts.prefix_forms.append((prefix, form_instance_of(GRAIN_CLASS, 1, 0)))
    parts.grain_answer = grain_answer
    for sel in SIGS:
        parts.class_sends[sel] = remote_at
    parts.proxy_send = proxy_send
