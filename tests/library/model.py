"""Python models of LP's printing and arithmetic, used by the property tests as the reference."""
from __future__ import annotations

import math
import re

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = re.compile(r"([A-Za-z_][A-Za-z0-9_]*:)+\Z")
_BINARY = re.compile(r"[-+*/\\<>=~@%|&?,!]+\Z")


def p_float(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    r = repr(v)
    if "e" in r:
        mant, exp = r.split("e")
        return f"{mant if '.' in mant else mant + '.0'}e{int(exp)}"
    return r


def p_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def p_sym(name: str) -> str:
    if _IDENT.match(name) or _KEYWORDS.match(name) or _BINARY.match(name):
        return "#" + name
    return "#'" + name.replace("'", "''") + "'"


class Sym(str):
    """A symbol in a model value (a plain str is an LP String)."""


class Ch(str):
    """A character in a model value."""


def p(v) -> str:
    """The printString LP gives the model value v."""
    if v is True or v is False:
        return "true" if v else "false"
    if v is None:
        return "nil"
    if isinstance(v, Sym):
        return p_sym(v)
    if isinstance(v, Ch):
        return "$" + v
    if isinstance(v, str):
        return p_str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return p_float(v)
    if isinstance(v, (list, tuple)):
        return "#(" + " ".join(p(x) for x in v) + ")"
    if isinstance(v, dict):
        return "Dictionary(" + ", ".join(f"{p(k)} -> {p(x)}" for k, x in v.items()) + ")"
    raise TypeError(v)


def src(v) -> str:
    """LP source for the model value v."""
    if isinstance(v, Sym):
        return p_sym(v)
    if isinstance(v, Ch):
        return "$" + v
    if isinstance(v, (list, tuple)):
        return "{ " + ". ".join(src(x) for x in v) + " }" if v else "#()"
    if isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float):
        return f"({p(v)})"
    return p(v)


def err(text: str) -> str:
    return "error: " + text


def overflow(a, op, b) -> str:
    return err(f"integer overflow: {a} {op} {b} does not fit in 64 bits")


def int_checked(r, a, op, b):
    return str(r) if INT_MIN <= r <= INT_MAX else overflow(a, op, b)
