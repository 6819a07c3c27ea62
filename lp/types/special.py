"""Sends typed by rule rather than by signature: numbers, element needs, blocks, instances, records, reasons.

Actor sends and receives are in actors.py. Each function is registered on the
Checker: SPECIAL_FORMS see the syntax of the send (a literal record, table or
block), SPECIAL_SENDS / SPECIAL_CLASS_SENDS see only the types.
"""
from __future__ import annotations

from lp.diagnostics import Note
from lp.syntax import ast as A
from lp.types import constraints as C
from lp.types import overrides
from lp.types.errors import did_you_mean
from lp.types.infer import Checker
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
        ck.numeric(recv.name, op, a, result, node, arg_nodes[0] if arg_nodes else None)
    return result


def numeric(ck: Checker, recv_name, op, a, result, node, arg_node):
    if type(a) is TSpecial:
        ck.unify(result, a)
        return
    if type(a) is not TCon or a.name not in NUMBERS:
        span = arg_node.span if arg_node is not None else node.span
        ck.error("type mismatch", f"The argument of `{op}` is `{show(a)}`, but `{op}` on `{recv_name}` needs a "
                 "number (`Integer` or `Float`).", span,
                 [Note(f"It is `{show(a)}` because of this:", a.why)] if isinstance(a, TCon) and a.why
                 and a.why != span and a.why.line > 0 else (),
                 hint="use `printString` to turn a number into a String, or `asInteger` for the reverse"
                 if a.name == "String" and op == "+" else None)
        ck.unify(result, ERR)
        return
    if op in ("max:", "min:") and a.name != recv_name:
        # The primitive answers one of the two numbers unchanged, so mixed kinds have no one type.
        span = arg_node.span if arg_node is not None else node.span
        ck.error("type mismatch", f"The argument of `{op}` is `{a.name}`, but `{op}` on `{recv_name}` answers "
                 f"one of the two numbers unchanged, so both must be `{recv_name}`.", span,
                 hint=f"convert one side first: `asFloat` or `rounded`")
        ck.unify(result, ERR)
        return
    if op in ("<", ">", "<=", ">="):
        r = "Boolean"
    elif op == "/":
        r = "Float"
    elif recv_name == "Integer" and a.name == "Integer":
        r = "Integer"
    else:
        r = "Float"
    ck.unify(result, TCon(r, (), node.span))


Checker.numeric = numeric


# ---- collections whose selector needs something of their elements ------------------------

ELEMENT_NEEDS = {
    # selector -> (element classes the primitive or core.lp method handles, hint)
    "sum": (("Integer",), "an empty Array sums to the Integer 0; for Floats write "
            "`inject: 0.0 into: [:total :x | total + x]`"),
    "max": (NUMBERS, "`max` compares the elements with `max:`, which only numbers understand"),
    "min": (NUMBERS, "`min` compares the elements with `min:`, which only numbers understand"),
    "asSortedArray": (NUMBERS + ("String",), "to order other elements, pass the order: "
                      "`sort: [:a :b | ...]`"),
}


def element_send(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    elem = recv.args[0]
    sel = node.selector
    e = prune(elem)
    if type(e) is TVar:
        ck.watch(e, C.Element(e, sel, node))
    else:
        ck.check_element(e, sel, node)
    return TCon("Array", (elem,), node.span) if sel == "asSortedArray" else elem


def check_element(ck: Checker, e, sel, node):
    allowed, hint = ELEMENT_NEEDS[sel]
    if type(e) is TSpecial or (type(e) is TCon and e.name in allowed):
        return
    names = " or ".join(f"`{a}`" for a in allowed)
    ck.error("type mismatch", f"`{sel}` needs an Array of {names}, but this Array holds `{show(e)}`.",
             node.span, hint=hint)


Checker.check_element = check_element


# ---- blocks -----------------------------------------------------------------------------

def block_value(ck: Checker, recv, ats, node, actor, arg_nodes, discard):
    result = ck.fresh()
    want = TCon("Block", (*ats, result))
    clash = ck.unify(recv, want)
    if clash:
        n = len(ats)
        if clash.kind == "arity" and prune(clash.actual) is prune(recv) or clash.kind == "arity":
            got = len(prune(recv).args) - 1
            ck.error("wrong number of arguments",
                     f"This block takes {got} argument{'s' if got != 1 else ''}, but `{node.selector}` "
                     f"passes {n}.", node.span,
                     hint=f"a block of {got} argument{'s' if got != 1 else ''} is run with "
                          f"`{value_selector(got)}`")
        else:
            ck.clash_error(clash, node.span, f"An argument of `{node.selector}`", "the block needs",
                           recv, want)
        return ERR
    return result


def value_selector(n):
    return "value" if n == 0 else "value:" * n


def block_num_args(ck, recv, ats, node, actor, arg_nodes, discard):
    return TCon("Integer", (), node.span)


def block_ensure(ck, recv, ats, node, actor, arg_nodes, discard):
    r = ck.fresh()
    clash = ck.unify(TCon("Block", (r,)), recv)
    if clash:
        ck.clash_error(clash, node.span, "The receiver of `ensure:`", "`ensure:` needs", TCon("Block", (r,)), recv)
    other = TCon("Block", (ck.fresh(),))
    clash = ck.unify(other, ats[0])
    if clash:
        ck.clash_error(clash, arg_nodes[0].span if arg_nodes else node.span, f"The argument of `{node.selector}`",
                       f"`{node.selector}` needs", other, ats[0])
    return r


def block_while(ck, recv, ats, node, actor, arg_nodes, discard):
    want = TCon("Block", (TCon("Boolean"),))
    clash = ck.unify(want, recv)
    if clash:
        ck.clash_error(clash, node.span, f"The receiver of `{node.selector}`", f"`{node.selector}` needs",
                       want, recv)
    if ats:
        other = TCon("Block", (ck.fresh(),))
        clash = ck.unify(other, ats[0])
        if clash:
            ck.clash_error(clash, arg_nodes[0].span, f"The argument of `{node.selector}`",
                           f"`{node.selector}` needs", other, ats[0])
    return TCon("UndefinedObject", (), node.span)


def block_on_do(ck, recv, ats, node, actor, arg_nodes, discard):
    r = ck.fresh()
    ck.unify(TCon("Block", (r,)), recv)
    cls = prune(ats[0])
    err = TCon("Error")
    if type(cls) is TCon and cls.name.endswith(" class") and ck.table.is_ancestor("Error", cls.name[:-6]):
        err = ck.table.instance_type(cls.name[:-6], level=ck.level)
    elif type(cls) is not TSpecial:
        ck.error("type mismatch", "The first argument of `on:do:` is an error class, like `Error` or a "
                 "subclass of it.", arg_nodes[0].span)
    h = TCon("Block", (err, r))
    clash = ck.unify(h, ats[1])
    if clash:
        ck.clash_error(clash, arg_nodes[1].span, "The handler of `on:do:`", "`on:do:` needs", h, ats[1])
    return r


# ---- instances ----------------------------------------------------------------------------

def class_new(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    info = ck.table.get(cname)
    fields = ck.table.all_fields(cname)
    if ck.table.is_ancestor("Error", cname):
        if error_with_fields(ck, cname, node):
            return ERR
        return ck.table.instance_type(cname, why=node.span, level=ck.level)
    if info.builtin and cname not in ("Object",):
        ck.error("cannot instantiate", f"`{cname}` instances are not made with `new`.", node.span,
                 hint={"Error": "raise an error with `Error raise: 'text'`, or build one with "
                                "`Error fields: { message: 'text' }`"}.get(cname))
        return ERR
    if [f for f in fields if f != "reply"]:
        listing = " ".join(fields)
        example = ". ".join(f"{f}: {chr(ord('a') + i)}" for i, f in enumerate(f for f in fields if f != "reply"))
        ck.error("missing fields", f"`{cname}` has fields ({listing}), so `new` cannot build one: every field "
                 "needs a value.", node.span,
                 [Note(f"`{cname}` is declared here:", info.decl.span)] if info.decl else (),
                 hint=f"write `{cname} fields: {{ {example} }}`")
        return ERR
    return TCon(cname, (), node.span)


def class_itself(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    """`Point printNl` answers the class Point itself."""
    return TCon(cname + " class", (), node.span)


def error_with_fields(ck: Checker, cname, node):
    """`E raise: 'x'` would leave E's own fields nil: such an error is built with `fields:`."""
    own = [f for f in ck.table.all_fields(cname) if f != "message"]
    if not own:
        return False
    info = ck.table.get(cname)
    example = "message: 'text'. " + ". ".join(f"{f}: ..." for f in own)
    ck.error("missing fields", f"`{cname}` has fields ({' '.join(own)}) besides `message`, so "
             f"`{node.selector}` cannot build one: every field needs a value.", node.span,
             [Note(f"`{cname}` is declared here:", info.decl.span)] if info.decl else (),
             hint=f"build it with every field and raise it: `({cname} fields: {{ {example} }}) raise`")
    return True


def class_error_text(ck: Checker, cname, ats, node, actor, arg_nodes, discard):
    """`E raise: 'text'`, `E signal: 'text'`, `E new: 'text'` on an Error class."""
    sel = node.selector
    text = TCon("String")
    clash = ck.unify(text, ats[0])
    if clash:
        ck.clash_error(clash, arg_nodes[0].span if arg_nodes else node.span, f"The argument of `{sel}`",
                       f"`{sel}` needs", text, ats[0])
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
        elif type(rt) is TSpecial:
            ck.infer(rec, scope, cx) if type(rec) is not A.Record else [ck.infer(f.value, scope, cx)
                                                                          for f in rec.fields]
            return rt
        else:
            return None
    if type(rec) is not A.Record:
        t = ck.infer(rec, scope, cx)
        ck.error("fields needs a record", f"`fields:` takes a record literal naming every field, like "
                 f"`{cname} fields: {{ name: value }}`.", rec.span)
        return ERR
    info = ck.table.get(cname)
    all_fields = ck.table.all_fields(cname)
    if info.builtin and not all_fields:
        for f in rec.fields:
            ck.infer(f.value, scope, cx)
        ck.error("cannot instantiate", f"`{cname}` has no fields, so it cannot be built with `fields:`.", n.span)
        return ERR
    ck.record(rec, TCon(cname))
    given = set()
    bad = False
    for f in rec.fields:
        t = ck.infer(f.value, scope, cx)
        given.add(f.name)
        owner = ck.table.field_owner(cname, f.name)
        if owner is None:
            bad = True
            near = did_you_mean(f.name, all_fields)
            ck.error("unknown field", f"`{cname}` has no field named `{f.name}`. Its fields are: "
                     f"{', '.join(all_fields) if all_fields else '(none)'}.", f.span,
                     [Note(f"`{cname}` is declared here:", info.decl.span)] if info.decl else (),
                     hint=f"did you mean `{near}`?" if near else None)
            continue
        ft = ck.field_type(owner, f.name, f)
        clash = ck.unify(ft, t)
        if clash:
            ck.clash_error(clash, f.value.span, f"The value of the field `{f.name}`",
                           f"`{cname}`'s field `{f.name}` holds", ft, t,
                           hint="each field has one type, fixed by every place that builds or reads it")
    missing = [f for f in all_fields if f not in given and f != "reply"]
    if missing and not bad:
        s = "s" if len(missing) > 1 else ""
        ck.error("missing fields", f"This `{cname}` is built without the field{s} "
                 f"{', '.join('`' + m + '`' for m in missing)}: every field must be given a value"
                 + (" (except `reply`, which `ask:` fills)." if "reply" in all_fields else "."),
                 rec.span, [Note(f"`{cname}` is declared here:", info.decl.span)] if info.decl else ())
    return TCon(cname, (), n.span)


def class_fields_nonrecord(ck, cname, ats, node, actor, arg_nodes, discard):
    ck.error("fields needs a record", f"`fields:` takes a record literal naming every field, like "
             f"`{cname} fields: {{ name: value }}`.", arg_nodes[0].span if arg_nodes else node.span)
    return ERR


def form_with(ck: Checker, n, scope, cx, discard):
    rec = n.args[0]
    if type(rec) is not A.Record:
        return None
    rt = ck.infer(n.receiver, scope, cx)
    fields = [(f.name, ck.infer(f.value, scope, cx), f) for f in rec.fields]
    r = prune(rt)
    if type(r) is TVar:
        ck.watch(r, C.With(r, fields, n))
    else:
        ck.with_fields(r, fields, n)
    return rt


def with_fields(ck: Checker, r, fields, node):
    if type(r) is TSpecial:
        return
    if type(r) is not TCon or r.name.endswith(" class") or not ck.table.all_fields(r.name):
        ck.error("type mismatch", f"`with:` copies an instance with some fields replaced, but this is "
                 f"`{show(r)}`, which has no fields.", node.receiver.span)
        return
    cname = r.name
    all_fields = ck.table.all_fields(cname)
    for name, t, f in fields:
        owner = ck.table.field_owner(cname, name)
        if owner is None:
            near = did_you_mean(name, all_fields)
            ck.error("unknown field", f"`{cname}` has no field named `{name}`. Its fields are: "
                     f"{', '.join(all_fields)}.", f.span, hint=f"did you mean `{near}`?" if near else None)
            continue
        ft = ck.field_type(owner, name, f)
        clash = ck.unify(ft, t)
        if clash:
            ck.clash_error(clash, f.value.span, f"The new value of the field `{name}`",
                           f"`{cname}`'s field `{name}` holds", ft, t)


Checker.with_fields = with_fields


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
        ck.error("bad exit reason", f"`#{an.name}` is not an exit reason: a reason is `#normal`, `#killed`, "
                 "or an Error.", an.span, hint="to end with an error, pass one: `Error fields: { message: '...' }`")
        return
    a = prune(t)
    if type(a) is TVar:
        ck.watch(a, C.Reason(a, an or node))
    else:
        ck.check_reason(a, an or node)


def check_reason(ck, a, node):
    if type(a) is TSpecial:
        return
    if type(a) is TCon and (a.name in ("Symbol", "Reason") or ck.table.is_ancestor("Error", a.name)):
        return
    ck.error("bad exit reason", f"An exit reason is `#normal`, `#killed`, or an Error, but this is `{show(a)}`.",
             node.span)


Checker.check_reason = check_reason


def register():
    ck = Checker
    for cls in ("Integer", "Float"):
        for op in ("+", "-", "*", "/", "//", "\\\\", "<", ">", "<=", ">=", "max:", "min:", "rem:"):
            ck.SPECIAL_SENDS[(cls, op)] = numeric_send
    for sel in ("value", "value:", "value:value:", "value:value:value:", "value:value:value:value:"):
        ck.SPECIAL_SENDS[("Block", sel)] = block_value
    for sel in ELEMENT_NEEDS:
        ck.SPECIAL_SENDS[("Array", sel)] = element_send
    ck.SPECIAL_SENDS[("Block", "numArgs")] = block_num_args
    ck.SPECIAL_SENDS[("Block", "ensure:")] = block_ensure
    ck.SPECIAL_SENDS[("Block", "ifCurtailed:")] = block_ensure
    for sel in ("whileTrue:", "whileFalse:", "whileTrue", "whileFalse"):
        ck.SPECIAL_SENDS[("Block", sel)] = block_while
    ck.SPECIAL_SENDS[("Block", "on:do:")] = block_on_do
    ck.SPECIAL_SENDS[("Actor", "exit:")] = exit_send
    ck.SPECIAL_CLASS_SENDS["new"] = class_new
    for sel in ("printNl", "displayNl", "yourself"):
        ck.SPECIAL_CLASS_SENDS[sel] = class_itself
    for sel in ("raise:", "signal:", "new:"):
        ck.SPECIAL_CLASS_SENDS[sel] = class_error_text
    ck.SPECIAL_CLASS_SENDS["fields:"] = class_fields_nonrecord
    ck.SPECIAL_CLASS_SENDS["exit:"] = class_exit
    ck.SPECIAL_FORMS["fields:"] = form_fields
    ck.SPECIAL_FORMS["with:"] = form_with


register()
