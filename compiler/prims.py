"""The primitives native code implements, by (class, class side?, selector).

Each emitter runs with the receiver and arguments on top of the generator's owned
stack, consumes them, and answers its pushed result (or None after a tail call).
Integer arithmetic on proven Integers is inline (`llvm.sadd.with.overflow` and
friends), as is Float arithmetic on proven numbers; the rest calls the `lpn_` layer in
runtime/native (docs/native.md "The C core"), most of it through the one data table of
compiler/prim_table.py.
A selector the library types but this table lacks is reported at build time
(compiler/unsupported.py) when the receiver's class is known.
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler import responds
from lp.compiler.codegen import V, c64, kind
from lp.compiler.layout import I32, I64, PTR
from lp.compiler.prim_table import one_call_prims
from lp.compiler.unsupported import Unsupported
from lp.ir import nodes as I

PRIMS: dict = {}
BORROWING: dict = {}   # the same keys: an emitter whose C function borrows the receiver (compiler/sends.py)
INT, FLOAT, BOOL, STR = I.Ty("Integer"), I.Ty("Float"), I.Ty("Boolean"), I.Ty("String")


def prim(cls: str, *sels: str, side: bool = False):
    def deco(f):
        for s in sels:
            PRIMS[(cls, side, s)] = f
        return f
    return deco


def _ints(*vs) -> bool:
    return all(kind(v.ty) == "Integer" for v in vs)


def _bool(g, bit) -> V:
    return V(c64(1), g.b.zext(bit, I64), BOOL)


def _known(ty, fallback):
    return ty if ty.known else fallback


# ---- numbers ---------------------------------------------------------------------------

_ARITH = {"+": ("sadd", "+"), "-": ("ssub", "-"), "*": ("smul", "*"), "/": (None, "/"),
          "//": (None, "d"), "\\\\": (None, "m"), "rem:": (None, "r")}
_INT_DIV = {"//": "lpn_int_floordiv", "\\\\": "lpn_int_mod", "rem:": "lpn_int_rem", "quo:": "lpn_int_quo"}


@prim("Number", "+", "-", "*", "/", "//", "\\\\", "rem:")
def _arith(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    intrinsic, op = _ARITH[sel]
    if _ints(a, b) and intrinsic:
        return g.push(_int_arith(g, sel, intrinsic, a, b, site))
    if _ints(a, b) and sel in _INT_DIV:
        return g.call_c(_INT_DIV[sel], [a.bits, b.bits], INT, site)
    if _floats(a, b) and sel in _FLOAT_ARITH:
        return _float_arith(g, sel, op, a, b, site)
    if intrinsic and _maybe_int(a) and _maybe_int(b):
        # not proven: test both classes, Integer arithmetic inline, anything else in C
        both = g.b.and_(g.b.icmp_unsigned("==", a.cls, c64(2)), g.b.icmp_unsigned("==", b.cls, c64(2)))
        return g.if_else(both, lambda: g.push(_int_arith(g, sel, intrinsic, a, b, site)),
                         lambda: g.call_c("lpn_num_arith", [ir.Constant(I32, ord(op)), a.cls, a.bits, b.cls, b.bits],
                                          _known(ty, I.UNKNOWN), site), _known(ty, I.UNKNOWN))
    return g.call_c("lpn_num_arith", [ir.Constant(I32, ord(op)), a.cls, a.bits, b.cls, b.bits],
                    _known(ty, _num_result(sel, a, b)), site)


def _num_result(sel, *vs) -> I.Ty:
    """The class of a numeric operation's answer when its operands' classes are proven."""
    ks = {kind(v.ty) for v in vs}
    if not ks <= {"Integer", "Float"}:
        return I.UNKNOWN
    if "Float" in ks or sel in ("/", "asFloat", "sqrt"):
        return FLOAT
    return INT


def _floats(*vs) -> bool:
    """Proven numbers, at least one of them a Float: the operation is on doubles."""
    ks = [kind(v.ty) for v in vs]
    return "Float" in ks and all(k in ("Float", "Integer") for k in ks)


def _double(g, v: V):
    if kind(v.ty) == "Integer":
        return g.b.sitofp(v.bits, ir.DoubleType())
    return g.b.bitcast(v.bits, ir.DoubleType())


_FLOAT_ARITH = {"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv"}


def _float_arith(g, sel, op, a, b, site) -> V:
    """Inline double arithmetic; an infinite result (overflow) or a zero divisor takes the C path,
    which raises the interpreter's error. The two paths join as a double, so Floats stay in
    floating-point registers."""
    d = ir.DoubleType()
    x, y = _double(g, a), _double(g, b)
    r = getattr(g.b, _FLOAT_ARITH[sel])(x, y)
    bad = g.b.fcmp_unordered("==", g.b.call(g.mod.fabs(), [r]), ir.Constant(d, float("inf")))
    if sel == "/":
        bad = g.b.or_(bad, g.b.fcmp_ordered("==", y, ir.Constant(d, 0.0)))
    fast_end = g.b.block
    slow = g.fn.append_basic_block("float_slow")
    join = g.fn.append_basic_block("float_join")
    g.b.cbranch(bad, slow, join).set_weights([1, 1000])
    g.b.position_at_end(slow)
    c = g.call_c("lpn_num_arith", [ir.Constant(I32, ord(op)), a.cls, a.bits, b.cls, b.bits], FLOAT, site)
    g.pop()
    slow_r = g.b.bitcast(c.bits, d)
    slow_end = g.b.block
    g.b.branch(join)
    g.b.position_at_end(join)
    res = g.b.phi(d)
    res.add_incoming(r, fast_end)
    res.add_incoming(slow_r, slow_end)
    return g.push(V(c64(3), g.b.bitcast(res, I64), FLOAT))


def _maybe_int(v) -> bool:
    return kind(v.ty) in (None, "Integer", "Number")


def _int_arith(g, sel, intrinsic, a, b, site) -> V:
    r = g.b.call(g.mod.intrinsic(f"llvm.{intrinsic}.with.overflow.i64"), [a.bits, b.bits])
    with g.b.if_then(g.b.extract_value(r, 1), likely=False):
        g.b.call(g.mod.c("lpn_int_overflow"), [g.mod.layout.cstring(sel), a.bits, b.bits])
        g.raise_now(site)
    return V(c64(2), g.b.extract_value(r, 0), INT)


_CMP = {"<": ("<", "<"), ">": (">", ">"), "<=": ("<=", "l"), ">=": (">=", "g")}


@prim("Number", "<", ">", "<=", ">=")
def _compare(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    pred, op = _CMP[sel]
    if _ints(a, b):
        return g.push(_bool(g, g.b.icmp_signed(pred, a.bits, b.bits)))
    slow = lambda: g.call_c("lpn_num_compare", [ir.Constant(I32, ord(op)), a.cls, a.bits, b.cls, b.bits],  # noqa: E731
                            BOOL, site)
    if _floats(a, b):
        x, y = _double(g, a), _double(g, b)
        inline = lambda: g.push(_bool(g, g.b.fcmp_ordered(pred, x, y)))  # noqa: E731
        if kind(a.ty) == kind(b.ty):
            return inline()
        # an Integer and a Float: exact unless the Integer rounds to the Float (the C core then
        # compares exactly, as the interpreter does)
        return g.if_else(g.b.fcmp_ordered("==", x, y), slow, inline, BOOL)
    if _maybe_int(a) and _maybe_int(b):
        both = g.b.and_(g.b.icmp_unsigned("==", a.cls, c64(2)), g.b.icmp_unsigned("==", b.cls, c64(2)))
        return g.if_else(both, lambda: g.push(_bool(g, g.b.icmp_signed(pred, a.bits, b.bits))), slow, BOOL)
    return slow()


@prim("Number", "max:", "min:")
def _max_min(g, sel, n, site, tail, ty):
    a, b = g.owned[-2:]
    if _ints(a, b):
        g.pop_n(2)
        pick_a = g.b.icmp_signed(">=" if sel == "max:" else "<=", a.bits, b.bits)
        return g.push(V(c64(2), g.b.select(pick_a, a.bits, b.bits), INT))
    g.pop_n(2)
    c = g.call_c("lpn_num_compare", [ir.Constant(I32, ord("g" if sel == "max:" else "l")), a.cls, a.bits,
                                     b.cls, b.bits], BOOL, site)
    g.pop()
    pick_a = g.b.trunc(c.bits, ir.IntType(1))
    return g.push(V(g.b.select(pick_a, a.cls, b.cls), g.b.select(pick_a, a.bits, b.bits), _known(ty, I.UNKNOWN)))


_UNARY = {"abs": "a", "negated": "n", "asFloat": "f", "sqrt": "s", "squared": "q", "asInteger": "i", "isZero": "z"}
_UNARY_TYPE = {"asInteger": INT, "isZero": BOOL}   # the others follow the operand (_num_result)


@prim("Number", *_UNARY)
def _unary(g, sel, n, site, tail, ty):
    a = g.pop()
    if sel == "asFloat" and kind(a.ty) in ("Integer", "Float"):
        return g.push(V(c64(3), g.b.bitcast(_double(g, a), I64), FLOAT))
    return g.call_c("lpn_num_unary", [ir.Constant(I32, ord(_UNARY[sel])), a.cls, a.bits],
                    _known(ty, _UNARY_TYPE.get(sel) or _num_result(sel, a)), site)


@prim("Integer", "even", "odd", "isZero")
def _int_tests(g, sel, n, site, tail, ty):
    a = g.pop()
    if sel == "isZero":
        return g.push(_bool(g, g.b.icmp_signed("==", a.bits, c64(0))))
    low = g.b.trunc(a.bits, ir.IntType(1))
    return g.push(_bool(g, g.b.not_(low) if sel == "even" else low))


# ---- any object ------------------------------------------------------------------------

_SAME = {"=": ("lpn_equal", False), "~=": ("lpn_equal", True), "==": ("lpn_identical", False),
         "~~": ("lpn_identical", True)}


@prim("Object", "=", "~=", "==", "~~")
def _equal(g, sel, n, site, tail, ty):
    """Equality (`=`: two Integers inline) and identity, or their negations."""
    a, b = g.pop_n(2)
    fn, negated = _SAME[sel]
    if fn == "lpn_equal" and _ints(a, b):
        return g.push(_bool(g, g.b.icmp_signed("!=" if negated else "==", a.bits, b.bits)))
    v = g.call_c(fn, [a.cls, a.bits, b.cls, b.bits], BOOL, site, may_fail=False)
    if negated:
        g.pop()
        v = g.push(V(v.cls, g.b.xor(v.bits, c64(1)), BOOL))
    return v


@prim("Object", "isNil", "notNil")
def _is_nil(g, sel, n, site, tail, ty):
    a = g.pop()
    g.drop(a)
    return g.push(_bool(g, g.b.icmp_unsigned("==" if sel == "isNil" else "!=", a.cls, c64(0))))


@prim("Object", "yourself")
@prim("Number", "asNumber")
def _yourself(g, sel, n, site, tail, ty):
    return g.owned[-1]


@prim("Object", "->")
def _assoc(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    return g.call_c("lpn_assoc_new", [a.cls, a.bits, b.cls, b.bits], _known(ty, I.UNKNOWN), site, may_fail=False)


@prim("Object", "new", side=True)
@prim("Error", "new", side=True)   # its own, as in lp run: a user `Object class >> new` does not reach Error
def _new(g, sel, n, site, tail, ty):
    r = g.pop()
    return g.call_c("lpn_new_instance", [r.bits], _known(ty, I.UNKNOWN), site, may_fail=False)


# ---- booleans --------------------------------------------------------------------------

@prim("Boolean", "not")
def _not(g, sel, n, site, tail, ty):
    a = g.pop()
    return g.push(V(c64(1), g.b.xor(a.bits, c64(1)), BOOL))


@prim("Boolean", "&", "|", "xor:")
def _bool_ops(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    op = {"&": g.b.and_, "|": g.b.or_, "xor:": g.b.xor}[sel]
    return g.push(V(c64(1), op(a.bits, g.b.and_(b.bits, c64(1))), BOOL))


@prim("Boolean", "and:", "or:")
def _and_or(g, sel, n, site, tail, ty):
    a, blk = g.owned[-2:]
    cond = g.b.trunc(a.bits, ir.IntType(1))

    def run_block():
        g.owned.remove(a)
        return _call_block(g, 0, site, tail, BOOL)

    def answer():
        g.pop_n(2)
        g.drop(blk)
        return g.push(V(c64(1), c64(0 if sel == "and:" else 1), BOOL))
    if sel == "and:":
        return g.if_else(cond, run_block, answer, BOOL)
    return g.if_else(cond, answer, run_block, BOOL)


# ---- blocks ----------------------------------------------------------------------------

def _call_block(g, nargs, site, tail, ty, checked=True):
    """Call the block below the nargs arguments on top of the stack."""
    blk = g.owned[-(nargs + 1)]
    code = g.b.load(g.b.gep(g.as_ptr(blk), [c64(8)], source_etype=ir.IntType(8)), typ=PTR)
    return g.call_lp(g.mod.indirect(code, nargs), None, blk, g.owned[len(g.owned) - nargs:], site, tail, ty,
                     checked=checked)


@prim("Block", "value", "value:", "value:value:", "value:value:value:", "value:value:value:value:")
def _value(g, sel, n, site, tail, ty):
    return _call_block(g, n, site, tail, _known(ty, I.UNKNOWN))


def _check_block(g, blk, sel, site):
    """The interpreter's `#sel expects a Block, not ...` when blk (owned, kept) is not a Block."""
    g.call_c("lpn_block_check", [blk.cls, blk.bits, g.mod.layout.cstring(sel)], I.Ty("UndefinedObject"), site)
    g.pop()


def _block_arity(g, blk):
    p = g.b.gep(g.as_ptr(blk), [c64(24)], source_etype=ir.IntType(8))
    return g.b.load(p, typ=I32)


@prim("Boolean", "ifTrue:ifFalse:", "ifFalse:ifTrue:")
def _if_blocks(g, sel, n, site, tail, ty):
    """Reached only when a branch is not a literal block (literal ones are inlined as I.If)."""
    b, x, y = g.owned[-3:]
    t, f = (x, y) if sel == "ifTrue:ifFalse:" else (y, x)
    rty = _known(ty, I.UNKNOWN)

    def arm(take, skip):
        def run():
            g.owned.remove(b)
            g.owned.remove(skip)
            g.drop(skip)
            g.owned.remove(take)
            g.push(take)
            # the interpreter answers a branch that is not a Block as it is
            return g.if_else(g.b.icmp_unsigned("==", take.cls, c64(22)),
                             lambda: _call_block(g, 0, site, tail, rty),
                             lambda: g.push(V(g.pop().cls, take.bits, rty)), rty)
        return run
    return g.if_else(g.b.trunc(b.bits, ir.IntType(1)), arm(t, f), arm(f, t), rty)


def _nil_branches(g, sel, site, tail, ty, v, on_nil, on_value):
    """v is nil: call on_nil; else call on_value with v when it takes one argument, else without
    (the interpreter's rule); on_value None (ifNil:) answers v itself."""
    rty = _known(ty, I.UNKNOWN)

    def nil_arm():
        g.owned.remove(v)
        if on_value is not None:
            g.owned.remove(on_value)
            g.drop(on_value)
        g.owned.remove(on_nil)
        g.push(on_nil)
        _check_block(g, on_nil, sel, site)
        return _call_block(g, 0, site, tail, rty)

    def value_arm():
        g.owned.remove(on_nil)
        g.drop(on_nil)
        if on_value is None:
            g.owned.remove(v)
            return g.push(V(v.cls, v.bits, rty))
        g.owned.remove(v)
        g.owned.remove(on_value)
        g.push(on_value)
        g.push(v)
        _check_block(g, on_value, sel, site)
        one = g.b.icmp_unsigned("==", _block_arity(g, on_value), ir.Constant(I32, 1))

        def with_arg():
            return _call_block(g, 1, site, tail, rty)

        def without():
            g.drop(g.pop())
            return _call_block(g, 0, site, tail, rty)
        return g.if_else(one, with_arg, without, rty)
    return g.if_else(g.b.icmp_unsigned("==", v.cls, c64(0)), nil_arm, value_arm, rty)


@prim("Object", "ifNil:")
def _if_nil(g, sel, n, site, tail, ty):
    v, a = g.owned[-2:]
    return _nil_branches(g, sel, site, tail, ty, v, a, None)


@prim("Object", "ifNil:ifNotNil:", "ifNotNil:ifNil:")
def _if_nil_not_nil(g, sel, n, site, tail, ty):
    v, x, y = g.owned[-3:]
    on_nil, on_value = (x, y) if sel == "ifNil:ifNotNil:" else (y, x)
    return _nil_branches(g, sel, site, tail, ty, v, on_nil, on_value)


@prim("Block", "numArgs")
def _num_args(g, sel, n, site, tail, ty):
    blk = g.pop()
    p = g.b.gep(g.as_ptr(blk), [c64(24)], source_etype=ir.IntType(8))
    arity = g.b.zext(g.b.load(p, typ=I32), I64)
    g.drop(blk)
    return g.push(V(c64(2), arity, INT))


@prim("Block", "ensure:", "ifCurtailed:")
def _ensure(g, sel, n, site, tail, ty):
    body, cleanup = g.pop_n(2)
    g.push(cleanup)
    g.push(body)
    r = _call_block(g, 0, site, False, _known(ty, I.UNKNOWN), checked=False)

    def unwinding():
        g.pop()                                   # r is the UNWIND status, not a value
        saved = g.b.call(g.mod.c("lpn_unwind_save"), [])
        with g.b.if_then(g.b.icmp_unsigned("==", saved, ir.Constant(PTR, None)), likely=False):
            keep = list(g.owned)                  # an exit signal: no cleanup runs
            g.unwind_here(site)
            g.owned = keep
        _call_block(g, 0, site, False, I.UNKNOWN, checked=False)
        g.drop(g.pop())
        g.b.call(g.mod.c("lpn_unwind_restore"), [saved])
        g.unwind_here(site)
        return None

    def normal():
        res = g.pop()
        c = g.pop()
        g.push(res)
        if sel == "ensure:":
            g.push(c)
            _call_block(g, 0, site, False, I.UNKNOWN)
            g.drop(g.pop())
        else:
            g.drop(c)
        return res
    return g.if_else(g.is_unwind(r), unwinding, normal, _known(ty, I.UNKNOWN))


# ---- errors ----------------------------------------------------------------------------

@prim("Error", "raise:", "signal:", side=True)
def _raise(g, sel, n, site, tail, ty):
    cls, msg = g.pop_n(2)
    g.b.call(g.mod.c("lpn_raise_new"), [cls.bits, msg.cls, msg.bits])
    g.raise_now(site)
    return g.dead()


@prim("Error", "raise", "signal")
def _reraise(g, sel, n, site, tail, ty):
    e = g.pop()
    g.b.call(g.mod.c("lpn_raise_value"), [e.cls, e.bits])
    g.raise_now(site)
    return g.dead()


@prim("Error", "messageText", "description")
def _message(g, sel, n, site, tail, ty):
    return g.mod.sends.field_get(g, g.owned[-1], 0, STR)


@prim("Error", "try:onError:", side=True)
def _try(g, sel, n, site, tail, ty):
    filt, body, handler = g.pop_n(3)
    g.push(handler)
    g.push(body)
    r = _call_block(g, 0, site, False, _known(ty, I.UNKNOWN), checked=False)

    def caught():
        g.pop()
        e = g.call_c("lpn_catch", [filt.bits], I.UNKNOWN, None, may_fail=False)
        not_ours = g.is_unwind(e)
        with g.b.if_then(not_ours, likely=False):
            saved = list(g.owned)
            g.pop()
            g.unwind_here(site)
            g.owned = saved
        return _call_block(g, 1, site, False, _known(ty, I.UNKNOWN))

    def normal():
        res = g.pop()
        h = g.pop()
        g.drop(h)
        return g.push(res)
    return g.if_else(g.is_unwind(r), caught, normal, _known(ty, I.UNKNOWN))


# ---- text and output -------------------------------------------------------------------

@prim("String", "isEmpty", "notEmpty")
def _empty(g, sel, n, site, tail, ty):
    a = g.pop()
    length = g.b.load(g.b.gep(g.as_ptr(a), [c64(8)], source_etype=ir.IntType(8)), typ=I64)
    g.drop(a)
    return g.push(_bool(g, g.b.icmp_unsigned("==" if sel == "isEmpty" else "!=", length, c64(0))))


def _write(g, v: V, newline: int):
    g.call_c("lpn_transcript", [v.cls, v.bits, ir.Constant(I32, newline)], I.Ty("UndefinedObject"), None,
             may_fail=False)


@prim("Transcript", "show:", "showLine:", "showCr:", side=True)
def _show(g, sel, n, site, tail, ty):
    _, s = g.pop_n(2)
    _write(g, s, int(sel != "show:"))
    return g.owned[-1]


@prim("Transcript", "cr", "tab", "space", side=True)
def _cr(g, sel, n, site, tail, ty):
    g.pop()
    if sel == "cr":
        _write(g, g.nil(), 1)
    else:
        text = "\t" if sel == "tab" else " "
        _write(g, V(c64(16), g.mod.layout.static_string(text).ptrtoint(I64), STR), 0)
    return g.owned[-1]


@prim("String", "new", "lf", "crlf", side=True)
def _line_end(g, sel, n, site, tail, ty):
    g.pop()
    text = {"new": "", "lf": "\n", "crlf": "\r\n"}[sel]
    return g.push(V(c64(16), g.mod.layout.static_string(text).ptrtoint(I64), STR))


@prim("Transcript", "display:", "print:", side=True)
def _display(g, sel, n, site, tail, ty):
    x = g.owned[-1]
    g.mod.set_send_frame(g.b, None, None)
    s = g.call_lp(g.mod.stub("displayString" if sel == "display:" else "printString", 0), None, x, [], site,
                  False, STR)
    g.pop()
    g.pop()
    _write(g, s, 0)
    return g.owned[-1]


# ---- collections -----------------------------------------------------------------------

@prim("Array", "first", "last")
def _arr_end(g, sel, n, site, tail, ty):
    a = g.pop()
    return g.call_c("lpn_arr_end", [a.cls, a.bits, ir.Constant(I32, int(sel == "last"))], _known(ty, I.UNKNOWN), site)


@prim("Array", "isEmpty", "notEmpty")
def _arr_empty(g, sel, n, site, tail, ty):
    a = g.pop()
    length = g.b.load(g.b.gep(g.as_ptr(a), [c64(8)], source_etype=ir.IntType(8)), typ=I64)
    g.drop(a)
    return g.push(_bool(g, g.b.icmp_unsigned("==" if sel == "isEmpty" else "!=", length, c64(0))))


@prim("Array", "includes:")
def _arr_includes(g, sel, n, site, tail, ty):
    a, v = g.pop_n(2)
    r = g.call_c("lpn_arr_index_of", [a.cls, a.bits, v.cls, v.bits], INT, site, may_fail=False)
    g.pop()
    return g.push(_bool(g, g.b.icmp_signed("!=", r.bits, c64(0))))


@prim("Integer", "to:", "to:by:")
def _to(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)
    step = vs[2] if n == 2 else V(c64(2), c64(1), INT)
    return g.call_c("lpn_interval_new", [vs[0].bits, vs[1].cls, vs[1].bits, step.cls, step.bits,
                                         g.mod.layout.cstring(sel)], I.Ty("Interval"), site)


@prim("Dictionary", "new", side=True)
def _dict_new(g, sel, n, site, tail, ty):
    g.pop()
    return g.call_c("lpn_dict_new", [], I.Ty("Dictionary"), site, may_fail=False)


@prim("Dictionary", "isEmpty", "notEmpty")
def _dict_empty(g, sel, n, site, tail, ty):
    d = g.pop()
    r = g.call_c("lpn_dict_size", [d.cls, d.bits], INT, site, may_fail=False)
    g.pop()
    return g.push(_bool(g, g.b.icmp_signed("==" if sel == "isEmpty" else "!=", r.bits, c64(0))))


@prim("Dictionary", "at:ifAbsent:")
def _dict_at_if_absent(g, sel, n, site, tail, ty):
    d, k, blk = g.pop_n(3)
    g.push(blk)
    r = g.call_c("lpn_dict_lookup", [d.cls, d.bits, k.cls, k.bits], _known(ty, I.UNKNOWN), site, may_fail=False)

    def absent():
        g.pop()
        return _call_block(g, 0, site, tail, _known(ty, I.UNKNOWN))

    def present():
        res = g.pop()
        g.drop(g.pop())
        return g.push(res)
    return g.if_else(g.is_unwind(r), absent, present, _known(ty, I.UNKNOWN))


@prim("Array", "copyFrom:to:", "allButFirst", "allButLast")
def _arr_copy(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)
    a = vs[0]
    if sel == "copyFrom:to:":
        i, j, check = vs[1], vs[2], 1
    else:
        length = g.b.load(g.b.gep(g.as_ptr(a), [c64(8)], source_etype=ir.IntType(8)), typ=I64)
        i = V(c64(2), c64(2 if sel == "allButFirst" else 1), INT)
        j = V(c64(2), length if sel == "allButFirst" else g.b.sub(length, c64(1)), INT)
        check = 0
    return g.call_c("lpn_arr_copy", [a.cls, a.bits, i.cls, i.bits, j.cls, j.bits, ir.Constant(I32, check)],
                    _known(ty, I.UNKNOWN), site)


# ---- strings, symbols, characters (runtime/native/text.c) ------------------------------

CHAR = I.Ty("Character")


@prim("String", "copyFrom:to:")
def _str_copy(g, sel, n, site, tail, ty):
    s, a, b = g.pop_n(3)
    return g.call_c("lpn_str_copy", [s.cls, s.bits, a.cls, a.bits, b.cls, b.bits], STR, site)


@prim("Integer", "asCharacter")
def _as_char(g, sel, n, site, tail, ty):
    a = g.pop()
    return g.call_c("lpn_int_as_char", [a.bits], CHAR, site)


@prim("Symbol", "asSymbol")
@prim("Character", "asCharacter")
def _same(g, sel, n, site, tail, ty):
    return g.owned[-1]


# ---- Maybe, Log, class queries, more numbers (runtime/native/misc.c) --------------------

@prim("Maybe", "none", "some:", side=True)
def _maybe_new(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)
    v = vs[1] if n else V(c64(0), c64(0), I.Ty("UndefinedObject"))
    return g.call_c("lpn_maybe_new", [ir.Constant(I32, n), v.cls, v.bits], _known(ty, I.Ty("Maybe")), site,
                    may_fail=False)


@prim("Maybe", "ifPresent:ifAbsent:")
def _maybe_if(g, sel, n, site, tail, ty):
    m, some, none = g.pop_n(3)
    present = g.b.load(g.b.gep(g.as_ptr(m), [c64(8)], source_etype=ir.IntType(8)), typ=I64)
    g.push(m)
    g.push(some)
    g.push(none)

    def run_some():
        m_, s_, n_ = g.pop_n(3)
        g.drop(n_)
        value = g.load_value(g.as_ptr(m_), 16, I.UNKNOWN)
        g.dup(value)
        g.drop(m_)
        g.push(s_)
        g.push(value)
        return _call_block(g, 1, site, tail, _known(ty, I.UNKNOWN))

    def run_none():
        m_, s_, n_ = g.pop_n(3)
        g.drop(m_)
        g.drop(s_)
        g.push(n_)
        return _call_block(g, 0, site, tail, _known(ty, I.UNKNOWN))
    return g.if_else(g.b.icmp_unsigned("!=", present, c64(0)), run_some, run_none, _known(ty, I.UNKNOWN))


@prim("Log", "info:", "warn:", "error:", "debug:", side=True)
def _log(g, sel, n, site, tail, ty):
    x = g.owned[-1]
    g.mod.set_send_frame(g.b, None, None)
    s = g.call_lp(g.mod.stub("displayString", 0), None, x, [], site, False, STR)
    g.pop()
    g.pop()
    return g.call_c("lpn_log", [g.mod.layout.cstring(sel[:-1]), s.cls, s.bits], I.Ty("UndefinedObject"), site,
                    may_fail=False)


@prim("Object", "respondsTo:")
def _responds_to(g, sel, n, site, tail, ty):
    v, s = g.pop_n(2)
    table = responds.selector_table(g.mod)
    return g.call_c("lpn_responds_to", [v.cls, v.bits, s.cls, s.bits, table, c64(g.mod.layout.class_id("Object"))],
                    BOOL, site, may_fail=False)


_INT_OPS = {"bitAnd:": "&", "bitOr:": "|", "bitXor:": "^", "gcd:": "g"}


@prim("Integer", *_INT_OPS)
def _int_op(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    return g.call_c("lpn_int_op", [ir.Constant(I32, ord(_INT_OPS[sel])), a.bits, b.cls, b.bits], INT, site)


@prim("Number", "between:and:")
def _between(g, sel, n, site, tail, ty):
    a, lo, hi = g.pop_n(3)
    c1 = g.call_c("lpn_num_compare", [ir.Constant(I32, ord("l")), lo.cls, lo.bits, a.cls, a.bits], BOOL, site)
    c2 = g.call_c("lpn_num_compare", [ir.Constant(I32, ord("l")), a.cls, a.bits, hi.cls, hi.bits], BOOL, site)
    g.pop_n(2)
    return g.push(V(c64(1), g.b.and_(c1.bits, c2.bits), BOOL))


@prim("Number", "sign")
def _sign(g, sel, n, site, tail, ty):
    a = g.pop()
    pos = g.call_c("lpn_num_compare", [ir.Constant(I32, ord(">")), a.cls, a.bits, c64(2), c64(0)], BOOL, site)
    neg = g.call_c("lpn_num_compare", [ir.Constant(I32, ord("<")), a.cls, a.bits, c64(2), c64(0)], BOOL, site)
    g.pop_n(2)
    return g.push(V(c64(2), g.b.sub(pos.bits, neg.bits), INT))


@prim("Integer", "printString:")
def _print_base(g, sel, n, site, tail, ty):
    a, b = g.pop_n(2)
    return g.call_c("lpn_print_base", [a.bits, b.cls, b.bits], STR, site)


@prim("Array", "new", "with:", "with:with:", "with:with:with:", side=True)
def _array_of(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)[1:]
    arr = g.b.call(g.mod.c("lpn_arr_new"), [c64(n)])
    for i, v in enumerate(vs):
        g.store_value(arr, 16 + 16 * i, v)
    return g.push(V(c64(17), g.b.ptrtoint(arr, I64), _known(ty, I.Ty("Array"))))


@prim("Array", "new:withAll:", side=True)
def _array_new_with_all(g, sel, n, site, tail, ty):
    _, size, v = g.pop_n(3)
    return g.call_c("lpn_arr_new_with_all", [size.cls, size.bits, v.cls, v.bits], _known(ty, I.Ty("Array")), site)


@prim("Array", "occurrencesOf:", "sum")
def _arr_fold(g, sel, n, site, tail, ty):
    vs = g.pop_n(n + 1)
    arg = vs[1] if n else V(c64(0), c64(0), I.Ty("UndefinedObject"))
    return g.call_c("lpn_arr_fold", [ir.Constant(I32, ord("o" if n else "s")), vs[0].cls, vs[0].bits, arg.cls,
                                     arg.bits], _known(ty, I.UNKNOWN), site)


@prim("JSON", "encode:", side=True)
def _json_encode(g, sel, n, site, tail, ty):
    _, v = g.pop_n(2)
    return g.call_c("lpn_json_encode", [v.cls, v.bits], STR, site)


@prim("JSON", "decode:", side=True)
def _json_decode(g, sel, n, site, tail, ty):
    _, v = g.pop_n(2)
    return g.call_c("lpn_json_decode", [v.cls, v.bits], _known(ty, I.UNKNOWN), site)


@prim("Array", "first:", "last:")
@prim("String", "first:", "last:")
def _take(g, sel, n, site, tail, ty):
    a, k = g.pop_n(2)
    return g.call_c("lpn_take", [a.cls, a.bits, k.cls, k.bits, ir.Constant(I32, int(sel == "last:"))],
                    _known(ty, I.UNKNOWN), site)


@prim("String", "allButFirst", "allButLast")
def _str_all_but(g, sel, n, site, tail, ty):
    s = g.pop()
    size = g.b.load(g.b.gep(g.as_ptr(s), [c64(16)], source_etype=ir.IntType(8)), typ=I64)   # nchars
    empty = g.b.icmp_unsigned("==", size, c64(0))
    first = g.b.select(empty, c64(1), c64(2 if sel == "allButFirst" else 1))
    last = g.b.select(empty, c64(0), size if sel == "allButFirst" else g.b.sub(size, c64(1)))
    return g.call_c("lpn_str_copy", [s.cls, s.bits, c64(2), first, c64(2), last], STR, site)


# ---- the rest --------------------------------------------------------------------------

for _key in [("Object", False, "copy"), ("Integer", False, "asInteger"), ("Integer", False, "truncated"),
             ("Integer", False, "rounded"), ("Integer", False, "floor"), ("Integer", False, "ceiling"),
             ("Array", False, "asArray")]:
    PRIMS[_key] = _yourself


@prim("Association", "key", "value")
def _assoc_part(g, sel, n, site, tail, ty):
    a = g.pop()
    v = g.load_value(g.as_ptr(a), 8 if sel == "key" else 24, _known(ty, I.UNKNOWN))
    g.dup(v)
    g.drop(a)
    return g.push(v)


@prim("Association", "key:value:", side=True)
def _assoc_new(g, sel, n, site, tail, ty):
    _, k, v = g.pop_n(3)
    return g.call_c("lpn_assoc_new", [k.cls, k.bits, v.cls, v.bits], _known(ty, I.Ty("Association")), site,
                    may_fail=False)


@prim("Block", "on:do:")
def _on_do(g, sel, n, site, tail, ty):
    body, filt, handler = g.pop_n(3)
    for v in (filt, body, handler):
        g.push(v)
    return _try(g, sel, n, site, tail, ty)


PRIMS.update(one_call_prims())   # compiler/prim_table.py: the primitives that are one C call

