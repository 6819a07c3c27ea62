"""Typed actors: spawn, send, receive (plain, table, timeout), ask/reply, and the protocol checks.

An actor reference is `Actor[p]` where p is a protocol (terms.TProto). A
receive on p records what p accepts; a send to p records what it must accept.
Protocols merge when actor types unify. Once the whole program is inferred,
`finish` checks every send against the accepts of its (merged) protocol, and
every receive against the actor whose code performs it.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import constraints as C
from lp.types import problems as P
from lp.types.errors import did_you_mean
from lp.types.generics import align, param_of, replaced
from lp.types.infer import Checker, Cx
from lp.types.terms import (ERR, GENERIC, Require, TCon, TProto, TSpecial, TVar, accepted_names,
                            literal_text, prune, show)

LITERAL_KINDS = {A.SymLit: "Symbol", A.IntLit: "Integer", A.StrLit: "String", A.CharLit: "Character"}


def literal_of(node):
    kind = LITERAL_KINDS.get(type(node))
    if kind is None:
        return None
    return kind, node.name if kind == "Symbol" else node.value


def actor_proto(ck: Checker, t, node, what):
    """The protocol of actor type t (making t an actor if it is still unknown); None for poison/Dynamic."""
    r = prune(t)
    if type(r) is TSpecial:
        return None
    want = TCon("Actor", (ck.new_proto(),))
    clash = ck.unify(want, r)
    if clash:
        ck.report(P.Mismatch("rule receiver", (what,), clash, node.span, want, r))
        return None
    return prune(prune(r).args[0])


# ---- spawn and self ----------------------------------------------------------------------------

def form_spawn(ck: Checker, n, scope, cx, discard):
    recv = n.receiver
    if not (type(recv) is A.Name and recv.name == "Actor" and scope.lookup("Actor") is None):
        return None
    ck.record(recv, TCon("Actor class"))
    body = n.args[0]
    p = ck.new_proto(why=n.span, origin=n.span)
    me = TCon("Actor", (p,), n.span)
    if type(body) is A.Block:
        if len(body.params) != 1:
            ck.report(P.SpawnArity(len(body.params), body.span))
            return TCon("Actor", (p,), n.span)
        inner = Cx(cx.cls, cx.class_side, cx.self_t, None, p, in_spawn=True)
        t = ck.i_Block(body, scope, inner, True, param_types=[me], runner=p)
        ck.record(body, t)
    else:
        t = ck.infer(body, scope, cx)
        want = TCon("Block", (me, ck.fresh()))
        clash = ck.unify(want, t)
        if clash:
            ck.report(P.Mismatch("rule argument", ("spawn:",), clash, body.span, want, t))
        ck.run_in(want, p)
    return TCon("Actor", (p,), n.span)


def class_spawn(ck, cname, ats, node, actor, arg_nodes, discard):
    p = ck.new_proto(why=node.span, origin=node.span)
    me = TCon("Actor", (p,), node.span)
    want = TCon("Block", (me, ck.fresh()))
    clash = ck.unify(want, ats[0])
    if clash:
        ck.report(P.Mismatch("rule argument", ("spawn:",), clash, arg_nodes[0].span if arg_nodes else node.span,
                             want, ats[0]))
    ck.run_in(want, p)
    return TCon("Actor", (p,), node.span)


def class_self(ck, cname, ats, node, actor, arg_nodes, discard):
    return TCon("Actor", (actor,), node.span)


# ---- send ------------------------------------------------------------------------------------

def bang(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    p = prune(recv.args[0])
    msg = ats[0]
    lit = literal_of(arg_nodes[0]) if arg_nodes else None
    add_require(ck, p, msg, node.span, lit)
    return msg


def add_require(ck, p, msg, span, lit=None):
    p = prune(p)
    ck.adjust(msg, p.level)
    p.requires.append(Require(msg, span, lit))


# ---- receive ---------------------------------------------------------------------------------

def own_check(ck, p, actor, span):
    p = prune(p)
    if p is prune(actor):
        return
    p.owner_checks.append((actor, span))
    ck.adjust(actor, p.level)


def plain_receive(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    p = prune(recv.args[0])
    own_check(ck, p, actor, node.span)
    p.plain_sites.append(node.span)
    if p.plain is None:
        p.plain = (TVar(p.level), node.span, True)
    elif not p.plain[2]:
        p.plain = (p.plain[0], node.span, True)
    return p.plain[0]


def table_receive_nonliteral(ck, recv, ats, node, actor, arg_nodes, discard):
    ck.report(P.ReceiveNeedsTable(node.selector, arg_nodes[0].span if arg_nodes else node.span))
    return ERR


def form_receive(ck: Checker, n, scope, cx, discard):
    table = n.args[0]
    if type(table) is not A.DispatchTable:
        return None
    rt = ck.infer(n.receiver, scope, cx)
    p = actor_proto(ck, rt, n.receiver, n.selector)
    if p is not None:
        own_check(ck, p, cx.actor, n.span)
    result = ck.fresh()
    first = None
    entries = []
    for e in table.entries:
        payload, tag, lit = entry_key(ck, e.key, scope, cx)
        h = e.handler
        if type(h) is A.Block:
            if len(h.params) > 1:
                ck.report(P.HandlerArity(len(h.params), h.span))
                ht = ck.i_Block(h, scope, cx, discard, runner=cx.actor)
                ck.record(h, ht)
                entries.append((tag, lit, payload, e.span))   # the key is still received: one report
                continue
            ht = ck.i_Block(h, scope, cx, discard, param_types=[payload], runner=cx.actor)
            ck.record(h, ht)
            r = ht.args[-1]
            rspan = h.body[-1].span if h.body else h.span
        else:
            ht = ck.infer(h, scope, cx)
            r = ck.fresh()
            want = TCon("Block", (payload, r))
            clash = ck.unify(want, ht)
            if clash:
                ck.report(P.Mismatch("handler", (), clash, h.span, want, ht))
            ck.run_in(want, cx.actor)
            rspan = h.span
        if not discard:
            clash = ck.unify(result, r)
            if clash:
                ck.report(P.Mismatch("handler answer", (), clash, rspan, result, r,
                                     None if ck._why_in(clash) else first))
            first = first or rspan
        entries.append((tag, lit, payload, e.span))
    if n.selector == "receive:after:do:":
        ms = ck.infer(n.args[1], scope, cx)
        clash = ck.unify(TCon("Integer"), ms)
        if clash:
            ck.report(P.Mismatch("timeout", (), clash, n.args[1].span, TCon("Integer"), ms))
        blk = n.args[2]
        bt = ck.block_arg(blk, scope, cx, discard)
        want = TCon("Block", (ck.fresh() if discard else result,))
        clash = ck.unify(want, bt)
        ck.run_in(want, cx.actor)
        if clash:
            if type(blk) is A.Block and clash.kind == "mismatch" and blk.body:
                ck.report(P.Mismatch("timeout answer", (), clash, blk.body[-1].span, result, prune(bt).args[-1]))
            else:
                ck.report(P.Mismatch("timeout block", (), clash, blk.span, want, bt))
    if p is not None:
        p = prune(p)  # inferring the handlers may have merged this protocol into another one
        for tag, lit, payload, span in entries:
            if tag is not None:
                mine = p.accepts.get(tag)
                ck.adjust(payload, p.level)
                if mine is None:
                    p.accepts[tag] = (payload, span)
                else:
                    ck.unify(mine[0], payload)
            elif lit is not None:
                p.lits.setdefault(lit[0], {}).setdefault(lit[1], span)
            else:   # a computed key; after a bad key (ERR) it takes anything, so no send is reported again
                ck.adjust(payload, p.level)
                p.computed.append((payload, span))
    return TCon("UndefinedObject", (), n.span) if discard else result


# Classes of the type system that no run-time value belongs to (reports.py says what to receive instead).
NOT_RECEIVABLE = ("Reason", "Class")


def entry_key(ck: Checker, key, scope, cx):
    """(payload type, class tag, literal) for a receive entry's key. A key that is neither a class name
    nor a literal is computed at run time: it matches a message equal to it (of its class, as a literal
    key does), so the handler takes the key's type and the actor accepts messages of that class."""
    lit = literal_of(key)
    if lit is not None:
        t = TCon(lit[0], (), key.span)
        ck.record(key, t)
        return t, None, lit
    if type(key) is A.Name and key.name[:1].isupper() and scope.lookup(key.name) is None:
        info = ck.table.get(key.name)
        if info is not None and key.name in NOT_RECEIVABLE:
            ck.report(P.UnreceivableKey(key.name, key.span))
            return ERR, None, None
        if info is not None:
            ck.record(key, TCon(key.name + " class"))
            if key.name == "Block":
                # any arity: the handler's use of the block and the messages sent decide it
                return ck.fresh(), key.name, None
            return ck.table.instance_type(key.name, why=key.span, level=ck.level), key.name, None
        ck.report(P.UnknownKeyClass(key.name, did_you_mean(key.name, ck.table.classes), key.span))
        return ERR, None, None
    if type(key) is A.Name and key.name[:1].isupper():
        # a capitalised key names a class (the run time matches instances of it), not this variable
        ck.report(P.BadReceiveKey(key.name, key.span))
        return ERR, None, None
    return ck.infer(key, scope, cx), None, None


# ---- ask ---------------------------------------------------------------------------------------

def ask_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    p = prune(recv.args[0])
    result = ck.fresh()
    m = prune(ats[0])
    if type(m) is TVar:
        ck.watch(m, C.Ask(m, p, result, node))
    else:
        ask(ck, m, p, result, node)
    return result


def ask(ck: Checker, m, p, result, node):
    if type(m) is TSpecial:
        ck.unify(result, m)
        return
    arg = node.args[0] if getattr(node, "args", None) else node
    if type(m) is not TCon or m.name.endswith(" class") or ck.table.field_owner(m.name, "reply") is None:
        info = ck.table.get(m.name) if type(m) is TCon else None
        ck.report(P.AskWithoutReply(m.name if type(m) is TCon else show(m), arg.span,
                                    info.decl.span if info is not None and info.decl else None,
                                    m.name if info is not None and not info.builtin else None))
        ck.unify(result, ERR)
        return
    owner = ck.table.field_owner(m.name, "reply")
    if param_of(ck, m, "reply") is not None:
        # the message sent is a copy of m whose reply is the future's address (generics.py)
        m = replaced(ck, ck.table.get(m.name), m, {"reply": ck.fresh()})
    rt = ck.field_type(owner, "reply", arg, m)
    rp = actor_proto(ck, rt, arg, "reply")
    add_require(ck, p, m, node.span, None)
    if rp is None:
        ck.unify(result, ERR)
        return
    if rp.asked is None:
        rp.asked = node.span
    if rp.plain is None:
        rp.plain = (TVar(rp.level), node.span, False)
    ck.unify_result(result, TCon("Future", (rp.plain[0],), node.span), node)



# ---- the protocol checks, once everything is inferred ----------------------------------------------

def finish(ck: Checker):
    # Runs until a round changes nothing. It ends: a round continues only if it marked a require done,
    # each require is marked once, and new requires come only from constraints firing in `drain`;
    # each constraint fires once, and the ones a firing creates are copies of schemes of earlier
    # method groups (groups form a DAG and recurse only monomorphically), so their number is finite.
    progress = True
    while progress:
        progress = False
        for p in list(ck.protocols):
            r = prune(p)
            if r.level == GENERIC:
                continue
            for req in list(r.requires):
                if req.done:
                    if late_plain(ck, r, req):
                        progress = True
                    continue
                if check_require(ck, r, req, final=False):
                    req.done = True
                    progress = True
            ck.drain()
    seen = set()
    for p in ck.protocols:
        r = prune(p)
        if r.level == GENERIC or r.id in seen:
            continue
        seen.add(r.id)
        for req in r.requires:
            if not req.done:
                req.done = True
                check_require(ck, r, req, final=True)
        for actor, span in r.owner_checks:
            check_owner(ck, r, prune(actor), span)
    reported = set()
    for p, side in ck.proxy_contexts:
        r = prune(p)
        sites = list(r.plain_sites) + [s for _, s in r.accepts.values()] + [s for _, s in r.computed] + \
            [s for spans in r.lits.values() for s in spans.values()]
        if r.id in reported:
            continue
        if sites:
            reported.add(r.id)
            ck.report(P.ReceiveThroughProxy(side, min(sites, key=lambda s: (s.line, s.col))))
            continue
        # a message sent to that actor (`Actor self ! x`, a reply address, `monitor:`'s Down) lands in
        # the library's mailbox, which no receive of the program takes it from
        sends = [q.span for q in r.requires if q.span is not None and type(prune(q.msg)) is not TSpecial]
        if sends:
            reported.add(r.id)
            ck.report(P.SendThroughProxy(side, min(sends, key=lambda s: (s.line, s.col))))


def check_require(ck: Checker, r: TProto, req: Require, final: bool) -> bool:
    m = prune(req.msg)
    if type(m) is TSpecial:
        return True
    if req.runtime is not None:     # last, so that the messages the program sends decide the plain type
        return final and runtime_message(ck, r, m, req)
    if type(m) is TVar:
        if r.plain is not None:
            return unify_plain(ck, r, m, req)
        return final
    if type(m) is TCon:
        if r.plain is not None and r.plain[2]:
            # a plain `receive` can take any message out of the mailbox, so every message is its type
            return unify_plain(ck, r, m, req)
        if accepts(ck, r, m, req):
            return True
        if r.plain is not None:
            return unify_plain(ck, r, m, req)
        if r.opaque is not None:
            what = literal_text(*req.literal) if req.literal is not None else show(m)
            ck.report(P.SendToOpaqueActor(what, req.span, r.opaque))
            return True
        if not r.origins or not final:
            return final    # a protocol merged in later (a block run by this actor) may still accept it
        reject(ck, r, m, req)
        return True
    return True


def late_plain(ck, r: TProto, req: Require) -> bool:
    """A plain `receive` that joined r after req was checked (a block that receives, sent to this actor,
    kept in a field or answered to an `ask:`, found to run here once its message was checked): the
    message was accepted by a table entry, but the plain receive can take it too."""
    if req.plain or req.runtime is not None or r.plain is None or not r.plain[2]:
        return False
    m = prune(req.msg)
    if type(m) is TSpecial:
        return False
    unify_plain(ck, r, m, req)
    return True


def runtime_message(ck, r, m, req):
    """A `Down` or `Exit` the run time delivers: a plain `receive` can take it out of the mailbox."""
    if r.plain is None or not r.plain[2]:
        return True     # a receive table takes only what it names; an unreceived Down just waits
    later = [s for s in r.plain_sites if ck.order is None or not ck.order.before(s, req.span)]
    if r.plain_sites and not later:
        return True     # every plain receive has run before the messages can be delivered
    clash = ck.unify(r.plain[0], m)
    if clash:
        ck.report(P.RuntimeMessageToPlainReceive(m.name, req.runtime, show(prune(r.plain[0])), req.span,
                                                 later[0] if later else r.plain[1]))
    return True


def note_runtime_message(cls, sel):
    def hook(ck, node, actor, arg_nodes):
        if sel == "trapExits:" and arg_nodes and type(arg_nodes[0]) is A.Name and arg_nodes[0].name == "false":
            return
        p = prune(actor)
        if type(p) is TProto:
            p.requires.append(Require(TCon(cls), node.span, None, sel))
    return hook


def unify_plain(ck, r, m, req):
    req.plain = bool(r.plain[2])
    clash = ck.unify(r.plain[0], m)
    if clash and not r.plain[2]:
        ck.report(P.Mismatch("reply", (), clash, req.span, r.plain[0], m, r.plain[1]))
        return True
    if clash:
        ck.report(P.Mismatch("plain receive", (bool(r.plain[2]),), clash, req.span, r.plain[0], m, r.plain[1]))
    return True


def accepts(ck: Checker, r: TProto, m: TCon, req: Require) -> bool:
    for tag, (pay, span) in r.accepts.items():
        if ck.table.is_ancestor(tag, m.name):
            if nil_reply_used(ck, pay, m, req, span, tag):
                return True
            if tag == m.name or param_of(ck, m, "reply") is not None:
                clash = align(ck, pay, m)
                if clash:
                    ck.report(P.Mismatch("entry", (tag,), clash, req.span, pay, m, span))
            return True
    vals = r.lits.get(m.name)
    if vals:
        if req.literal is None or req.literal[0] != m.name or req.literal[1] in vals:
            return True
    for k, _ in r.computed:     # a key known only at run time may equal this message
        k = prune(k)
        if type(k) is TSpecial:
            return True
        if type(k) is TCon and (ck.table.is_ancestor(k.name, m.name) or ck.table.is_ancestor(m.name, k.name)):
            return True
    return False


def nil_reply_used(ck: Checker, pay, m: TCon, req: Require, span, tag) -> bool:
    """A request whose `reply` is nil (built without one and sent with `!`) reaching an entry whose
    handler replies: reported as such rather than as `Get[UndefinedObject]` against `Get[Actor]`."""
    mine, theirs = param_of(ck, m, "reply"), param_of(ck, pay, "reply")
    if mine is None or theirs is None:
        return False
    mine, theirs = prune(mine), prune(theirs)
    if not (type(mine) is TCon and mine.name == "UndefinedObject" and type(theirs) is TCon
            and theirs.name == "Actor"):
        return False
    ck.report(P.NilReply(m.name, req.span, span, tag))
    return True


def reject(ck: Checker, r: TProto, m: TCon, req: Require):
    names = accepted_names(r)
    lit = req.literal
    what = literal_text(*lit) if lit is not None else show(m)
    if not names:
        spawned = r.origins[0] if r.origins and r.origins[0].line > 0 else None
        ck.report(P.NeverReceives(what, req.span, spawned))
        return
    spans = [s for _, s in r.accepts.values()] + [s for v in r.lits.values() for s in v.values()] + \
        [s for _, s in r.computed]
    first = min(spans, key=lambda s: (s.file, s.line, s.col)) if spans else None
    near = None
    if lit is not None and lit[0] in r.lits:
        close = did_you_mean(str(lit[1]), [str(v) for v in r.lits[lit[0]]])
        near = literal_text(lit[0], close) if close is not None else None
    if near is None:
        near = did_you_mean(m.name, list(r.accepts))
    ck.report(P.NotAccepted(what, req.span, names, first, near, what if lit is not None else m.name))


def check_owner(ck, r, c, span):
    if r is c:
        return
    if not r.origins and r.asked is not None:
        # a reply address (the `reply` of a request sent with ask:) is the asker's future, no mailbox
        ck.report(P.ReceiveOnAnotherActor(span, r.asked, reply=True))
        return
    if type(c) is not TProto or c.level == GENERIC:
        return
    if not r.origins or not c.origins:
        return
    if set(r.origins) <= set(c.origins):
        return
    ck.report(P.ReceiveOnAnotherActor(span, r.origins[0]))


def register(parts):
    """Into lp/types/parts.py's Parts: spawn, !, receive, ask:."""
    parts.ask = ask
    parts.forms["spawn:"] = form_spawn
    parts.forms["receive:"] = form_receive
    parts.forms["receive:after:do:"] = form_receive
    parts.sends[("Actor", "!")] = bang
    parts.sends[("Actor", "receive")] = plain_receive
    parts.sends[("Actor", "receive:")] = table_receive_nonliteral
    parts.sends[("Actor", "receive:after:do:")] = table_receive_nonliteral
    parts.sends[("Actor", "ask:")] = ask_send
    parts.class_sends["spawn:"] = class_spawn
    parts.class_sends["spawnLink:"] = class_spawn
    parts.forms["spawnLink:"] = form_spawn
    parts.class_sends["self"] = class_self
    parts.runtime_messages[("Actor", "monitor:")] = note_runtime_message("Down", "monitor:")
    parts.runtime_messages[("Actor class", "trapExits:")] = note_runtime_message("Exit", "trapExits:")

