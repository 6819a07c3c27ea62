"""Dynamic values in native code (docs/native.md "Dynamic values").

The checker lets a `Dynamic` value (`JSON decode:`, the Remote library) stand where any type is
expected, so an expression the IR types `Integer` may hold a String at run time. Inside one
function such a value keeps the type `Dynamic` whatever the binding or branch merge it flows
through says, so every send to it is dispatched on its class at run time and fails exactly as
in `lp run`. Where it leaves the function for code that trusts its static type (a parameter,
a returned value, an array item, a block's capture, the receiver of an inlined control
message) its class is checked there and a mismatch raises an LP error at the send.
"""
from __future__ import annotations

from lp.ir import nodes as I

DYN = I.Ty("Dynamic")
# the builtin classes whose values all carry that class id; other builtin types (actors,
# futures, sockets, reasons) are not checked
CHECKED_BUILTINS = ("UndefinedObject", "Boolean", "Integer", "Float", "Character", "Symbol", "String", "Array",
                    "Dictionary", "Interval", "Association", "Maybe", "Block", "ByteArray", "Number", "Error")


def is_dynamic(ty: I.Ty | None) -> bool:
    return ty is not None and ty.var is None and ty.name == "Dynamic"


def class_ids(mod, ty: I.Ty) -> list[int] | None:
    """The class ids a value of type ty may have at run time, or None when it is not checked."""
    from lp.compiler.codegen import kind   # codegen imports this module
    name = kind(ty)
    if name is None:
        return None
    prog, ids = mod.prog, mod.layout.ids
    c = prog.classes.get(name)
    builtin = c is None or c.builtin
    if builtin and name not in CHECKED_BUILTINS and not _below(prog, name, "Error"):
        return None
    if name not in ids:
        return None
    return sorted({ids[n] for n in [name, *prog.subclasses(name)] if n in ids})


def answer_type(mod, md: I.MethodDef, ty: I.Ty) -> I.Ty:
    """The type a direct call of md is trusted with: the send's, unless md answers a class outside
    it (a program's `Object class >> new = 3` under a send the checker typed by the library's
    rule, `A new`), when the answer is treated as Dynamic."""
    from lp.compiler.codegen import kind
    mine, theirs = kind(md.type), kind(ty)
    if mine is None or theirs is None or mine == theirs:
        return ty
    if mine.endswith(" class") and theirs.endswith(" class"):
        mine, theirs = mine[:-len(" class")], theirs[:-len(" class")]
    if _below(mod.prog, mine, theirs) or _below(mod.prog, theirs, mine):
        return ty   # one a subclass of the other (a method typed by its class, called on a subclass)
    return DYN


def _below(prog, name: str, top: str) -> bool:
    c = prog.classes.get(name)
    while c is not None:
        if c.name == top:
            return True
        c = prog.classes.get(c.superclass) if c.superclass else None
    return False


def _article(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


def settle(g, v, ty: I.Ty, site: int | None, items: bool = True):
    """v (owned by g) is trusted as a ty from here: when v is Dynamic and ty a checked class,
    test its class and raise at `site` when it differs. Answers the value to use instead (the
    same words, typed ty), which takes v's place on g's stack."""
    if not is_dynamic(v.ty):
        return v
    side = ty.name.endswith(" class") and ty.var is None
    ids = class_ids(g.mod, I.Ty(ty.name[:-len(" class")]) if side else ty)
    if ids is None:
        return v
    from lp.compiler.codegen import c64
    from lp.compiler.layout import CLASS_VALUE
    name = ty.name
    ok = None
    for i in ids:     # a class as a value is {CLASS_VALUE, its id}
        t = g.b.icmp_unsigned("==", v.bits if side else v.cls, c64(i))
        ok = t if ok is None else g.b.or_(ok, t)
    if side:
        ok = g.b.and_(ok, g.b.icmp_unsigned("==", v.cls, c64(CLASS_VALUE)))
    with g.b.if_then(g.b.not_(ok), likely=False):
        saved = list(g.owned)
        g.dup(v)
        g.b.call(g.mod.c("lpn_dynamic_mismatch"), [v.cls, v.bits, g.mod.layout.cstring(_article(name))])
        g.unwind_here(site)
        g.owned = saved
    if items and name == "Array" and len(ty.args) == 1:
        _check_items(g, v, ty.args[0], site)
    w = type(v)(v.cls, v.bits, ty)
    for k in range(len(g.owned) - 1, -1, -1):
        if g.owned[k] is v:
            g.owned[k] = w
            break
    return w


def trusted_read(g, cls, bits, ty: I.Ty, site: int | None):
    """Push the words a program with Dynamic values reads where the checker trusts ty (a field, a
    plain receive), tested as a Dynamic value would be; answers the pushed value, typed ty."""
    from lp.compiler.codegen import V
    v = settle(g, g.push(V(cls, bits, DYN)), ty, site, items=False)
    if is_dynamic(v.ty):
        v.ty = ty if ty.known else I.UNKNOWN
    return v


def _check_items(g, v, elem: I.Ty, site: int | None) -> None:
    """The items of the Array v (its class tested already) are each of a class of elem."""
    from lp.compiler.codegen import c64
    from lp.compiler.layout import I64
    ids = class_ids(g.mod, elem)
    if ids is None:
        return
    from llvmlite import ir
    table = ir.GlobalVariable(g.mod.module, ir.ArrayType(I64, len(ids)), name=f"dyn.ids.{len(g.mod.module.globals)}")
    table.initializer = ir.Constant(ir.ArrayType(I64, len(ids)), ids)
    table.global_constant = True
    table.linkage = "private"
    r = g.b.call(g.mod.c("lpn_dynamic_items"), [v.cls, v.bits, table, c64(len(ids)),
                                                 g.mod.layout.cstring(_article(elem.name))])
    with g.b.if_then(g.is_unwind(g.unpack(r, elem)), likely=False):
        saved = list(g.owned)
        g.unwind_here(site)
        g.owned = saved


def require(g, v: V, cls: str, selector: str, site: int | None) -> None:
    """The receiver v of an inlined control message (`ifTrue:`, `and:`, `to:do:`): when it is
    Dynamic and not a cls, raise the does-not-understand error the real send would."""
    if not is_dynamic(v.ty):
        return
    from lp.compiler.codegen import c64
    bad = g.b.icmp_unsigned("!=", v.cls, c64(g.mod.layout.class_id(cls)))
    with g.b.if_then(bad, likely=False):
        saved = list(g.owned)
        g.dup(v)
        g.b.call(g.mod.c("lpn_dnu"), [v.cls, v.bits, g.mod.layout.cstring(selector)])
        g.unwind_here(site)
        g.owned = saved


def check_params(g, params, values) -> None:
    """A method's or block's parameters whose type is a checked class are tested on entry when
    the program makes Dynamic values at all: a caller may pass one where the checker trusted it
    (a send dispatched at run time, an item of an array, a block called by a primitive)."""
    if not g.mod.makes_dynamic:
        return
    for var, v in zip(params, values):
        if class_ids(g.mod, var.type) is not None:
            settle(g, type(v)(v.cls, v.bits, DYN), var.type, None, items=False)


def makes_dynamic(prog: I.Program) -> bool:
    """Whether any expression of the program (its methods, main) has the type Dynamic."""
    todo: list = [prog.main, *(m.body for m in prog.methods.values())]
    while todo:
        x = todo.pop()
        if isinstance(x, (tuple, list)):
            todo.extend(x)
            continue
        fields = getattr(x, "__dataclass_fields__", None)
        if fields is None:
            continue
        t = getattr(x, "type", None)
        if isinstance(t, I.Ty) and is_dynamic(t):
            return True
        for name in fields:
            if name not in ("type", "span", "var", "captures", "params"):
                todo.append(getattr(x, name))
    return False


def settle_library_args(g, e: I.Send, recv_ty: I.Ty, args: list, site: int | None) -> None:
    """Dynamic arguments of a library send whose signature parameter is a type parameter the
    call binds to a checked class (`d at: k put: v` on a `Dictionary[String, Integer]`, `Maybe
    some: v` typed `Maybe[Integer]`): the value is stored where later reads trust that type."""
    if not any(is_dynamic(a.ty) for a in args):
        return
    from lp.types.library import CLASS_SIGS, INSTANCE_SIGS, PARAMS
    name = recv_ty.name
    side = name.endswith(" class")
    if side:
        name = name[:-len(" class")]
    sig = (CLASS_SIGS if side else INSTANCE_SIGS).get(name, {}).get(e.selector)
    if sig is None or sig.special or sig.args is None or len(sig.args) != len(args):
        return
    bound: dict[str, I.Ty] = {}
    if not side:
        bound.update(zip(PARAMS.get(name, ()), recv_ty.args))
    _bind(sig.result, e.type, bound)
    for a, t in zip(args, sig.args):
        want = _subst(t, bound) if is_dynamic(a.ty) and t[0] in ("var", "con") else None
        if want is not None and (t[0] == "var" or want.name == "Array"):
            settle(g, a, want, site)


def _bind(pattern, ty: I.Ty, bound: dict) -> None:
    """Bind the type variables of a signature type (lp/types/library.py parse_type) to ty's parts."""
    if pattern[0] == "var":
        bound.setdefault(pattern[1], ty)
    elif pattern[0] == "con" and pattern[1] == ty.name and len(pattern[2]) == len(ty.args):
        for p, t in zip(pattern[2], ty.args):
            _bind(p, t, bound)


def _subst(pattern, bound: dict) -> I.Ty | None:
    """The type a signature type stands for with these bindings, or None when one is missing."""
    if pattern[0] == "var":
        return bound.get(pattern[1])
    if pattern[0] != "con":
        return None
    args = [_subst(p, bound) for p in pattern[2]]
    return None if None in args else I.Ty(pattern[1], tuple(args))
