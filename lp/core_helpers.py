"""The core library's private helpers: renamed once stdlib/core.lp is parsed, so no program can send
them or collide with them (hostile report 1.10: `Array >> merge:by:` in a program was a duplicate
method). A helper is a core method on a builtin class whose selector is no library selector (the
checker's signatures) and not one of the undocumented public ones below; it and every send of its
selector inside the core become `core.` + selector, which the parser never produces."""
from __future__ import annotations

import dataclasses

from lp.syntax import ast as A

PREFIX = "core."
# core methods with no library signature that programs may use
PUBLIC = frozenset({"assert:", "withIndexDo:", "repeat"})

_done: dict[int, tuple] = {}


def helpers(program: A.Program) -> set[str]:
    from lp.types.library import INSTANCE_SIGS, UNIVERSAL_SIGS
    return {m.selector for m in program.methods
            if not m.class_side and m.selector not in PUBLIC and m.selector not in UNIVERSAL_SIGS
            and m.selector not in INSTANCE_SIGS.get(m.class_name, {})}


def is_private(selector: str) -> bool:
    return selector.startswith(PREFIX)


def privatise(program: A.Program) -> A.Program:
    hit = _done.get(id(program))
    if hit is not None and hit[0] is program:
        return hit[1]
    names = helpers(program)
    out = _rename(program, names) if names else program
    _done.clear()
    _done[id(program)] = (program, out)
    return out


def _rename(node, names):
    if isinstance(node, tuple):
        new = tuple(_rename(x, names) for x in node)
        return node if all(a is b for a, b in zip(new, node)) else new
    if not isinstance(node, A.Node):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, (A.Node, tuple)):
            nv = _rename(v, names)
            if nv is not v:
                changes[f.name] = nv
    if type(node) in (A.Send, A.Message, A.MethodDecl) and node.selector in names:
        changes["selector"] = PREFIX + node.selector
    return dataclasses.replace(node, **changes) if changes else node
