"""ByteArray: immutable binary data (Python bytes), distinct from String (text); sockets read
it with readBytes:timeout: and write it with writeBytes:. Indices start at 1; elements are the
Integers 0-255. Also the line ends `String lf` and `String crlf` that line protocols need, and
`String sha256Hex` (SHA-256 of the UTF-8 text, 64 lowercase hex digits)."""
from __future__ import annotations

import hashlib

from lp.interp.errors import LPRaise, make_error
from lp.interp.registry import prim


def _bytes(p, v, sel):
    if type(v) is bytes:
        return v
    raise LPRaise(make_error(p.interp, f"#{sel} expects a ByteArray, not {p.interp.describe(v)}"))


def _int(p, v, sel):
    if type(v) is not int:
        raise LPRaise(make_error(p.interp, f"#{sel} expects an Integer, not {p.interp.describe(v)}"))
    return v


@prim("ByteArray", "size")
def _size(p, b):
    return len(b)


@prim("ByteArray", "at:")
def _at(p, b, i):
    _int(p, i, "at:")
    if not 1 <= i <= len(b):
        raise LPRaise(make_error(p.interp, f"index {i} is out of bounds: the size is {len(b)}"))
    return b[i - 1]


@prim("ByteArray", ",")
def _concat(p, a, b):
    return a + _bytes(p, b, ",")


@prim("ByteArray", "copyFrom:to:")
def _copy(p, b, start, stop):
    _int(p, start, "copyFrom:to:")
    _int(p, stop, "copyFrom:to:")
    if stop < start:
        return b""
    if start < 1 or stop > len(b):
        raise LPRaise(make_error(p.interp, f"copyFrom: {start} to: {stop} is out of bounds: the size is {len(b)}"))
    return b[start - 1:stop]


@prim("ByteArray", "isEmpty")
def _empty(p, b):
    return not b


@prim("ByteArray", "notEmpty")
def _not_empty(p, b):
    return bool(b)


@prim("ByteArray", "asArray")
def _as_array(p, b):
    return tuple(b)


@prim("ByteArray", "asString")
def _as_string(p, b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LPRaise(make_error(p.interp, f"asString: the bytes are not UTF-8 text (byte {e.start + 1})"))


@prim("ByteArray", "indexOf:")
def _index_of(p, b, v):
    _int(p, v, "indexOf:")
    return b.find(bytes((v,))) + 1 if 0 <= v <= 255 else 0


@prim("String", "asByteArray")
def _from_string(p, s):
    return s.encode("utf-8")


@prim("String", "sha256Hex")
def _sha256_hex(p, s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


@prim("ByteArray", "new:", class_side=True)
def _new(p, cls, n):
    _int(p, n, "new:")
    if not 0 <= n <= 1 << 30:
        raise LPRaise(make_error(p.interp, f"ByteArray new: {n}: the size must be between 0 and 2^30"))
    return bytes(n)


@prim("ByteArray", "withAll:", class_side=True)
def _with_all(p, cls, arr):
    if type(arr) is not tuple or any(type(x) is not int or not 0 <= x <= 255 for x in arr):
        raise LPRaise(make_error(p.interp, "ByteArray withAll: expects an Array of Integers from 0 to 255"))
    return bytes(arr)


@prim("String", "lf", class_side=True)
def _lf(p, cls):
    return "\n"


@prim("String", "crlf", class_side=True)
def _crlf(p, cls):
    return "\r\n"
