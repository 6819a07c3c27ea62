"""Where a variable is bound: the lexical scoping rules of docs/types.md, read off the AST.

Blocks and methods bind their parameters; `x := e` in a body binds x for the
statements after it (sequences and blocks open a scope); top-level bindings
are visible to later top-level statements of the same module.
"""
from __future__ import annotations

from lp.syntax import ast as A


def _last_assign(stmts, name: str):
    found = None
    for s in stmts:
        if isinstance(s, A.Assign) and s.name == name:
            found = s
    return found


def _before(body, child) -> tuple:
    for i, s in enumerate(body):
        if s is child:
            return body[:i]
    return ()


def binding_of(name: str, path: list, program: A.Program):
    """The Param or Assign that binds `name` at the end of `path` (top-level item first), or None."""
    for depth in range(len(path) - 2, -1, -1):
        node, child = path[depth], path[depth + 1]
        if isinstance(node, (A.Block, A.MethodDecl)):
            for p in node.params:
                if p.name == name:
                    return p
        if isinstance(node, (A.Block, A.Sequence)):
            found = _last_assign(_before(node.body, child), name)
            if found is not None:
                return found
        if isinstance(node, A.MethodDecl):
            return None
    if path:
        return _last_assign(_before(program.items, path[0]), name)
    return None
