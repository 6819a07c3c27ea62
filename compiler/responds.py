"""The per-class selector lists `respondsTo:` reads at run time (runtime/native/responds.c).

`respondsTo:` answers what the interpreter answers: a class understands the selectors it
defines (methods of the program and of the compiled stdlib, field readers, and the
interpreter's primitives, read from its registry so the two modes agree) and those of its
superclasses; a class value understands its class side, then Object's instance side.
The table is emitted only when a program sends `respondsTo:`.
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.layout import PTR


def own_selectors(prog) -> dict[tuple[str, bool], set[str]]:
    """(class, class side?) → the selectors that class defines itself, on that side."""
    from lp.interp.builtins import BLOCK_SELECTORS, install_primitive_modules
    from lp.interp.registry import PRIMITIVES
    install_primitive_modules()
    own: dict[tuple[str, bool], set[str]] = {}
    for cls, sel, side, _ in PRIMITIVES:
        own.setdefault((cls, side), set()).add(sel)
    own.setdefault(("Block", False), set()).update(BLOCK_SELECTORS)
    for cls, side, sel in prog.methods:
        own.setdefault((cls, side), set()).add(sel)
    for name, cdef in prog.classes.items():
        own.setdefault((name, False), set()).update(cdef.fields)
    return own


def selector_table(mod) -> ir.GlobalVariable:
    """`own[2 * class id + side]`: " sel1 sel2 ... " per class and side, NULL where empty."""
    g = mod.module.globals.get("lpn.selectors")
    if g is not None:
        return g
    layout = mod.layout
    own = own_selectors(mod.prog)
    rows = []
    for cid in range(layout.nclasses):
        name = layout.names.get(cid)
        for side in (False, True):
            sels = own.get((name, side)) if name else None
            rows.append(layout.cstring(" " + " ".join(sorted(sels)) + " ") if sels else ir.Constant(PTR, None))
    ty = ir.ArrayType(PTR, len(rows))
    g = ir.GlobalVariable(mod.module, ty, name="lpn.selectors")
    g.initializer = ir.Constant(ty, rows)
    g.global_constant = True
    g.linkage = "private"
    return g
