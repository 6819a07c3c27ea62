"""How each kind of problem is told to the user: one function per kind in lp/types/problems.py
(and lp/classdecls.py's class declaration problems), each answering the Diagnostic (title,
message, span, notes, hint). The golden files in tests/types/ill_typed/ pin the wording.
"""
from __future__ import annotations

from lp.classdecls import Problem, SUBCLASSABLE
from lp.diagnostics import Diagnostic, Note
from lp.types import problems as P
from lp.types.terms import Namer, TCon, prune, show


def _subclassable() -> str:
    return " and ".join(f"`{n}`" for n in SUBCLASSABLE)


def class_problem(p: Problem, near=None) -> Diagnostic:
    """A class declaration problem; `near` is a class name close to an unknown superclass."""
    d = p.decl
    if p.kind == "duplicate builtin":
        return Diagnostic("duplicate class", f"`{d.name}` is a builtin class; it cannot be declared again.",
                          d.span, hint=f"choose another name, like `My{d.name}`")
    if p.kind == "duplicate class":
        return Diagnostic("duplicate class", f"The class `{d.name}` is declared twice.", d.span,
                          notes=(Note("It was first declared here:", p.other.span),))
    if p.kind == "unknown superclass":
        return Diagnostic("unknown class", f"`{d.name}` inherits from `{d.superclass}`, but there is no such "
                          "class.", d.span, hint=f"did you mean `{near}`?" if near else None)
    if p.kind == "cannot subclass":
        return Diagnostic("cannot subclass", f"`{d.superclass}` is a builtin class that cannot be subclassed; "
                          f"only {_subclassable()} can.", d.span)
    if p.kind == "inheritance cycle":
        return Diagnostic("inheritance cycle", f"`{d.name}` inherits from itself through `{p.other}`.", d.span)
    if p.kind == "duplicate field":
        return Diagnostic("duplicate field", f"`{d.name}` declares the field `{p.name}`, but it already inherits "
                          f"one with that name from `{p.other}`.", d.span)
    raise ValueError(p.kind)


def _method_on_unknown_class(p: P.MethodOnUnknownClass):
    return Diagnostic("unknown class", f"This method is defined on `{p.class_name}`, but there is no such class.",
                      p.span, hint=f"did you mean `{p.near}`?" if p.near else None)


def _duplicate_method(p: P.DuplicateMethod):
    side = " class" if p.class_side else ""
    return Diagnostic("duplicate method", f"`{p.class_name}{side} >> {p.selector}` is defined twice.", p.span,
                      notes=(Note("The first definition is here:", p.first),))


def _spawn_arity(p: P.SpawnArity):
    return Diagnostic("wrong number of arguments", f"The body of `Actor spawn:` is a block of one argument, the "
                      f"new actor's own reference, but this block takes {p.given}.", p.span,
                      hint="write `Actor spawn: [:me | ...]`")


def _handler_arity(p: P.HandlerArity):
    return Diagnostic("wrong number of arguments", f"A receive handler takes the message as its one argument "
                      f"(or none), but this block takes {p.given}.", p.span)


def _receive_needs_table(p: P.ReceiveNeedsTable):
    return Diagnostic("receive needs a table", f"`{p.selector}` takes a literal dispatch table, "
                      "`{ Class -> [:msg | ...]. #symbol -> [:m | ...] }`, so that each handler can be typed.",
                      p.span)


def _unreceivable_key(p: P.UnreceivableKey):
    return Diagnostic("bad receive key", f"No message is an instance of `{p.class_name}` at run time, so this "
                      "entry would never match.", p.span, hint=p.reason)


def _unknown_key_class(p: P.UnknownKeyClass):
    return Diagnostic("unknown class", f"This receive entry matches instances of `{p.class_name}`, but there is "
                      "no such class.", p.span, hint=f"did you mean `{p.near}`?" if p.near else None)


def _bad_receive_key(p: P.BadReceiveKey):
    return Diagnostic("bad receive key", "A receive entry's key is a class name (matching its instances) or a "
                      "literal symbol, integer, string or character (matching equal values).", p.span)


def _ask_without_reply(p: P.AskWithoutReply):
    name = p.user_class
    return Diagnostic("ask needs a reply field", f"`ask:` sends a message with a `reply` field, which it fills "
                      f"with the address the answer goes to, but `{p.what}` has no `reply` field.", p.span,
                      notes=(Note(f"`{p.what}` is declared here:", p.declared),) if p.declared else (),
                      hint=f"declare it with one: `Object subclass: #{name} fields: (reply)`" if name
                      else "to send without waiting for an answer, use `!`")


def _nil_reply(p: P.NilReply):
    name = p.class_name
    return Diagnostic("reply to a message without one", f"This sends a `{name}` whose `reply` is nil (it was "
                      f"built without one) with `!`, but the handler that receives it replies to it, which would "
                      "fail at run time.", p.span, notes=(Note(f"The `{name}` entry is here:", p.entry),),
                      hint=f"send it with `ask:` (`(target ask: {name} new) await`), which fills `reply`, or "
                           f"give it an address: `{name} fields: {{ reply: Actor self }}`")


def _send_to_opaque_actor(p: P.SendToOpaqueActor):
    return Diagnostic("unknown protocol", f"This sends `{p.what}` to an actor whose protocol is not known: it came "
                      "from the `actor` field of a `Down` or `Exit`, which can be any actor.", p.span,
                      notes=(Note("The actor reference comes from here:", p.origin),) if p.origin.line > 0 else (),
                      hint="send to the reference you spawned or monitored instead; compare it with "
                           "`d actor = child` to find it")


def _not_accepted(p: P.NotAccepted):
    listing = ", ".join(f"`{x}`" for x in p.accepted)
    hint = f"did you mean `{p.suggestion}`?" if p.suggestion else \
        f"add an entry `{p.class_name} -> [:msg | ...]` to a receive of that actor"
    return Diagnostic("message not understood by actor", f"This sends `{p.what}` to an actor that never receives "
                      f"it. That actor's receives accept: {listing}.", p.span,
                      notes=(Note("Its receive is here:", p.receive),) if p.receive else (), hint=hint)


def _never_receives(p: P.NeverReceives):
    return Diagnostic("message not understood by actor", f"This sends `{p.what}` to an actor that never receives "
                      "any message, so it would stay in the mailbox forever.", p.span,
                      notes=(Note("The actor is spawned here:", p.spawned),) if p.spawned else (),
                      hint="give the actor a `receive` for it")


def _receive_on_another_actor(p: P.ReceiveOnAnotherActor):
    notes = (Note("That actor is spawned here:", p.other),) if p.other.line > 0 else \
        (Note("That actor is the main program's."),)
    return Diagnostic("receive on another actor", "This receives from the mailbox of an actor that is not the one "
                      "running this code. Only an actor can take messages out of its own mailbox.", p.span, notes=notes,
                      hint="send the other actor a message instead, and receive on `me` (or `Actor self`)")


def encloses(outer, inner) -> bool:
    if inner is None or outer.file != inner.file:
        return False
    return (outer.line, outer.col) <= (inner.line, inner.col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def mismatch(clash, span, subject, need, whole_expected=None, whole_actual=None, notes=(), hint=None,
             title="type mismatch") -> Diagnostic:
    """A unification clash: what was found (`subject`, the whole type and the clashing part), who needed
    what (`need`), and a note at the expression that forced the expectation; or an infinite type."""
    namer = Namer()
    e, a = prune(clash.expected), prune(clash.actual)
    if clash.kind == "occurs":
        msg = (f"{subject} would need a type that contains itself: `{show(e, namer)}` "
               f"and `{show(a, namer)}` can only be equal if the type is infinite.")
        return Diagnostic("infinite type", msg, span, notes=tuple(notes), hint=hint)
    we = show(whole_expected, namer) if whole_expected is not None else None
    wa = show(whole_actual, namer) if whole_actual is not None else None
    le, la = show(e, namer), show(a, namer)
    if we is not None and wa is not None and (we, wa) != (le, la):
        msg = f"{subject} is `{wa}`, but {need} `{we}`."
        if clash.kind == "arity":
            msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                   f"is not one taking {len(e.args) - 1}."
        elif le != la:
            msg += f" `{la}` is not `{le}`."
    else:
        msg = f"{subject} is `{la}`, but {need} `{le}`."
        if clash.kind == "arity":
            msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                   f"is not one taking {len(e.args) - 1}."
    notes = list(notes)
    why = e.why if isinstance(e, TCon) else None
    if why is not None and why.line > 0 and not encloses(why, span):
        notes.append(Note(f"`{le}` is expected because of this:", why))
    return Diagnostic(title, msg, span, notes=tuple(notes), hint=hint)


RENDER = {
    P.MethodOnUnknownClass: _method_on_unknown_class, P.DuplicateMethod: _duplicate_method,
    P.SpawnArity: _spawn_arity, P.HandlerArity: _handler_arity, P.ReceiveNeedsTable: _receive_needs_table,
    P.UnreceivableKey: _unreceivable_key, P.UnknownKeyClass: _unknown_key_class, P.BadReceiveKey: _bad_receive_key,
    P.AskWithoutReply: _ask_without_reply, P.NilReply: _nil_reply, P.SendToOpaqueActor: _send_to_opaque_actor,
    P.NotAccepted: _not_accepted, P.NeverReceives: _never_receives,
    P.ReceiveOnAnotherActor: _receive_on_another_actor,
}


def render(problem) -> Diagnostic:
    return RENDER[type(problem)](problem)
