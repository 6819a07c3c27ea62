"""Mistakes a Smalltalk or Python programmer makes with immutable bindings, caught at check time.

- a block rebinding a name bound outside it (`[i < 3] whileTrue: [i := i + 1]`): an error, since the
  outer binding never changes;
- a statement that throws away the new value a send answers (`d at: 1 put: 'a'.`, a cascade of
  `at:put:`, a bare `a copyWith: x.`): a warning, since nothing else happens.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.terms import TCon, prune

REBIND_HINT = ("to add up values, use `inject:into:` (`sum := xs inject: 0 into: [:s :x | s + x]`); to loop "
               "with changing state, pass it as an argument (`Loop class >> count: i = i < 3 ifTrue: "
               "[Loop count: i + 1] ifFalse: [i]`)")

# selector -> receiver classes on which it only answers a new value
NEW_VALUE = {
    "at:put:": ("Array", "Dictionary"), "copyWith:": ("Array",), "with:": ("Array",),
    "removeKey:": ("Dictionary",), ",": ("Array", "String", "Symbol"),
}


def outside_binding(scope, name):
    """The binding of `name` if it is made outside the innermost block enclosing `scope`, else None."""
    s, crossed = scope, False
    while s is not None:
        v = s.vars.get(name)
        if v is not None:
            return v if crossed else None
        crossed = crossed or s.block
        s = s.parent
    return None


def check_rebinding(ck, s: A.Assign, scope):
    v = outside_binding(scope, s.name)
    if v is None:
        return
    from lp.diagnostics import Note
    ck.error("rebinding in a block", f"`{s.name}` is bound outside this block, and bindings are immutable: "
             f"`{s.name} := ...` here makes a new `{s.name}` that only this run of the block sees, so the "
             f"outer `{s.name}` never changes.", s.name_span,
             [Note(f"The outer `{s.name}` is bound here:", v.span)] if v.span is not None and v.span.line > 0
             else (), hint=REBIND_HINT)


def answers_new_value(ck, send, recv_t) -> bool:
    r = prune(recv_t)
    if type(r) is not TCon:
        return False
    if send.selector == "with:" and type(send.args[0]) is A.Record:
        return not r.name.endswith(" class")
    return r.name in NEW_VALUE.get(send.selector, ())


def warn_discarded(ck, node):
    """`node` is a statement whose value is thrown away (cascades are checked where they are typed)."""
    if type(node) is A.Send:
        entry = ck.types.get(id(node.receiver))
        if entry is not None and answers_new_value(ck, node, entry[1]):
            discarded_warning(ck, node, node.selector)


def cascade_warning(ck, node: A.Cascade, recv_t, discard: bool):
    """Every part of a cascade but the last answers into the void (the last too when discarded)."""
    parts = node.parts if discard else node.parts[:-1]
    for part in parts:
        m = part[-1]
        sent_to = recv_t if len(part) == 1 else ck.types.get(id(part[-2]), (None, None))[1]
        if type(m) is A.Message and sent_to is not None and answers_new_value(ck, m, sent_to):
            discarded_warning(ck, m, m.selector, cascade=True)
            return


def discarded_warning(ck, node, sel, cascade=False):
    what = "a new Dictionary" if sel in ("at:put:", "removeKey:") else "a new value"
    if cascade:
        msg = (f"`{sel}` answers {what} and changes nothing, but in a cascade every message goes to the first "
               "receiver, so this answer is thrown away.")
        hint = "chain the sends instead: `((d at: 1 put: 'a') at: 2 put: 'b')`, and bind the result"
    else:
        msg = f"`{sel}` answers {what} and changes nothing, but this statement throws that answer away."
        hint = "bind the answer and use it: `d2 := d at: k put: v.`"
    ck.warn("unused result", msg, getattr(node, "selector_span", None) or node.span, hint=hint)
