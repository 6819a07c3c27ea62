"""Deferred constraints: typing work that waits until a variable's class is known.

Each constraint watches one variable. When that variable is bound to a
constructor (or to poison / Dynamic) the constraint fires and does the typing
it postponed. A generalised variable keeps its constraints, and instantiation
copies them, so a generic method `double: x = x + x` carries "x understands +"
to every call site (the row-polymorphic part of the design).
"""
from __future__ import annotations

from lp.types.terms import GENERIC, TCon, TProto, prune


class Send:
    """`recv sel args` where recv's class was unknown when the send was checked."""
    __slots__ = ("recv", "selector", "args", "result", "actor", "node", "arg_nodes", "discard")

    def __init__(self, recv, selector, args, result, actor, node, arg_nodes, discard):
        self.recv, self.selector, self.args, self.result = recv, selector, args, result
        self.actor, self.node, self.arg_nodes, self.discard = actor, node, arg_nodes, discard

    def types(self):
        # The current actor is left out on purpose: a deferred send must not pin the
        # method's actor protocol to the level of the variable it waits on.
        return [self.recv, self.result, *self.args]

    def copy(self, f):
        return Send(f(self.recv), self.selector, [f(a) for a in self.args], f(self.result), f(self.actor),
                    self.node, self.arg_nodes, self.discard)

    def fire(self, ck):
        actor = prune(self.actor)
        if actor.level == GENERIC:
            # The variable waited on is not generic (a field's type, say) but the method's actor is:
            # the send runs in every actor that calls the method, so it is typed once per instance
            # of that protocol, those made so far and those later calls make (unify.Instantiator).
            self.reach(ck, actor)
            return
        self.fire_in(ck, actor)

    def fire_in(self, ck, actor, instance=False):
        args = [runner_copy(ck, a, actor) for a in self.args] if instance else self.args
        t = ck.send(prune(self.recv), self.selector, args, self.node, actor, self.discard,
                    arg_nodes=self.arg_nodes, deferred=True)
        ck.unify_result(self.result, t, self.node)

    def reach(self, ck, proto):
        if self in proto.late:
            return
        proto.late.append(self)
        for c in proto.copies:
            r = prune(c)
            if r.level == GENERIC:
                self.reach(ck, r)
            else:
                ck.queue.append(self.run_in(r))

    def run_in(self, actor):
        return _SendIn(self, actor)


class ProxySend(Send):
    """A send to a `GrainRef[c]` or `Remote[c]` (recv) waiting for c (lp/types/proxies.py), then typed
    through the proxy. It types the proxied object's method, so it does not make a field holding c
    one type per program (generics.generic_fields) as a send to the field's own value does."""
    __slots__ = ()

    def copy(self, f):
        return ProxySend(f(self.recv), self.selector, [f(a) for a in self.args], f(self.result), f(self.actor),
                         self.node, self.arg_nodes, self.discard)


class _SendIn:
    """A deferred send to type in one given actor (an instance of a generic method's protocol)."""
    __slots__ = ("send", "actor")

    def __init__(self, send, actor):
        self.send, self.actor = send, actor

    def fire(self, ck):
        actor = prune(self.actor)
        if actor.level == GENERIC:
            self.send.reach(ck, actor)
        else:
            self.send.fire_in(ck, actor, instance=True)


class OuterSend:
    """A send to a variable of an enclosing scope (a field's type, say) made in a method, mentioning
    the method's own variables (`P >> add: y = self x + y`). Those variables stay generalisable: the
    send is watched on the outer variable (`Outer`) and marked on the method's variables (`Mark`), so
    each instantiation of the method's scheme makes its own copy (unify.Instantiator: `add: 3` and
    `add: 2.5` each get theirs). Until the method is generalised the send is an ordinary one (`done`
    once it fired so); after, it is a template whose firing types a fresh instance."""
    __slots__ = ("send", "done", "level")

    def __init__(self, send, level):
        self.send, self.done, self.level = send, False, level   # level: the outer variable's

    def inner(self):
        """The send's types but its receiver (which is the outer variable's)."""
        return self.send.types()[1:]


class _OuterNote:
    """An `OuterSend` noted on a variable. It shows no types: walking them (adjust, occurs) would
    pull the method's generic variables down to the outer variable's level."""
    __slots__ = ("outer",)

    def __init__(self, outer):
        self.outer = outer

    def types(self):
        return []

    def copy(self, f):
        return self


class Outer(_OuterNote):
    """The note on the outer variable the send waits on: it types the send when that is bound."""
    __slots__ = ()

    def fire(self, ck):
        o = self.outer
        if o.done:
            return
        if any(is_generic_type(t) for t in o.inner()):
            ck.queue.append(ck.instance_of_outer(o))
            return
        o.done = True
        o.send.fire(ck)


class Mark(_OuterNote):
    """The note on one of the method's own variables, for generalisation and instantiation to find
    (unify.generalize, unify.Instantiator); it types nothing itself."""
    __slots__ = ()

    def fire(self, ck):
        ck.mark_outer(self.outer)     # the variable got bound: mark the variables it was bound to


def is_generic_type(t):
    from lp.types.unify import is_generic
    return is_generic(t)


def runner_copy(ck, t, actor):
    """A block argument of a send typed once per caller's actor (`Send.reach`): the block may run in
    that actor, so its runner must not be one protocol shared by every caller (which would merge all
    their protocols into one, so a message only one of them receives passes for all). Each instance
    gets the block with the instance as its runner, and what the block's body did with its own
    `Actor self` (receives, sends to it) copied into the instance."""
    b = prune(t)
    if type(b) is not TCon or b.name != "Block" or b.ctx is None:
        return t
    runner = prune(b.ctx)
    if type(runner) is not TProto or runner is prune(actor):
        return t
    n = TCon("Block", b.args, b.why)
    n.ctx = clone_protocol(ck, runner)
    for req in runner.requires:   # checked in each instance, against that actor's receives
        req.done = True
    return n


def clone_protocol(ck, p):
    """A protocol with what p accepts and requires, not linked to p."""
    n = TProto(p.level)
    n.accepts = dict(p.accepts)
    n.lits = {k: dict(v) for k, v in p.lits.items()}
    n.computed = list(p.computed)
    n.plain = p.plain
    n.plain_sites = list(p.plain_sites)
    n.asked = p.asked
    n.requires = [ck.copy_require(r, lambda x: x) for r in p.requires]
    n.origins = p.origins
    n.opaque = p.opaque
    n.owner_checks = list(p.owner_checks)
    n.why = p.why
    ck.protocols.append(n)
    return n


class Numeric:
    """The argument of an arithmetic operator on a known number: its class picks the result."""
    __slots__ = ("arg", "result", "op", "recv_name", "node", "arg_node")

    def __init__(self, arg, result, op, recv_name, node, arg_node):
        self.arg, self.result, self.op, self.recv_name, self.node, self.arg_node = \
            arg, result, op, recv_name, node, arg_node

    def types(self):
        return [self.arg, self.result]

    def copy(self, f):
        return Numeric(f(self.arg), f(self.result), self.op, self.recv_name, self.node, self.arg_node)

    def fire(self, ck):
        ck.parts.numeric(ck, self.recv_name, self.op, prune(self.arg), self.result, self.node, self.arg_node)


class Ask:
    """`target ask: msg` where msg's class decides the reply type."""
    __slots__ = ("msg", "proto", "result", "node")

    def __init__(self, msg, proto, result, node):
        self.msg, self.proto, self.result, self.node = msg, proto, result, node

    def types(self):
        return [self.msg, self.proto, self.result]

    def copy(self, f):
        return Ask(f(self.msg), f(self.proto), f(self.result), self.node)

    def fire(self, ck):
        ck.parts.ask(ck, prune(self.msg), self.proto, self.result, self.node)


class With:
    """`obj with: { field: value }` where obj's class was not known yet."""
    __slots__ = ("recv", "fields", "node", "result")

    def __init__(self, recv, fields, node, result):
        self.recv, self.fields, self.node, self.result = recv, fields, node, result

    def types(self):
        return [self.recv, *(t for _, t, _ in self.fields), self.result]

    def copy(self, f):
        return With(f(self.recv), [(n, f(t), s) for n, t, s in self.fields], self.node, f(self.result))

    def fire(self, ck):
        ck.unify_result(self.result, ck.parts.with_fields(ck, prune(self.recv), self.fields, self.node), self.node)


class Check:
    """A check that waits for the class of `tys[0]`: the part named (`check_reason`, `check_element`,
    `error_class`, `grain_answer`: lp/types/parts.py) runs with that type pruned, the
    other types, then the fixed arguments (a selector, the node to report at)."""
    __slots__ = ("part", "tys", "fixed")

    def __init__(self, part, tys, *fixed):
        self.part, self.tys, self.fixed = part, tys, fixed

    def types(self):
        return list(self.tys)

    def copy(self, f):
        return Check(self.part, [f(t) for t in self.tys], *self.fixed)

    def fire(self, ck):
        getattr(ck.parts, self.part)(ck, prune(self.tys[0]), *self.tys[1:], *self.fixed)


class Lazy:
    """A generic variable's constraint as an instantiation copied it, the copy not made yet.

    Along a chain of methods each calling the next with a deferred send (`m0: x = U m1: x + 1.`)
    every scheme carries the sends of the whole rest of the chain; copying them at each call site
    made checking quadratic (hostile report 2, finding 37). A `Lazy` stands for `base` copied
    through `chain` (unify.Cell: the instantiations it went through, innermost first) and makes
    the copy when something needs it (it fires, a walk looks inside it). Until then `level` is the
    level its fresh variables get: `adjust` lowers it, `generalize` makes it generic."""
    __slots__ = ("base", "chain", "level", "done")

    def __init__(self, base, chain, level):
        self.base, self.chain, self.level, self.done = base, chain, level, None

    def force(self):
        if self.done is None:
            level, chain = self.level, self.chain
            self.done = self.base.copy(lambda t: chain.apply(t, level))
        return self.done

    def types(self):
        return self.force().types()

    def fire(self, ck):
        self.force().fire(ck)
