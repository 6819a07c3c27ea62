"""Array, Dictionary, Maybe and Association primitives. Collections are immutable:
`with:`, `at:put:` and friends answer new collections. Iteration with blocks is in stdlib/core.lp.
"""
from __future__ import annotations

from lp.interp.errors import LPRaise, make_error
from lp.interp.prims_numbers import INT_MAX, INT_MIN
from lp.interp.prims_objects import call
from lp.interp.prims_text import _fits
from lp.interp.registry import prim
from lp.interp.values import NONE, Association, Closure, Interval, LPDict, Maybe

_ABSENT = object()
from lp.interp.vm import Call


def _index(p, a, i, sel):
    if type(i) is not int:
        raise LPRaise(make_error(p.interp, f"#{sel} expects an Integer index, not {p.interp.describe(i)}"))
    if not 1 <= i <= len(a):
        raise LPRaise(make_error(p.interp, f"index {i} is out of bounds: the size is {len(a)}"))
    return i


def _array(p, v, sel):
    if type(v) is tuple:
        return v
    raise LPRaise(make_error(p.interp, f"#{sel} expects an Array, not {p.interp.describe(v)}"))


@prim("Array", "new", class_side=True)
def _array_new(p, cls):
    return ()


@prim("Array", "new:withAll:", class_side=True)
def _array_new_with(p, cls, n, v):
    if type(n) is not int or n < 0:
        raise LPRaise(make_error(p.interp, f"new:withAll: expects a size >= 0, not {p.interp.describe(n)}"))
    _fits(p, n, "new:withAll:")
    return (v,) * n


@prim("Array", "with:", class_side=True)
def _array_with1(p, cls, a):
    return (a,)


@prim("Array", "with:with:", class_side=True)
def _array_with2(p, cls, a, b):
    return (a, b)


@prim("Array", "with:with:with:", class_side=True)
def _array_with3(p, cls, a, b, c):
    return (a, b, c)


@prim("Array", "at:")
def _at(p, a, i):
    return a[_index(p, a, i, "at:") - 1]


@prim("Array", "at:put:")
def _at_put(p, a, i, v):
    i = _index(p, a, i, "at:put:")
    return a[:i - 1] + (v,) + a[i:]


@prim("Array", "size")
def _size(p, a):
    return len(a)


@prim("Array", "with:", "copyWith:")
def _with(p, a, v):
    return a + (v,)


@prim("Array", ",")
def _concat(p, a, b):
    return a + _array(p, b, ",")


@prim("Array", "first")
def _first(p, a):
    if not a:
        raise LPRaise(make_error(p.interp, "#first of an empty Array"))
    return a[0]


@prim("Array", "last")
def _last(p, a):
    if not a:
        raise LPRaise(make_error(p.interp, "#last of an empty Array"))
    return a[-1]


@prim("Array", "isEmpty")
def _is_empty(p, a):
    return not a


@prim("Array", "notEmpty")
def _not_empty(p, a):
    return bool(a)


@prim("Array", "includes:")
def _includes(p, a, v):
    return any(p.interp.equal(x, v) for x in a)


@prim("Array", "indexOf:")
def _index_of(p, a, v):
    for i, x in enumerate(a, 1):
        if p.interp.equal(x, v):
            return i
    return 0


@prim("Array", "reversed")
def _reversed(p, a):
    return a[::-1]


@prim("Array", "asArray")
def _as_array(p, a):
    return a


@prim("Array", "copyFrom:to:")
def _copy_from(p, a, i, j):
    if type(i) is not int or type(j) is not int or i < 1 or j > len(a) or i > j + 1:
        raise LPRaise(make_error(p.interp, f"copyFrom: {p.interp.print_string(i)} to: {p.interp.print_string(j)} "
                                 f"is out of bounds for size {len(a)}"))
    return a[i - 1:j]


@prim("Array", "allButFirst")
def _all_but_first(p, a):
    return a[1:]


@prim("Array", "allButLast")
def _all_but_last(p, a):
    return a[:-1]


def _sort_key(p):
    def key(v):
        if type(v) in (int, float):
            return (0, v, "")
        if type(v) is str:
            return (1, 0, v)
        raise LPRaise(make_error(p.interp, f"#asSortedArray can only order numbers and strings, "
                                 f"not {p.interp.describe(v)}"))
    return key


@prim("Array", "asSortedArray")
def _sorted(p, a):
    return tuple(sorted(a, key=_sort_key(p)))


@prim("Array", "sum")
def _sum(p, a):
    from lp.interp.prims_numbers import _add
    total = 0
    for x in a:
        total = _add(p, total, x) if type(total) in (int, float) else total
    return total


# ---- Dictionary (a HAMT, see values.LPDict)

@prim("Dictionary", "new", class_side=True)
def _dict_new(p, cls):
    return LPDict()


def _missing(p, d, k):
    return LPRaise(make_error(p.interp, f"key not found: {p.interp.print_string(k)}"))


def _unhashable(p, k):
    return LPRaise(make_error(p.interp, f"{p.interp.describe(k)} cannot be a Dictionary key"))


@prim("Dictionary", "at:")
def _dict_at(p, d, k):
    try:
        v = d.get(k, _ABSENT)
    except TypeError:
        raise _unhashable(p, k) from None
    if v is _ABSENT:
        raise _missing(p, d, k)
    return v


@prim("Dictionary", "at:ifAbsent:")
def _dict_at_if_absent(p, d, k, blk):
    try:
        v = d.get(k, _ABSENT)
    except TypeError:
        raise _unhashable(p, k) from None
    if v is _ABSENT:
        return Call(blk) if type(blk) is Closure else blk
    return v


@prim("Dictionary", "at:put:")
def _dict_at_put(p, d, k, v):
    try:
        return d.put(k, v)
    except TypeError:
        raise _unhashable(p, k) from None


@prim("Dictionary", "removeKey:")
def _dict_remove(p, d, k):
    try:
        return d.remove(k)
    except TypeError:
        raise _unhashable(p, k) from None


@prim("Dictionary", "includesKey:")
def _dict_includes(p, d, k):
    try:
        return k in d
    except TypeError:
        raise _unhashable(p, k) from None


@prim("Dictionary", "keys")
def _dict_keys(p, d):
    return tuple(k for k, _ in d.entries())


@prim("Dictionary", "values")
def _dict_values(p, d):
    return tuple(v for _, v in d.entries())


@prim("Dictionary", "associations")
def _dict_assocs(p, d):
    return tuple(Association(k, v) for k, v in d.entries())


@prim("Dictionary", "size")
def _dict_size(p, d):
    return len(d)


@prim("Dictionary", "isEmpty")
def _dict_empty(p, d):
    return len(d) == 0


# ---- Maybe

@prim("Maybe", "none", class_side=True)
def _none(p, cls):
    return NONE


@prim("Maybe", "some:", class_side=True)
def _some(p, cls, v):
    return Maybe(True, v)


@prim("Maybe", "ifPresent:ifAbsent:")
def _if_present_absent(p, m, blk, other):
    return call(p, blk, "ifPresent:ifAbsent:", (m.value,)) if m.present else call(p, other, "ifPresent:ifAbsent:")


@prim("Maybe", "valueOr:")
def _value_or(p, m, default):
    return m.value if m.present else default


@prim("Maybe", "isSome")
def _is_some(p, m):
    return m.present


@prim("Maybe", "isNone")
def _is_none(p, m):
    return not m.present


@prim("Maybe", "value")
def _maybe_value(p, m):
    if not m.present:
        raise LPRaise(make_error(p.interp, "#value of Maybe none"))
    return m.value


# ---- Association

@prim("Association", "key")
def _key(p, a):
    return a.key


@prim("Association", "value")
def _value(p, a):
    return a.value


@prim("Association", "key:value:", class_side=True)
def _assoc_new(p, cls, k, v):
    return Association(k, v)


@prim("Array", "reverse")
def _reverse(p, a):
    return a[::-1]


@prim("Dictionary", "notEmpty")
def _dict_not_empty(p, d):
    return len(d) > 0


@prim("Maybe", "isPresent")
def _is_present(p, m):
    return m.present



# ---- Interval: `1 to: 10`, `10 to: 1 by: -2`; block-taking methods are in core.lp

@prim("Integer", "to:")
def _to(p, a, b):
    return _interval(p, a, b, 1, "to:")


@prim("Integer", "to:by:")
def _to_by(p, a, b, step):
    return _interval(p, a, b, step, "to:by:")


def _interval(p, a, b, step, sel):
    for v in (b, step):
        if type(v) is not int:
            raise LPRaise(make_error(p.interp, f"#{sel} expects Integers, not {p.interp.describe(v)}"))
    if step == 0:
        raise LPRaise(make_error(p.interp, "an Interval's step must not be 0"))
    return Interval(a, b, step)


@prim("Interval", "at:")
def _iv_at(p, iv, i):
    if type(i) is not int:
        raise LPRaise(make_error(p.interp, f"#at: expects an Integer index, not {p.interp.describe(i)}"))
    if not 1 <= i <= iv.size:
        raise LPRaise(make_error(p.interp, f"index {i} is out of bounds: the size is {iv.size}"))
    return iv.at(i)


@prim("Interval", "size")
def _iv_size(p, iv):
    if iv.size >= 1 << 63:
        raise LPRaise(make_error(p.interp, f"integer overflow: the size of {p.interp.print_string(iv)} "
                                 "does not fit in 64 bits"))
    return iv.size


@prim("Interval", "first")
def _iv_first(p, iv):
    if not iv.size:
        raise LPRaise(make_error(p.interp, "#first of an empty Interval"))
    return iv.start


@prim("Interval", "last")
def _iv_last(p, iv):
    if not iv.size:
        raise LPRaise(make_error(p.interp, "#last of an empty Interval"))
    return iv.at(iv.size)


@prim("Interval", "isEmpty")
def _iv_empty(p, iv):
    return iv.size == 0


@prim("Interval", "notEmpty")
def _iv_not_empty(p, iv):
    return iv.size > 0


@prim("Interval", "includes:")
def _iv_includes(p, iv, v):
    if type(v) is float and v.is_integer():
        v = int(v)
    if type(v) is not int or not iv.size:
        return False
    return (v - iv.start) % iv.step == 0 and 1 <= (v - iv.start) // iv.step + 1 <= iv.size


@prim("Interval", "asArray")
def _iv_array(p, iv):
    _fits(p, iv.size, "asArray")
    return tuple(iv)


@prim("Interval", "reversed", "reverse")
def _iv_reversed(p, iv):
    return Interval(iv.at(iv.size), iv.start, -iv.step) if iv.size else iv


@prim("Interval", "sum")
def _iv_sum(p, iv):
    total = iv.size * (iv.start + iv.at(iv.size)) // 2 if iv.size else 0
    if not INT_MIN <= total <= INT_MAX:
        raise LPRaise(make_error(p.interp, f"integer overflow: the sum of {p.interp.print_string(iv)} "
                                 "does not fit in 64 bits"))
    return total


# ---- more Array selectors

@prim("Array", "occurrencesOf:")
def _occurrences(p, a, v):
    return sum(1 for x in a if p.interp.equal(x, v))


# Arrays and Strings are both sequences Python slices alike: one implementation serves both.
@prim("Array", "first:")
@prim("String", "first:")
def _first_n(p, a, n):
    return a[:_count(p, a, n, "first:")]


@prim("Array", "last:")
@prim("String", "last:")
def _last_n(p, a, n):
    n = _count(p, a, n, "last:")
    return a[len(a) - n:]


def _count(p, a, n, sel):
    if type(n) is not int or not 0 <= n <= len(a):
        raise LPRaise(make_error(p.interp, f"#{sel} expects a count from 0 to {len(a)}, not {p.interp.describe(n)}"))
    return n


@prim("Array", "copyWithout:")
def _copy_without(p, a, v):
    return tuple(x for x in a if not p.interp.equal(x, v))


@prim("Dictionary", "includes:")
def _dict_includes_value(p, d, v):
    return any(p.interp.equal(x, v) for _, x in d.entries())


@prim("Dictionary", "keyAtValue:")
def _dict_key_at_value(p, d, v):
    for k, x in d.entries():
        if p.interp.equal(x, v):
            return Maybe(True, k)
    return NONE
