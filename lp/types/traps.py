"""Mistakes a Smalltalk or Python programmer makes with immutable bindings, caught at check time.

- a block rebinding a name bound outside it (`[i < 3] whileTrue: [i := i + 1]`): an error, since the
  outer binding never changes;
- a statement that throws away the new value a send answers (`d at: 1 put: 'a'.`, a cascade of
  `at:put:`, a bare `a copyWith: x.`): a warning, since nothing else happens;
- a loop written as recursion whose call of itself ends a one-branch form (`n > 0 ifTrue: [self
  loop: n - 1]`), which answers nil and so is not a tail call (docs/language.md): a warning.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import problems as P
from lp.types.terms import TCon, prune

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
    ck.report(P.RebindingInBlock(s.name, s.name_span, v.span if v.span is not None and v.span.line > 0 else None))


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
    ck.report(P.UnusedResult(sel, cascade, getattr(node, "selector_span", None) or node.span))


ONE_BRANCH = {"ifTrue:", "ifFalse:", "ifNotNil:", "ifPresent:"}
TWO_BRANCHES = {"ifTrue:ifFalse:", "ifFalse:ifTrue:"}


def warn_recursion_in_one_branch(ck, m: A.MethodDecl):
    """Follow the method's tail positions (last statements, both arms of a two-branch form, receive
    handlers); where a one-branch form stands in one, a call of the method itself at the end of its
    branch keeps a frame per round."""
    me = "self" if not m.class_side else None

    def recursive(n) -> bool:
        return type(n) is A.Send and n.selector == m.selector and type(n.receiver) is A.Name \
            and n.receiver.name in ((me,) if me else ("self", m.class_name))

    def last(body):
        return body[-1] if body else None

    stack = [(last(m.body.body) if type(m.body) is A.Sequence else m.body, None)]
    while stack:
        n, form = stack.pop()
        if type(n) is A.Sequence:
            stack.append((last(n.body), form))
        elif type(n) is A.Send and form is not None and recursive(n):
            ck.report(P.NotATailCall(m.selector, form, getattr(n, "selector_span", None) or n.span))
        elif type(n) is A.Send and n.args and all(type(a) is A.Block for a in n.args) \
                and n.selector in ONE_BRANCH | TWO_BRANCHES:
            one = n.selector if n.selector in ONE_BRANCH else None
            stack.extend((last(a.body), one or form) for a in n.args)
        elif type(n) is A.Send and n.selector in ("receive:", "receive:after:do:") \
                and type(n.args[0]) is A.DispatchTable:
            stack.extend((last(e.handler.body), form) for e in n.args[0].entries if type(e.handler) is A.Block)
            if len(n.args) == 3 and type(n.args[2]) is A.Block:
                stack.append((last(n.args[2].body), form))
