"""RuntimeView, the observer's primitives, in native code (docs/observer.md, runtime/native/observe.c).

Each C function takes the receiver and the arguments as one array of values, as the network
primitives do (lp.compiler.net). `asset:` and `contentTypeOf:` also take the page's files, which
are embedded in the binary as one table when either is compiled (a binary serves its page from
wherever it is moved); the files are the ones `lp run` serves (lp.interp.prims_observe.ASSETS).
"""
from __future__ import annotations

from importlib import resources

from llvmlite import ir

from lp.compiler import prims
from lp.compiler.layout import I64, I8, PTR
from lp.compiler.net import emitter, _frame_array
from lp.interp.prims_observe import ASSETS
from lp.ir import nodes as I

INT, BOOL, STR, NIL = I.Ty("Integer"), I.Ty("Boolean"), I.Ty("String"), I.Ty("UndefinedObject")

# selector (class side of RuntimeView) -> (C function, number of arguments, answer type, may raise?)
TABLE = {
    "observing": ("lpn_obs_observing", 0, BOOL, False),
    "hide": ("lpn_obs_hide", 0, NIL, False),
    "host": ("lpn_obs_host", 0, STR, False),
    "port": ("lpn_obs_port", 0, INT, False),
    "announce:": ("lpn_obs_announce", 1, NIL, False),
    "pause": ("lpn_obs_pause", 0, INT, False),
    "snapshot:": ("lpn_obs_snapshot", 1, STR, False),
    "supervisor:event:child:detail:children:actors:restarts:": ("lpn_obs_supervisor", 7, NIL, False),
}
WITH_PAGE = {"asset:": ("lpn_obs_asset", None), "contentTypeOf:": ("lpn_obs_content_type", STR)}
C_FUNCS = {fn: ("V", ["p"]) for fn, *_ in TABLE.values()} | {fn: ("V", ["p", "p"]) for fn, _ in WITH_PAGE.values()}


def page_table(mod) -> ir.GlobalVariable:
    """The page's files as {path, Content-Type, bytes, length} rows, a NULL path last; once per module."""
    table = getattr(mod, "observer_page", None)
    if table is None:
        row_t = ir.LiteralStructType([PTR, PTR, PTR, I64])
        rows = []
        for k, (path, (name, ctype)) in enumerate(sorted(ASSETS.items())):
            data = resources.files("lp.observe").joinpath("page", name).read_bytes()
            blob = ir.GlobalVariable(mod.module, ir.ArrayType(I8, len(data)), name=f"lp.observer.page.{k}")
            blob.initializer = ir.Constant(ir.ArrayType(I8, len(data)), bytearray(data))
            blob.global_constant, blob.linkage = True, "private"
            rows.append(ir.Constant(row_t, [mod.layout.cstring(path), mod.layout.cstring(ctype), blob,
                                            ir.Constant(I64, len(data))]))
        rows.append(ir.Constant(row_t, [ir.Constant(PTR, None), ir.Constant(PTR, None), ir.Constant(PTR, None),
                                        ir.Constant(I64, 0)]))
        table = ir.GlobalVariable(mod.module, ir.ArrayType(row_t, len(rows)), name="lp.observer.page")
        table.initializer = ir.Constant(ir.ArrayType(row_t, len(rows)), rows)
        table.global_constant, table.linkage = True, "private"
        mod.observer_page = table
    return table


def page_emitter(fn: str, ty: I.Ty | None):
    def emit(g, sel, n, site, tail, rty):
        vs = g.pop_n(2)
        arr = _frame_array(g, 2)
        for k, v in enumerate(vs):
            g.store_value(arr, 16 * k, v)
        return g.call_c(fn, [arr, page_table(g.mod)], ty or (rty if rty.known else I.UNKNOWN), site, may_fail=False)
    return emit


for _sel, _row in TABLE.items():
    prims.PRIMS[("RuntimeView", True, _sel)] = emitter(*_row)
for _sel, (_fn, _ty) in WITH_PAGE.items():
    prims.PRIMS[("RuntimeView", True, _sel)] = page_emitter(_fn, _ty)
