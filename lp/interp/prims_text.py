"""String, Symbol and Character primitives. Strings are immutable; indices start at 1."""
from __future__ import annotations

import math
import re

from lp.interp.errors import LPRaise, make_error
from lp.interp.registry import prim
from lp.interp.values import Char, Symbol


@prim("String", "new", class_side=True)
def _string_new(p, cls):
    return ""


def _str(p, v, sel):
    if type(v) is str:
        return v
    raise LPRaise(make_error(p.interp, f"#{sel} expects a String, not {p.interp.describe(v)}"))


def _index(p, s, i, sel):
    if type(i) is not int:
        raise LPRaise(make_error(p.interp, f"#{sel} expects an Integer index, not {p.interp.describe(i)}"))
    if not 1 <= i <= len(s):
        raise LPRaise(make_error(p.interp, f"index {i} is out of bounds: the size is {len(s)}"))
    return i


@prim("String", ",")
def _concat(p, a, b):
    if type(b) is Symbol:
        return a + b.name
    return a + _str(p, b, ",")


@prim("String", "size")
def _size(p, s):
    return len(s)


@prim("String", "at:")
def _at(p, s, i):
    return Char(s[_index(p, s, i, "at:") - 1])


@prim("String", "includesSubstring:")
def _includes(p, s, t):
    return _str(p, t, "includesSubstring:") in s


@prim("String", "startsWith:")
def _starts(p, s, t):
    return s.startswith(_str(p, t, "startsWith:"))


@prim("String", "endsWith:")
def _ends(p, s, t):
    return s.endswith(_str(p, t, "endsWith:"))


@prim("String", "asSymbol")
def _as_symbol(p, s):
    return Symbol(s)


@prim("String", "asString", "displayString")
def _as_string(p, s):
    return s


_INTEGER = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _quoted(p, s):
    return p.interp.print_string(s if len(s) <= 40 else s[:37] + "...")


@prim("String", "asInteger")
def _as_integer(p, s):
    t = s
    if not _INTEGER.fullmatch(t):
        raise LPRaise(make_error(p.interp, f"{_quoted(p, s)} is not an integer"))
    if len(t.lstrip("+-0")) > 19 or not -(1 << 63) <= int(t) < (1 << 63):
        raise LPRaise(make_error(p.interp, f"{_quoted(p, t)} does not fit in 64 bits"))
    return int(t)


@prim("String", "asNumber")
def _as_number(p, s):
    """A Float for every number ('3' asNumber is 3.0), as its type `asNumber -> Float` says;
    `asInteger` reads an Integer."""
    if not (_INTEGER.fullmatch(s) or _FLOAT.fullmatch(s)):
        raise LPRaise(make_error(p.interp, f"{_quoted(p, s)} is not a number"))
    f = float(s)
    if math.isinf(f):
        raise LPRaise(make_error(p.interp, f"{_quoted(p, s)} is too large for a Float"))
    return f


@prim("String", "lines")
def _lines(p, s):
    return tuple(s.splitlines())


@prim("String", "splitOn:")
def _split(p, s, sep):
    if type(sep) is Char:
        sep = sep.ch
    sep = _str(p, sep, "splitOn:")
    if not sep:
        raise LPRaise(make_error(p.interp, "#splitOn: needs a non-empty separator"))
    return tuple(s.split(sep))


@prim("String", "trim")
def _trim(p, s):
    return s.strip()


@prim("String", "isEmpty")
def _is_empty(p, s):
    return not s


@prim("String", "notEmpty")
def _not_empty(p, s):
    return bool(s)


@prim("String", "reversed")
def _reversed(p, s):
    return s[::-1]


@prim("String", "asUppercase")
def _upper(p, s):
    return s.upper()


@prim("String", "asLowercase")
def _lower(p, s):
    return s.lower()


@prim("String", "copyFrom:to:")
def _copy_from(p, s, a, b):
    if type(a) is not int or type(b) is not int or a < 1 or b > len(s) or a > b + 1:
        raise LPRaise(make_error(p.interp, f"copyFrom: {p.interp.print_string(a)} to: {p.interp.print_string(b)} "
                                 f"is out of bounds for size {len(s)}"))
    return s[a - 1:b]


@prim("String", "indexOf:")
def _index_of(p, s, c):
    ch = c.ch if type(c) is Char else _str(p, c, "indexOf:")
    return s.find(ch) + 1


@prim("String", "copyReplaceAll:with:")
def _replace(p, s, a, b):
    a, b = _str(p, a, "copyReplaceAll:with:"), _str(p, b, "copyReplaceAll:with:")
    if not a:
        raise LPRaise(make_error(p.interp, "#copyReplaceAll:with: needs a non-empty String to replace"))
    _fits(p, len(s) + s.count(a) * max(0, len(b) - len(a)), "copyReplaceAll:with:")
    return s.replace(a, b)


MAX_SIZE = 1 << 28  # elements or characters: a larger String or Array is refused before it is built


def _fits(p, n, sel):
    if n > MAX_SIZE:
        raise LPRaise(make_error(p.interp, f"#{sel} would build a collection of {n} elements, more than the "
                                 f"limit of {MAX_SIZE}"))


@prim("String", "<")
def _slt(p, a, b):
    return a < _str(p, b, "<")


@prim("String", ">")
def _sgt(p, a, b):
    return a > _str(p, b, ">")


@prim("String", "<=")
def _sle(p, a, b):
    return a <= _str(p, b, "<=")


@prim("String", ">=")
def _sge(p, a, b):
    return a >= _str(p, b, ">=")


@prim("String", "asArray")
def _chars(p, s):
    return tuple(Char(c) for c in s)


@prim("Symbol", "asString", "displayString")
def _sym_string(p, s):
    return s.name


@prim("Symbol", "asSymbol")
def _sym_sym(p, s):
    return s


@prim("Symbol", "size")
def _sym_size(p, s):
    return len(s.name)


@prim("Symbol", ",")
def _sym_concat(p, s, t):
    return s.name + (t.name if type(t) is Symbol else _str(p, t, ","))


@prim("Symbol", "numArgs")
def _sym_num_args(p, s):
    n = s.name
    if not n:
        return 0
    return n.count(":") if n.endswith(":") else (0 if n[0].isalpha() or n[0] == "_" else 1)


@prim("Character", "value", "asInteger")
def _char_value(p, c):
    return ord(c.ch)


@prim("Character", "asString", "displayString")
def _char_string(p, c):
    return c.ch


@prim("Character", "asCharacter")
def _char_char(p, c):
    return c


@prim("Character", "isVowel")
def _vowel(p, c):
    return c.ch.lower() in "aeiou"


@prim("Character", "isLetter")
def _letter(p, c):
    return c.ch.isalpha()


@prim("Character", "isDigit")
def _digit(p, c):
    return c.ch.isdigit()


@prim("Character", "isSeparator")
def _space(p, c):
    return c.ch.isspace()


@prim("Character", "asUppercase")
def _cupper(p, c):
    return Char(c.ch.upper()) if len(c.ch.upper()) == 1 else c


@prim("Character", "asLowercase")
def _clower(p, c):
    return Char(c.ch.lower()) if len(c.ch.lower()) == 1 else c


@prim("Character", "<")
def _clt(p, a, b):
    if type(b) is not Char:
        raise LPRaise(make_error(p.interp, f"#< expects a Character, not {p.interp.describe(b)}"))
    return a.ch < b.ch


@prim("Character", ">")
def _cgt(p, a, b):
    if type(b) is not Char:
        raise LPRaise(make_error(p.interp, f"#> expects a Character, not {p.interp.describe(b)}"))
    return a.ch > b.ch


@prim("Character", "asSymbol")
def _char_symbol(p, c):
    return Symbol(c.ch)


@prim("Character", "isUppercase")
def _is_upper(p, c):
    return c.ch.isupper()


@prim("Character", "isLowercase")
def _is_lower(p, c):
    return c.ch.islower()


@prim("Character", "digitValue")
def _digit_value(p, c):
    ch = c.ch
    if "0" <= ch <= "9":
        return ord(ch) - ord("0")
    if ch.isascii() and ch.isalpha():
        return ord(ch.lower()) - ord("a") + 10
    return -1


@prim("Character", "<=")
def _cle(p, a, b):
    return not _cgt(p, a, b)


@prim("Character", ">=")
def _cge(p, a, b):
    return not _clt(p, a, b)


@prim("String", "substrings")
def _substrings(p, s):
    return tuple(s.split())


@prim("String", "reverse")
def _reverse(p, s):
    return s[::-1]


@prim("String", "includes:")
def _includes_char(p, s, c):
    return type(c) is Char and c.ch in s


@prim("String", "first")
def _sfirst(p, s):
    if not s:
        raise LPRaise(make_error(p.interp, "#first of an empty String"))
    return Char(s[0])


@prim("String", "last")
def _slast(p, s):
    if not s:
        raise LPRaise(make_error(p.interp, "#last of an empty String"))
    return Char(s[-1])


@prim("Symbol", "<")
def _symlt(p, a, b):
    return type(b) is Symbol and a.name < b.name


@prim("Symbol", ">")
def _symgt(p, a, b):
    return type(b) is Symbol and a.name > b.name


@prim("String", "join:")
def _join(p, sep, parts):
    if type(parts) is not tuple:
        raise LPRaise(make_error(p.interp, f"#join: expects an Array of Strings, not {p.interp.describe(parts)}"))
    return sep.join(_str(p, x, "join:") for x in parts)


@prim("String", "substrings:")
def _substrings_by(p, s, seps):
    """The parts between any of the characters of seps, without empty parts (Smalltalk's substrings:)."""
    if type(seps) is Char:
        seps = seps.ch
    seps = _str(p, seps, "substrings:")
    parts, cur = [], []
    for c in s:
        if c in seps:
            if cur:
                parts.append("".join(cur))
                cur = []
        else:
            cur.append(c)
    if cur:
        parts.append("".join(cur))
    return tuple(parts)


@prim("String", "occurrencesOf:")
def _occurrences(p, s, c):
    return s.count(c.ch) if type(c) is Char else 0


@prim("String", "allButFirst")
def _sall_but_first(p, s):
    return s[1:]


@prim("String", "allButLast")
def _sall_but_last(p, s):
    return s[:-1]

