"""Sends typed by rule rather than by signature: numbers, element needs, blocks, instances, records, reasons.

Actor sends and receives are in actors.py. `register` puts each function into the
checker's parts (lp/types/parts.py): forms see the syntax of the send (a literal
record or block), sends and class sends see only the types.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import constraints as C
from lp.types import problems as P
from lp.types import overrides
from lp.types.errors import did_you_mean
from lp.types.generics import nil_reply, replaced
from lp.types.infer import Checker
from lp.types.library import NUMERIC_OPS
from lp.types.terms import ERR, TCon, TSpecial, TVar, prune, show

NUMBERS = ("Integer", "Float")


# ---- numbers --------------------------------------------------------------------------

def numeric_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    op = node.selector if hasattr(node, "selector") else "?"
    result = ck.fresh()
    a = prune(ats[0])
    if type(a) is TVar:
        ck.watch(a, C.Numeric(a, result, op, recv.name, node, arg_nodes[0] if arg_nodes else None))
    else:
        numeric(ck, recv.name, op, a, result, node, arg_nodes[0] if arg_nodes else None)
    return result


def numeric(ck: Checker, recv_name, op, a, result, node, arg_node):
    """`Number` is a value known only to be an Integer or a Float (a `Number` receive key's message): with one
    on either side, an operator answers a `Number`, which each of the primitive's answers is."""
    if type(a) is TSpecial:
        ck.unify(result, a)
        return
    if type(a) is not TCon or a.name not in NUMBERS + ("Number",):
        span = arg_node.span if arg_node is not None else node.span
        because = a.why if isinstance(a, TCon) and a.why and a.why != span and a.why.line > 0 else None
        ck.report(P.NotANumber(op, recv_name, show(a), span, because, a.name == "String" and op == "+"))
        ck.unify(result, ERR)
        return
    if op in ("max:", "min:") and {a.name, recv_name} == set(NUMBERS):
        # The primitive answers one of the two numbers unchanged, so mixed kinds have no one type.
        span = arg_node.span if arg_node is not None else node.span
        ck.report(P.MixedNumbers(op, recv_name, a.name, span))
        ck.unify(result, ERR)
        return
    if op in ("<", ">", "<=", ">="):
        r = "Boolean"
    elif op == "/":
        r = "Float"
    elif "Number" in (recv_name, a.name):
        r = "Number"
    elif recv_name == "Integer" and a.name == "Integer":
        r = "Integer"
    else:
        r = "Float"
    # the result may be bound already when the argument's class comes late (a Numeric constraint)
    ck.unify_result(result, TCon(r, (), node.span), node)



def between_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    """`between:and:` compares the receiver with each bound as `<=` does, so the bounds may be numbers of
    either kind, as for `<` (`3 between: 1 and: 2.5`)."""
    for i, a in enumerate(ats):
        arg_node = arg_nodes[i] if i < len(arg_nodes) else None
        a = prune(a)
        if type(a) is TVar:
            ck.watch(a, C.Numeric(a, ck.fresh(), "between:and:", recv.name, node, arg_node))
        else:
            numeric(ck, recv.name, "between:and:", a, ck.fresh(), node, arg_node)
    return TCon("Boolean", (), node.span)


# ---- collections whose selector needs something of their elements ------------------------

ELEMENT_NEEDS = {
    # selector -> the element classes the primitive or core.lp method handles (reports.ELEMENT_HINTS says why)
    "sum": ("Integer", "Number"), "max": NUMBERS + ("Number",), "min": NUMBERS + ("Number",),
    "asSortedArray": NUMBERS + ("Number", "String"),
}


def element_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    elem = recv.args[0]
    sel = node.selector
    e = prune(elem)
    if type(e) is TVar:
        ck.watch(e, C.Check("check_element", [e], sel, node))
    else:
        check_element(ck, e, sel, node)
    return TCon("Array", (elem,), node.span) if sel == "asSortedArray" else elem


def check_element(ck: Checker, e, sel, node):
    allowed = ELEMENT_NEEDS[sel]
    if type(e) is TSpecial or (type(e) is TCon and e.name in allowed):
        return
    ck.report(P.ElementNeed(sel, tuple(allowed), show(e), node.span))



# ---- blocks -----------------------------------------------------------------------------

def block_value(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    result = ck.fresh()
    want = TCon("Block", (*ats, result))
    want.ctx = actor    # the block runs here
    clash = ck.unify(recv, want)
    if clash:
        n = len(ats)
        if clash.kind == "arity" and prune(clash.actual) is prune(recv) or clash.kind == "arity":
            got = len(prune(recv).args) - 1
            ck.report(P.BlockArity(got, node.selector, n, node.span))
        else:
            ck.report(P.Mismatch("block argument", (node.selector,), clash, node.span, recv, want))
        return ERR
    return result


def block_num_args(ck, recv, ats, node, actor, arg_nodes, discard):
    return TCon("Integer", (), node.span)


def block_ensure(ck, recv, ats, node, actor, arg_nodes, discard):
    r = ck.fresh()
    clash = ck.unify(TCon("Block", (r,)), recv)
    if clash:
        ck.report(P.Mismatch("rule receiver", (node.selector,), clash, node.span, TCon("Block", (r,)), recv))
    other = TCon("Block", (ck.fresh(),))
    clash = ck.unify(other, ats[0])
    if clash:
        ck.report(P.Mismatch("rule argument", (node.selector,), clash, arg_nodes[0].span if arg_nodes else node.span,
                             other, ats[0]))
    ck.run_in(other, actor)
    return r


def block_while(ck, recv, ats, node, actor, arg_nodes, discard):
    want = TCon("Block", (TCon("Boolean"),))
    clash = ck.unify(want, recv)
    if clash:
        ck.report(P.Mismatch("rule receiver", (node.selector,), clash, node.span, want, recv))
    if ats:
        other = TCon("Block", (ck.fresh(),))
        clash = ck.unify(other, ats[0])
        if clash:
            ck.report(P.Mismatch("rule argument", (node.selector,), clash, arg_nodes[0].span, other, ats[0]))
        ck.run_in(other, actor)
    return TCon("UndefinedObject", (), node.span)


def block_on_do(ck, recv, ats, node, actor, arg_nodes, discard):
    r = ck.fresh()
    clash = ck.unify(TCon("Block", (r,)), recv)
    if clash:
        ck.report(P.Mismatch("rule receiver", (node.selector,), clash, node.span, TCon("Block", (r,)), recv))
    err = ck.fresh()
    cls = prune(ats[0])
    if type(cls) is TVar:   # a class held in a variable or parameter: checked when its class is known
        ck.watch(cls, C.Check("error_class", [cls, err], arg_nodes[0]))
    else:
        error_class(ck, cls, err, arg_nodes[0])
    h = TCon("Block", (err, r))
    clash = ck.unify(h, ats[1])
    if clash:
        takes = prune(ats[1]).args[0] if type(prune(ats[1])) is TCon and prune(ats[1]).args else None
        if not narrower_handler(ck, prune(err), takes, arg_nodes[1].span, None):
            ck.report(P.Mismatch("error handler", (), clash, arg_nodes[1].span, h, ats[1]))
    ck.run_in(h, actor)
    return r


def narrower_handler(ck, caught, takes, span, because):
    """A handler typed for another Error class than the one `on:do:` catches (a subclass of it, which would get
    every error of the class caught, or an unrelated one): reported as such, when both classes are known."""
    takes = prune(takes) if takes is not None else None
    if type(caught) is not TCon or type(takes) is not TCon or caught.name == takes.name \
            or not ck.table.is_ancestor("Error", takes.name):
        return False
    ck.report(P.OnDoHandlerClass(show(caught), show(takes), ck.table.is_ancestor(caught.name, takes.name), span,
                                 because))
    return True


def error_class(ck, cls, err, arg_node):
    """The first argument of `on:do:` is an Error class: its instances are what the handler takes."""
    if type(cls) is TCon and cls.name.endswith(" class") and ck.table.is_ancestor("Error", cls.name[:-6]):
        want = ck.table.instance_type(cls.name[:-6], level=ck.level)
        clash = ck.unify(err, want)
        if clash:
            why = cls.why if cls.why and cls.why != arg_node.span and cls.why.line > 0 else None
            if not narrower_handler(ck, want, err, arg_node.span, why):
                ck.report(P.Mismatch("caught error", (), clash, arg_node.span, err, want, why))
        return
    if type(cls) is not TSpecial:
        why = cls.why if type(cls) is TCon and cls.why and cls.why != arg_node.span and cls.why.line > 0 else None
        ck.report(P.OnDoNeedsErrorClass(show(cls), arg_node.span, why))
    ck.unify(err, TCon("Error"))


# ---- instances ----------------------------------------------------------------------------

def class_new(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    info = ck.table.get(cname)
    fields = ck.table.all_fields(cname)
    if ck.table.is_ancestor("Error", cname):
        if error_with_fields(ck, cname, node):
            return ERR
        return ck.table.instance_type(cname, why=node.span, level=ck.level)
    if info.builtin and cname not in ("Object",):
        ck.report(P.NotMadeWithNew(cname, node.span))
        return ERR
    if [f for f in fields if f != "reply"]:
        ck.report(P.NewNeedsFields(cname, list(fields), node.span, info.decl.span if info.decl else None))
        return ERR
    return nil_reply(ck, info, ck.table.instance_type(cname, why=node.span, level=ck.level), node.span)


def class_itself(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    """`Point printNl` answers the class Point itself."""
    return TCon(cname + " class", (), node.span)


def error_with_fields(ck: Checker, cname, node):
    """`E raise: 'x'` would leave E's own fields nil: such an error is built with `fields:`."""
    own = [f for f in ck.table.all_fields(cname) if f != "message"]
    if not own:
        return False
    info = ck.table.get(cname)
    ck.report(P.ErrorFieldsByText(cname, own, node.selector, node.span, info.decl.span if info.decl else None))
    return True


def class_error_text(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    """`E raise: 'text'`, `E signal: 'text'`, `E new: 'text'` on an Error class."""
    sel = node.selector
    text = TCon("String")
    clash = ck.unify(text, ats[0])
    if clash:
        ck.report(P.Mismatch("rule argument", (sel,), clash, arg_nodes[0].span if arg_nodes else node.span, text,
                             ats[0]))
    if error_with_fields(ck, cname, node):
        return ERR
    if sel == "new:":
        return ck.table.instance_type(cname, why=node.span, level=ck.level)
    return ck.fresh()


def form_fields(ck: Checker, n, scope, cx, discard):
    recv = n.receiver
    cname = None
    if type(recv) is A.Name and recv.name[:1].isupper() and scope.lookup(recv.name) is None \
            and recv.name in ck.table.classes:
        cname = recv.name
        ck.record(recv, TCon(cname + " class"))
    elif type(recv) is A.Name and recv.name == "self" and cx.cls is not None and cx.class_side:
        cname = cx.cls.name
        ck.record(recv, TCon(cname + " class"))
        overrides.inherited_construction(ck, cname, "fields:", n)
    rec = n.args[0]
    if type(rec) is A.BraceArray and not rec.items:
        rec = A.Record((), rec.span)
    if cname is None:
        rt = prune(ck.infer(recv, scope, cx))
        if type(rt) is TCon and rt.name.endswith(" class"):
            cname = rt.name[:-6]
            overrides.inherited_construction(ck, cname, "fields:", n, rt)
        elif type(rt) is TSpecial:
            ck.infer(rec, scope, cx) if type(rec) is not A.Record else [ck.infer(f.value, scope, cx)
                                                                          for f in rec.fields]
            return rt
        else:
            return None
    if type(rec) is not A.Record:
        t = ck.infer(rec, scope, cx)
        ck.report(P.FieldsNeedsRecord(cname, rec.span))
        return ERR
    info = ck.table.get(cname)
    all_fields = ck.table.all_fields(cname)
    if info.builtin and not all_fields:
        for f in rec.fields:
            ck.infer(f.value, scope, cx)
        ck.report(P.NoFieldsToBuild(cname, n.span))
        return ERR
    inst = ck.table.instance_type(cname, why=n.span, level=ck.level)
    ck.record(rec, inst)
    given = set()
    bad = False
    for f in rec.fields:
        t = ck.infer(f.value, scope, cx)
        given.add(f.name)
        owner = ck.table.field_owner(cname, f.name)
        if owner is None:
            bad = True
            ck.report(P.UnknownField(cname, f.name, all_fields, did_you_mean(f.name, all_fields), f.span,
                                     info.decl.span if info.decl else None))
            continue
        ft = ck.field_type(owner, f.name, f, inst)
        clash = ck.unify(ft, t)
        if clash:
            ck.report(P.Mismatch("field value", (f.name, cname), clash, f.value.span, ft, t))
    missing = [f for f in all_fields if f not in given and f != "reply"]
    if missing and not bad:
        ck.report(P.MissingFields(cname, missing, "reply" in all_fields, rec.span,
                                  info.decl.span if info.decl else None))
    if "reply" not in given:
        nil_reply(ck, info, inst, rec.span)
    return inst


def class_fields_nonrecord(ck, cname, ats, node, actor, arg_nodes, discard):
    ck.report(P.FieldsNeedsRecord(cname, arg_nodes[0].span if arg_nodes else node.span))
    return ERR


def form_with(ck: Checker, n, scope, cx, discard):
    rec = n.args[0]
    if type(rec) is not A.Record:
        return None
    rt = ck.infer(n.receiver, scope, cx)
    fields = [(f.name, ck.infer(f.value, scope, cx), f) for f in rec.fields]
    r = prune(rt)
    result = ck.fresh()
    if type(r) is TVar:
        ck.watch(r, C.With(r, fields, n, result))
    else:
        ck.unify(result, with_fields(ck, r, fields, n))
    return result


def with_fields(ck: Checker, r, fields, node):
    """The type of `r with: { ... }`: r's own, or for a generic class a copy whose replaced fields'
    parameters are the new values' types (`(Box of: 1) with: { contents: 'a' }` is a `Box[String]`)."""
    if type(r) is TSpecial:
        return r
    if type(r) is not TCon or r.name.endswith(" class") or not ck.table.all_fields(r.name):
        ck.report(P.WithWithoutFields(show(r), node.receiver.span))
        return ERR
    cname = r.name
    info = ck.table.get(cname)
    all_fields = ck.table.all_fields(cname)
    out = replaced(ck, info, r, {name: ck.fresh() for name, _, _ in fields if name in info.params})
    for name, t, f in fields:
        owner = ck.table.field_owner(cname, name)
        if owner is None:
            ck.report(P.UnknownField(cname, name, all_fields, did_you_mean(name, all_fields), f.span, None))
            continue
        ft = ck.field_type(owner, name, f, out)
        clash = ck.unify(ft, t)
        if clash:
            ck.report(P.Mismatch("new field value", (name, cname), clash, f.value.span, ft, t))
    return out



# ---- failure reasons ------------------------------------------------------------------------

def exit_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    reason_arg(ck, ats[0], node, arg_nodes)
    return TCon("UndefinedObject", (), node.span)


def class_exit(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    reason_arg(ck, ats[0], node, arg_nodes)
    return ck.fresh()


def reason_arg(ck, t, node, arg_nodes):
    an = arg_nodes[0] if arg_nodes else None
    if type(an) is A.SymLit and an.name not in ("normal", "killed"):
        ck.report(P.BadReasonSymbol(an.name, an.span))
        return
    a = prune(t)
    if type(a) is TVar:
        ck.watch(a, C.Check("check_reason", [a], an or node))
    else:
        check_reason(ck, a, an or node)


def check_reason(ck, a, node):
    if type(a) is TSpecial:
        return
    if type(a) is TCon and (a.name in ("Symbol", "Reason") or ck.table.is_ancestor("Error", a.name)):
        return
    ck.report(P.BadReasonType(show(a), node.span))



def register(parts):
    """Into lp/types/parts.py's Parts: the sends this module types."""
    parts.numeric, parts.check_element, parts.error_class = numeric, check_element, error_class
    parts.with_fields, parts.check_reason = with_fields, check_reason
    for cls in NUMBERS + ("Number",):
        for op in NUMERIC_OPS:
            parts.sends[(cls, op)] = numeric_send
    for cls in NUMBERS + ("Number",):
        parts.sends[(cls, "between:and:")] = between_send
    for sel in ("value", "value:", "value:value:", "value:value:value:", "value:value:value:value:"):
        parts.sends[("Block", sel)] = block_value
    for sel in ELEMENT_NEEDS:
        parts.sends[("Array", sel)] = element_send
    parts.sends[("Block", "numArgs")] = block_num_args
    parts.sends[("Block", "ensure:")] = block_ensure
    parts.sends[("Block", "ifCurtailed:")] = block_ensure
    for sel in ("whileTrue:", "whileFalse:", "whileTrue", "whileFalse"):
        parts.sends[("Block", sel)] = block_while
    parts.sends[("Block", "on:do:")] = block_on_do
    parts.sends[("Actor", "exit:")] = exit_send
    parts.class_sends["new"] = class_new
    for sel in ("printNl", "displayNl", "yourself"):
        parts.class_sends[sel] = class_itself
    for sel in ("raise:", "signal:", "new:"):
        parts.class_sends[sel] = class_error_text
    parts.class_sends["fields:"] = class_fields_nonrecord
    parts.class_sends["exit:"] = class_exit
    parts.forms["fields:"] = form_fields
    parts.forms["with:"] = form_with

