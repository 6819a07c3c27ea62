"""Method signatures in the library's notation, `Point >> at: Integer put: a -> a`, types as the checker prints them."""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.terms import Namer, TCon, prune, show


def _pattern(selector: str, args: list[str]) -> str:
    kind = A.selector_kind(selector)
    if kind == "unary" or not args:
        return selector
    if kind == "binary":
        return f"{selector} {args[0]}"
    return " ".join(f"{part} {a}" for part, a in zip(A.keyword_parts(selector), args))


def method_signature(decl: A.MethodDecl, method_type) -> str:
    """The generalised signature of a declared method, from its `Method[ctx, self, args..., result]` type."""
    head = decl.class_name + (" class" if decl.class_side else "")
    t = prune(method_type) if method_type is not None else None
    if not isinstance(t, TCon) or t.name != "Method" or len(t.args) < 3:
        return f"{head} >> {_pattern(decl.selector, [p.name for p in decl.params])}"
    namer = Namer()
    show(t.args[1], namer)
    args = [show(a, namer) for a in t.args[2:-1]]
    return f"{head} >> {_pattern(decl.selector, args)} -> {show(t.args[-1], namer)}"


def send_signature(receiver_type, selector: str, arg_types, result_type) -> str:
    """The signature of one send as instantiated at this call: `Array[Integer] >> inject: Integer into: ... -> Integer`."""
    namer = Namer()
    head = show(receiver_type, namer) if receiver_type is not None else "?"
    args = [show(t, namer) if t is not None else "?" for t in arg_types]
    res = show(result_type, namer) if result_type is not None else "?"
    return f"{head} >> {_pattern(selector, args)} -> {res}"
