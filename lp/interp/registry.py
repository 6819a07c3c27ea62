"""The table primitives register into: (class name, selector, class side?) -> Python function."""
from __future__ import annotations

PRIMITIVES: list[tuple[str, str, bool, object]] = []


def prim(class_name: str, *selectors: str, class_side: bool = False):
    """Register fn(process, receiver, *args) as the method `selector` of `class_name`."""
    def deco(fn):
        for s in selectors:
            PRIMITIVES.append((class_name, s, class_side, fn))
        return fn
    return deco


BLOCK_VALUE = object()  # marks Block>>value... : the machine calls the closure itself
