"""Document symbols: the classes of a document, with their methods inside, and methods on other classes."""
from __future__ import annotations

from lsprotocol import types as T

from lp.diagnostics import SourceMap
from lp.lsp.positions import to_range
from lp.syntax import ast as A


def _method(m: A.MethodDecl, sources: SourceMap) -> T.DocumentSymbol:
    name = f"{m.class_name}{' class' if m.class_side else ''} >> {m.selector}"
    r = to_range(m.span, sources)
    return T.DocumentSymbol(name=name, kind=T.SymbolKind.Method, range=r, selection_range=r)


def document_symbols(items, sources: SourceMap) -> list[T.DocumentSymbol]:
    out: list[T.DocumentSymbol] = []
    classes: dict[str, T.DocumentSymbol] = {}
    for item in items:
        if isinstance(item, A.ClassDecl):
            r = to_range(item.span, sources)
            sym = T.DocumentSymbol(name=item.name, kind=T.SymbolKind.Class, range=r, selection_range=r,
                                   detail=f"{item.superclass} subclass", children=[])
            classes.setdefault(item.name, sym)
            out.append(sym)
        elif isinstance(item, A.MethodDecl):
            sym = _method(item, sources)
            owner = classes.get(item.class_name)
            (owner.children if owner is not None else out).append(sym)
    return out
