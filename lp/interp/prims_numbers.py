"""Integer and Float primitives. Integers are signed 64-bit: overflow raises, never wraps."""
from __future__ import annotations

import math

from lp.interp.errors import LPRaise, make_error
from lp.interp.registry import prim
from lp.interp.values import Char

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1


def _num(p, v, sel):
    if type(v) is int or type(v) is float:
        return v
    raise LPRaise(make_error(p.interp, f"#{sel} expects a number, not {p.interp.describe(v)}"))


def _int(p, v, sel):
    if type(v) is int:
        return v
    raise LPRaise(make_error(p.interp, f"#{sel} expects an Integer, not {p.interp.describe(v)}"))


def _text(p, v):
    return v if type(v) is str else p.interp.print_string(v)


def _checked(p, r, a, op, b):
    if type(r) is int and not INT_MIN <= r <= INT_MAX:
        raise LPRaise(_overflow(p, a, op, b))
    return r


def _overflow(p, a, op, b):
    return make_error(p.interp, f"integer overflow: {_text(p, a)} {op} {_text(p, b)} does not fit in 64 bits")


def _float_ok(p, r, a, op, b):
    if math.isinf(r) and not (math.isinf(a) or math.isinf(b)):
        raise LPRaise(make_error(p.interp, f"float overflow: {_text(p, a)} {op} {_text(p, b)} is too large"))
    return r


@prim("Number", "+")
def _add(p, a, b):
    r = a + _num(p, b, "+")
    return _checked(p, r, a, "+", b) if type(r) is int else _float_ok(p, r, a, "+", b)


@prim("Number", "-")
def _sub(p, a, b):
    r = a - _num(p, b, "-")
    return _checked(p, r, a, "-", b) if type(r) is int else _float_ok(p, r, a, "-", b)


@prim("Number", "*")
def _mul(p, a, b):
    r = a * _num(p, b, "*")
    return _checked(p, r, a, "*", b) if type(r) is int else _float_ok(p, r, a, "*", b)


def _nonzero(p, b, sel):
    if _num(p, b, sel) == 0:
        raise LPRaise(make_error(p.interp, "division by zero"))
    return b


@prim("Number", "/")
def _div(p, a, b):
    return _float_ok(p, a / _nonzero(p, b, "/"), a, "/", b)


@prim("Number", "//")
def _floordiv(p, a, b):
    r = a // _nonzero(p, b, "//")
    return _checked(p, r, a, "//", b) if type(r) is int else _float_ok(p, r, a, "//", b)


@prim("Number", "\\\\")
def _mod(p, a, b):
    return a % _nonzero(p, b, "\\\\")


@prim("Number", "rem:")
def _rem(p, a, b):
    _nonzero(p, b, "rem:")
    if type(a) is float or type(b) is float:
        return math.fmod(a, b) if not math.isinf(a) else math.nan
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


@prim("Number", "<")
def _lt(p, a, b):
    return a < _num(p, b, "<")


@prim("Number", ">")
def _gt(p, a, b):
    return a > _num(p, b, ">")


@prim("Number", "<=")
def _le(p, a, b):
    return a <= _num(p, b, "<=")


@prim("Number", ">=")
def _ge(p, a, b):
    return a >= _num(p, b, ">=")


@prim("Number", "=")
def _eq(p, a, b):
    return (type(b) is int or type(b) is float) and a == b


@prim("Number", "~=")
def _ne(p, a, b):
    return not ((type(b) is int or type(b) is float) and a == b)


@prim("Number", "abs")
def _abs(p, a):
    return _checked(p, abs(a), "abs", "of", a)


@prim("Number", "negated")
def _neg(p, a):
    return _checked(p, -a, 0, "-", a)


@prim("Number", "max:")
def _max(p, a, b):
    return a if a >= _num(p, b, "max:") else b


@prim("Number", "min:")
def _min(p, a, b):
    return a if a <= _num(p, b, "min:") else b


@prim("Number", "between:and:")
def _between(p, a, lo, hi):
    return _num(p, lo, "between:and:") <= a <= _num(p, hi, "between:and:")


@prim("Number", "asFloat")
def _as_float(p, a):
    return float(a)


@prim("Number", "sqrt")
def _sqrt(p, a):
    if a < 0:
        raise LPRaise(make_error(p.interp, f"the square root of {_text(p, a)} is not a real number"))
    return math.sqrt(a)


@prim("Number", "squared")
def _squared(p, a):
    r = a * a
    return _checked(p, r, a, "*", a) if type(r) is int else _float_ok(p, r, a, "*", a)


@prim("Number", "asNumber")
def _as_number(p, a):
    return a


@prim("Number", "isZero")
def _is_zero(p, a):
    return a == 0


@prim("Number", "sign")
def _sign(p, a):
    return (a > 0) - (a < 0)


@prim("Integer", "even")
def _even(p, a):
    return a % 2 == 0


@prim("Integer", "odd")
def _odd(p, a):
    return a % 2 == 1


@prim("Integer", "gcd:")
def _gcd(p, a, b):
    return _checked(p, math.gcd(a, _int(p, b, "gcd:")), a, "gcd:", b)


@prim("Integer", "asCharacter")
def _as_char(p, a):
    if not 0 <= a <= 0x10FFFF or 0xD800 <= a <= 0xDFFF:
        raise LPRaise(make_error(p.interp, f"{a} is not a Unicode character code (0 to 16r10FFFF, "
                                 "without the surrogates 16rD800 to 16rDFFF)"))
    return Char(chr(a))


@prim("Integer", "asInteger", "truncated", "rounded", "floor", "ceiling")
def _int_identity(p, a):
    return a


@prim("Integer", "bitAnd:")
def _band(p, a, b):
    return a & _int(p, b, "bitAnd:")


@prim("Integer", "bitOr:")
def _bor(p, a, b):
    return a | _int(p, b, "bitOr:")


@prim("Integer", "bitXor:")
def _bxor(p, a, b):
    return a ^ _int(p, b, "bitXor:")


@prim("Integer", "bitShift:")
def _bshift(p, a, b):
    _int(p, b, "bitShift:")
    if b < 0:
        return a >> -b if b > -64 else (0 if a >= 0 else -1)
    if a == 0:
        return 0
    if b >= 64:  # checked before shifting: a huge shift would allocate the whole result first
        raise LPRaise(_overflow(p, a, "bitShift:", b))
    return _checked(p, a << b, a, "bitShift:", b)


def _to_int(p, f, how):
    if math.isnan(f) or math.isinf(f):
        raise LPRaise(make_error(p.interp, f"{_text(p, f)} has no integer value"))
    return _checked(p, how(f), f, "as", "Integer")


@prim("Float", "truncated", "asInteger")
def _trunc(p, a):
    return _to_int(p, a, math.trunc)


@prim("Number", "asInteger")
def _number_as_integer(p, a):
    return a if type(a) is int else _to_int(p, a, math.trunc)


@prim("Float", "rounded")
def _round(p, a):
    return _to_int(p, a, _round_half_up)


def _round_half_up(f: float) -> int:
    # f - floor(f) is exact for a double; f + 0.5 is not (0.49999999999999994 + 0.5 == 1.0)
    r = math.floor(f)
    return r + 1 if f - r >= 0.5 else r


@prim("Float", "floor")
def _floor(p, a):
    return _to_int(p, a, math.floor)


@prim("Float", "ceiling")
def _ceil(p, a):
    return _to_int(p, a, math.ceil)


@prim("Float", "isNaN")
def _isnan(p, a):
    return math.isnan(a)


@prim("Float", "roundTo:")
def _round_to(p, a, q):
    r = a / _nonzero(p, q, "roundTo:")
    if math.isnan(r) or math.isinf(r):
        return r * q if not math.isnan(r) else r
    return _float_ok(p, float(round(r)) * q, a, "roundTo:", q)


def _fast_checked(op, name):
    def f(a, b):
        r = op(a, b)
        if INT_MIN <= r <= INT_MAX:
            return r
        raise LPRaise(_overflow_error(a, name, b))
    return f


_overflow_interp = []


def _overflow_error(a, name, b):
    return make_error(_overflow_interp[0], f"integer overflow: {a} {name} {b} does not fit in 64 bits")


def int_fast_paths(interp) -> dict:
    """Integer op Integer shortcuts for the machine, valid while Integer's methods are the primitives."""
    import operator
    _overflow_interp[:] = [interp]
    table = {
        "+": (_add, _fast_checked(operator.add, "+")), "-": (_sub, _fast_checked(operator.sub, "-")),
        "*": (_mul, _fast_checked(operator.mul, "*")),
        "<": (_lt, operator.lt), ">": (_gt, operator.gt), "<=": (_le, operator.le), ">=": (_ge, operator.ge),
        "=": (_eq, operator.eq), "~=": (_ne, operator.ne),
    }
    integer = interp.classes["Integer"]
    out = {}
    for sel, (prim_fn, fast) in table.items():
        m = integer.lookup(sel)
        if m is not None and getattr(m, "fn", None) is prim_fn:
            out[sel] = fast
    return out


@prim("Integer", "printString:")
def _print_base(p, a, base):
    if type(base) is not int or not 2 <= base <= 36:
        raise LPRaise(make_error(p.interp, f"printString: expects a base from 2 to 36, not {p.interp.describe(base)}"))
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    n, out = abs(a), ""
    while True:
        n, d = divmod(n, base)
        out = digits[d] + out
        if n == 0:
            break
    return ("-" if a < 0 else "") + out


@prim("Number", "raisedTo:")
def _raised_to(p, a, b):
    _num(p, b, "raisedTo:")
    if type(a) is int and type(b) is int:
        if b < 0:
            raise LPRaise(make_error(p.interp, f"{a} raisedTo: {b}: an Integer power needs an exponent >= 0 "
                                     "(use asFloat for a fraction)"))
        if a in (0, 1) or b == 0:
            return 1 if b == 0 else a
        if a == -1:
            return 1 if b % 2 == 0 else -1
        if b > 64 or (abs(a).bit_length() - 1) * b > 64:  # checked before computing: no huge intermediate
            raise LPRaise(_overflow(p, a, "raisedTo:", b))
        return _checked(p, a ** b, a, "raisedTo:", b)
    if a < 0 and not float(b).is_integer():
        raise LPRaise(make_error(p.interp, f"{_text(p, a)} raisedTo: {_text(p, b)} is not a real number"))
    if a == 0 and b < 0:
        raise LPRaise(make_error(p.interp, "division by zero"))
    try:
        r = math.pow(a, b)
    except OverflowError:
        raise LPRaise(make_error(p.interp, f"float overflow: {_text(p, a)} raisedTo: {_text(p, b)} is too large")) from None
    return _float_ok(p, r, a, "raisedTo:", b)
