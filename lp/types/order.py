"""Statement order for the rule that `Down`/`Exit` messages count against a plain `receive`
(actors.runtime_message): a plain receive that has run before the actor first sends `monitor:` (or
`Actor trapExits:`) cannot take a message those deliver.

Only order that is certain counts: both in one body that runs once per actor (the main program's
statements, or the statements of a literal `Actor spawn:` block), the receive in an earlier statement
than the `monitor:`, and not inside a block that could run later: the only blocks allowed around it
are those a builtin receiver runs at once (branches, loops, `do:`, `value`) and receive handlers.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.terms import TCon, prune

RUNS_NOW = frozenset({
    "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:", "whileTrue:", "whileFalse:",
    "whileTrue", "whileFalse", "timesRepeat:", "to:do:", "to:by:do:", "do:", "reverseDo:", "doWithIndex:",
    "keysAndValuesDo:", "value", "ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:",
})


class Order:
    def __init__(self, ck, program):
        self.ck = ck
        self.bodies = [[i for i in program.items if not isinstance(i, (A.ClassDecl, A.MethodDecl, A.Import))]]
        for n in A.walk(program):
            if type(n) is A.Send and n.selector in ("spawn:", "spawnLink:") and type(n.args[0]) is A.Block \
                    and type(n.receiver) is A.Name and n.receiver.name == "Actor":
                self.bodies.append(list(n.args[0].body))

    def before(self, receive, monitor) -> bool:
        """Does the plain receive at span `receive` certainly run before the send at span `monitor`?"""
        for body in self.bodies:
            i = next((k for k, s in enumerate(body) if _encloses(s.span, receive)), None)
            j = next((k for k, s in enumerate(body) if _encloses(s.span, monitor)), None)
            if i is not None and j is not None and i < j and self._at_once(body[i], receive):
                return True
        return False

    def _at_once(self, stmt, span) -> bool:
        """Is the node at `span` inside `stmt` reached without crossing a block that may run later?"""
        stack = [(stmt, True)]
        while stack:
            n, ok = stack.pop()
            if n.span == span and type(n) is A.Send:
                return ok
            if not _encloses(n.span, span):
                continue
            for c in n.children():
                if type(c) is A.Block:
                    stack.append((c, ok and self._runs_now(n, c)))
                else:
                    stack.append((c, ok))
        return False

    def _runs_now(self, parent, block) -> bool:
        if type(parent) is A.TableEntry:
            return True     # a receive handler runs during the receive
        if type(parent) is not A.Send or parent.selector not in RUNS_NOW:
            return False
        entry = self.ck.types.get(id(parent.receiver))
        t = prune(entry[1]) if entry is not None else None
        info = self.ck.table.get(t.name) if type(t) is TCon else None
        return info is not None and info.builtin


def _encloses(outer, inner) -> bool:
    return outer.file == inner.file and (outer.line, outer.col) <= (inner.line, inner.col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
