"""Hover: the inferred type of the expression under the cursor, or the signature of the method there."""
from __future__ import annotations

from lp.lsp.analysis import Analysis
from lp.lsp.nodes import message_receiver, on_itself, path_at
from lp.lsp.signatures import method_signature, send_signature
from lp.syntax import ast as A
from lp.types.terms import show


def hover_text(a: Analysis, line: int, col: int) -> str | None:
    if a.result is None:
        return None
    path = path_at(a.program, line, col)
    if not path:
        return None
    node = path[-1]
    ty = a.result.type_of
    if isinstance(node, A.Send) and on_itself(node, line, col):
        return send_signature(ty(node.receiver), node.selector, [ty(x) for x in node.args], ty(node))
    if isinstance(node, A.Message) and on_itself(node, line, col):
        return send_signature(ty(message_receiver(path, node)), node.selector,
                              [ty(x) for x in node.args], ty(node))
    if isinstance(node, A.MethodDecl):
        return method_signature(node, ty(node))
    if isinstance(node, A.ClassDecl):
        fields = f" fields: ({' '.join(node.fields)})" if node.fields else ""
        return f"{node.superclass} subclass: #{node.name}{fields}"
    t = ty(node)
    if t is None:
        return None
    if isinstance(node, (A.Name, A.Param, A.Assign)) and node.name not in A.PSEUDO_VARIABLES:
        if isinstance(node, A.Name) and node.name[:1].isupper():
            return show(t)
        return f"{node.name} : {show(t)}"
    return show(t)
