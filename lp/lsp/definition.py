"""Go to definition: classes, methods (every implementation when the receiver's class is unknown), fields, bindings."""
from __future__ import annotations

import re

from lp.lsp.analysis import Analysis
from lp.lsp.classes import ClassIndex, class_of
from lp.lsp.nodes import message_receiver, on_itself, path_at
from lp.lsp.scopes import binding_of
from lp.syntax import ast as A

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def word_at(text: str, line: int, col: int) -> str | None:
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    for m in _WORD.finditer(lines[line - 1]):
        if m.start() + 1 <= col <= m.end() + 1:
            return m.group()
    return None


def field_span(a: Analysis, decl: A.ClassDecl, field: str) -> A.Span:
    """The span of `field` inside its class declaration's field list (fields carry no span of their own)."""
    s = decl.span
    for n in range(s.line, s.end_line + 1):
        text = a.sources.line(s.file, n) or ""
        start = text.find("fields:") + 1 if n == s.line else 0
        m = re.compile(rf"\b{re.escape(field)}\b").search(text, max(start, 0))
        if m:
            return A.Span(s.file, n, m.start() + 1, n, m.end() + 1)
    return s


def _methods(a: Analysis, index: ClassIndex, receiver_type, selector: str) -> list[A.Span]:
    owner = class_of(receiver_type)
    if owner is None:
        return [d.span for d in index.implementations(selector) if not d.class_side] + \
            [field_span(a, d, selector) for d in index.decls.values() if selector in d.fields]
    entry = index.lookup(owner[0], owner[1], selector)
    if entry is None:
        return []
    if entry.kind == "method":
        return [entry.decl.span]
    if entry.kind == "field" and entry.owner in index.decls:
        return [field_span(a, index.decls[entry.owner], selector)]
    return []


def _record_field(a: Analysis, index: ClassIndex, path: list, rf: A.RecordField) -> list[A.Span]:
    send = next((n for n in reversed(path) if isinstance(n, A.Send)), None)
    owner = class_of(a.result.type_of(send.receiver)) if send is not None else None
    if owner is None:
        return []
    for c in index.chain(owner[0]):
        if rf.name in index.fields(c) and c in index.decls:
            return [field_span(a, index.decls[c], rf.name)]
    return []


def definitions(a: Analysis, line: int, col: int) -> list[A.Span]:
    if a.program is None:
        return []
    index = ClassIndex(a.modules)
    path = path_at(a.program, line, col)
    node = path[-1] if path else None
    ty = a.result.type_of if a.result is not None else (lambda n: None)
    if isinstance(node, A.Send) and on_itself(node, line, col):
        return _methods(a, index, ty(node.receiver), node.selector)
    if isinstance(node, A.Message) and on_itself(node, line, col):
        return _methods(a, index, ty(message_receiver(path, node)), node.selector)
    if isinstance(node, A.RecordField) and on_itself(node, line, col) and a.result is not None:
        return _record_field(a, index, path, node)
    if isinstance(node, A.Name) and node.name not in A.PSEUDO_VARIABLES:
        bound = binding_of(node.name, path, a.program)
        if bound is not None:
            return [bound.name_span if isinstance(bound, A.Assign) else bound.span]
    if isinstance(node, (A.Param, A.Assign)):
        return [node.name_span if isinstance(node, A.Assign) else node.span]
    word = word_at(a.text, line, col)
    if word in index.decls:
        return [index.decls[word].span]
    return []
