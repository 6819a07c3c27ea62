"""Remote and grain references in native code (docs/network.md "Remote", docs/grains.md; the C side is
runtime/native/remote.c and grain.c):

- the primitives of `Remote` and `GrainRef`, called as the network's are (compiler/net.py: receiver and
  arguments in one array in the frame);
- `Remote perform: sel on: obj withArguments: args`: a table from the selectors of the program's own
  methods and fields to the classes that answer them with one of those (never a library method), and
  `lpn.perform`, which calls selector number i through its dispatch stub;
- the proxies: a send that a `Remote` proxy or a `GrainRef` does not answer itself reaches the dispatch
  stub's does-not-understand case, which forwards it as (selector, arguments): to
  `RemoteClient class >> call:class:id:selector:arguments:timeout:` (stdlib/remote.lp) for a proxy, to
  the reference's block for a grain reference, as the interpreter does (lp/interp/prims_remote.py,
  vm.py).
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler import net, prims
from lp.compiler.codegen import VAL, c64
from lp.compiler.layout import CLASS_VALUE, I64, PTR
from lp.ir import nodes as I

STR, NIL, BOOL, INT = I.Ty("String"), I.Ty("UndefinedObject"), I.Ty("Boolean"), I.Ty("Integer")

TABLE = {
    ("Remote", True, "at:for:id:"): ("lpn_remote_at", 3, None, True),
    ("Remote", True, "at:for:id:timeout:"): ("lpn_remote_at_timeout", 4, None, True),
    ("Remote", True, "encode:"): ("lpn_remote_encode", 1, STR, True),
    ("Remote", True, "decode:"): ("lpn_remote_decode", 1, None, True),
    ("Remote", True, "request:"): ("lpn_remote_request", 1, I.Ty("RemoteRequest"), True),
    ("Remote", True, "result:"): ("lpn_remote_result", 1, None, True),
    ("Remote", True, "perform:on:withArguments:"): ("lpn_remote_perform", 3, None, True),
    ("Remote", True, "ownerFor:class:id:"): ("lpn_remote_owner_for", 3, I.Ty("Maybe"), True),
    ("Remote", True, "remember:for:class:id:"): ("lpn_remote_remember", 4, NIL, True),
    ("Remote", True, "isInstance:named:"): ("lpn_remote_is_instance_named", 2, BOOL, False),
    ("GrainRef", True, "label:like:on:"): ("lpn_grain_ref", 3, None, True),
    ("GrainRef", False, "label"): ("lpn_grain_label", 0, STR, False),
    ("GrainRef", True, "nodeId"): ("lpn_grain_node_id", 0, STR, False),
    ("GrainRef", True, "hashOf:"): ("lpn_grain_hash_of", 1, INT, True),
    ("GrainRef", True, "encodeState:"): ("lpn_grain_encode_state", 1, STR, True),
    ("GrainRef", True, "decodeState:like:shape:"): ("lpn_grain_decode_state", 3, None, True),
    ("GrainRef", True, "shape:of:"): ("lpn_grain_shape_of", 2, None, False),
    ("GrainRef", True, "shapeOf:"): ("lpn_grain_shape_for", 1, STR, False),
    ("GrainRef", True, "isState:like:"): ("lpn_grain_is_state", 2, BOOL, False),
    ("GrainRef", True, "asState:like:"): ("lpn_grain_as_state", 2, None, True),
}
C_FUNCS = {fn: ("V", ["p"]) for fn, *_ in TABLE.values()}
C_FUNCS.update({
    "lpn_remote_parts": ("void", ["v", "p"]),
    "lpn_remote_no_module": ("V", ["v", "p"]),
    "lpn_grain_block": ("V", ["v"]),
})
PERFORM = ("Remote", True, "perform:on:withArguments:")
CLIENT_CALL = ("RemoteClient", True, "call:class:id:selector:arguments:timeout:")

for _key, _row in TABLE.items():
    prims.PRIMS[_key] = net.emitter(*_row)


def _perform_emitter(emit):
    def perform(g, sel, n, site, tail, rty):
        g.mod.wants_perform = True
        return emit(g, sel, n, site, tail, rty)
    return perform


prims.PRIMS[PERFORM] = _perform_emitter(prims.PRIMS[PERFORM])


# ---- Remote perform:on:withArguments:

def performable(mod) -> dict[str, list[int]]:
    """Selector -> the ids of the classes whose lookup of it finds a method or field the program
    declares (lp/interp/prims_remote.py `_perform`: never a library class's)."""
    classes = mod.prog.classes
    out: dict[str, list[int]] = {}
    for name, c in classes.items():
        if c.builtin or not mod.layout.is_instance_class(name):
            continue
        seen: set[str] = set()
        k = c
        while k is not None:
            sup = classes.get(k.superclass) if k.superclass else None
            own = [s for (cn, side, s) in mod.prog.methods if cn == k.name and not side]
            own += [f for f in k.fields if sup is None or f not in sup.fields]
            for s in own:
                if s not in seen:
                    seen.add(s)
                    if not k.builtin:
                        out.setdefault(s, []).append(mod.layout.class_id(name))
            k = sup
    return out


def emit_perform(mod):
    """lpn.perform(i, obj, args): selector number i sent to obj with args's items (both consumed)."""
    table = performable(mod)
    sels = sorted(table, key=lambda s: s.encode("utf-8"))
    f = ir.Function(mod.module, ir.FunctionType(VAL, [I64] * 5), name="lpn.perform")
    f.linkage = "internal"
    i, ocls, obits, acls, abits = f.args
    b = ir.IRBuilder(f.append_basic_block("entry"))
    bad = f.append_basic_block("bad")
    sw = b.switch(i, bad)
    arr = None
    for k, sel in enumerate(sels):
        n = _arity(sel)
        bb = f.append_basic_block(f"s{k}")
        sw.add_case(c64(k), bb)
        b.position_at_end(bb)
        arr = b.inttoptr(abits, PTR)
        args = []
        for j in range(n):
            base = b.gep(arr, [c64(16 + 16 * j)], source_etype=ir.IntType(8))
            cls = b.load(base, typ=I64)
            bits = b.load(b.gep(base, [c64(8)], source_etype=ir.IntType(8)), typ=I64)
            b.call(mod.rt("dup"), [cls, bits])
            args += [cls, bits]
        b.call(mod.rt("drop"), [acls, abits])
        mod.set_send_frame(b, None, None)
        b.ret(b.call(mod.stub(sel, n), [ocls, obits] + args, cconv="tailcc"))
    b.position_at_end(bad)
    b.unreachable()
    return sels, [table[s] for s in sels], f


def _arity(sel: str) -> int:
    if sel.endswith(":"):
        return sel.count(":")
    return 0 if sel[0].isalpha() or sel[0] == "_" else 1


# ---- forwarding a send a proxy does not answer

def forwarding_classes(mod) -> list[int]:
    return [mod.layout.ids[n] for n in ("Remote", "GrainRef") if n in mod.layout.ids]


def emit_forward_case(mod, b, f, sel: str, nargs: int, dnu) -> None:
    """In a dispatch stub, before its does-not-understand block `dnu`: a Remote proxy or a GrainRef
    forwards the send (its arguments in a new Array) through lp.forward."""
    cls, bits = f.args[0], f.args[1]
    fwd = f.append_basic_block("forward")
    sw = b.switch(cls, dnu)
    for cid in forwarding_classes(mod):
        sw.add_case(c64(cid), fwd)
    b.position_at_end(fwd)
    arr = b.call(mod.c("lpn_arr_new"), [c64(nargs)])
    for k in range(nargs):
        base = b.gep(arr, [c64(16 + 16 * k)], source_etype=ir.IntType(8))
        b.store(f.args[2 + 2 * k], base)
        b.store(f.args[3 + 2 * k], b.gep(base, [c64(8)], source_etype=ir.IntType(8)))
    sym = mod.layout.symbol(sel).ptrtoint(I64)
    b.ret(b.call(forward_fn(mod), [cls, bits, c64(5), sym, c64(17), b.ptrtoint(arr, I64)], cconv="tailcc"))


def forward_fn(mod) -> ir.Function:
    f = mod.cfuncs.get("lp.forward")
    if f is not None:
        return f
    f = mod.cfuncs["lp.forward"] = mod.new_fn("lp.forward", 2)
    cls, bits, scls, sbits, acls, abits = f.args
    b = ir.IRBuilder(f.append_basic_block("entry"))
    remote, grain = f.append_basic_block("remote"), f.append_basic_block("grain")
    b.cbranch(b.icmp_unsigned("==", cls, c64(mod.layout.ids.get("Remote", -1) & (2 ** 64 - 1))), remote, grain)
    b.position_at_end(remote)
    target = mod.resolve(CLIENT_CALL[0], True, CLIENT_CALL[2]) if CLIENT_CALL[0] in mod.prog.classes else None
    if target is None or target[0] != "method":
        r = b.call(mod.c("lpn_remote_no_module"), [cls, bits, b.inttoptr(b.load(b.inttoptr(sbits, PTR), typ=I64), PTR)])
        b.call(mod.rt("drop"), [acls, abits])
        b.ret(r)
    else:
        parts = b.alloca(ir.ArrayType(VAL, 4))
        b.call(mod.c("lpn_remote_parts"), [cls, bits, b.bitcast(parts, PTR)])
        vals = []
        for k in range(4):
            base = b.gep(b.bitcast(parts, PTR), [c64(16 * k)], source_etype=ir.IntType(8))
            vals += [b.load(base, typ=I64), b.load(b.gep(base, [c64(8)], source_etype=ir.IntType(8)), typ=I64)]
        url, cname, id_, ms = vals[0:2], vals[2:4], vals[4:6], vals[6:8]
        client = [c64(CLASS_VALUE), c64(mod.layout.class_id(CLIENT_CALL[0]))]
        fn = mod.method_fn(target[1])
        b.ret(b.call(fn, client + url + cname + id_ + [scls, sbits, acls, abits] + ms, cconv="tailcc"))
    b.position_at_end(grain)
    blk = b.call(mod.c("lpn_grain_block"), [cls, bits])
    bcls, bbits = b.extract_value(blk, 0), b.extract_value(blk, 1)
    code = b.load(b.gep(b.inttoptr(bbits, PTR), [c64(8)], source_etype=ir.IntType(8)), typ=PTR)
    b.ret(b.call(mod.indirect(code, 2), [bcls, bbits, scls, sbits, acls, abits], cconv="tailcc"))
    return f
