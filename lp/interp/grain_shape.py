"""A decoded grain state checked against the shape of the program's state type (lp/types/grain_shapes.py
writes the text and describes it; runtime/native/grain_shape.c is the same check in binaries). The first
value found not of its type, fields and elements in order, is reported with its path
(`state.items[2]`) and what was expected (docs/grains.md, "What a stored state is checked for")."""
from __future__ import annotations

from functools import lru_cache

from lp.interp.values import Association, Char, Instance, LPDict, Maybe, Symbol

LEAVES = {"i": "Integer", "f": "Float", "s": "String", "y": "Symbol", "b": "Boolean", "c": "Character",
          "z": "UndefinedObject", "x": "ByteArray"}
KINDS = {"a": "Array", "m": "Maybe", "d": "Dictionary", "p": "Association"}
EXPECTED = {"z": "nil", "n": "Number"}
# the Python type of each kind's values (lp/interp/builtins.py TYPES); a Number is an int or a float
PY = {"i": int, "f": float, "n": int, "s": str, "y": Symbol, "b": bool, "c": Char, "z": type(None), "x": bytes,
      "a": tuple, "m": Maybe, "d": LPDict, "p": Association}


@lru_cache(maxsize=64)
def parse(text: str):
    """(root, {class: field shapes}). A shape is a leaf letter or "*", ("a", t), ("m", t), ("d", k, v),
    ("p", k, v), ("<", name) or ("(", name, fields)."""
    pos = 0

    def name(end):
        nonlocal pos
        j = text.index(end, pos)
        s, pos = text[pos:j], j + 1
        return s

    def one():
        nonlocal pos
        c = text[pos]
        pos += 1
        if c in "am":
            return (c, one())
        if c in "dp":
            return (c, one(), one())
        if c == "<":
            return ("<", name(">"))
        if c == "(":
            n = name(":")
            fields = []
            while text[pos] != ")":
                fields.append(one())
            pos += 1
            return ("(", n, tuple(fields))
        return c

    root = one()
    defs = {}
    while pos < len(text):
        pos += 1   # ;
        n = name("=")
        fields = []
        while pos < len(text) and text[pos] != ";":
            fields.append(one())
        defs[n] = tuple(fields)
    return root, defs


def expected(shape) -> str:
    k = shape if type(shape) is str else shape[0]
    if k in ("<", "("):
        return shape[1]
    return EXPECTED.get(k) or LEAVES.get(k) or KINDS[k]


def mismatch(interp, v, text: str):
    """Where v is not of the shape: (path, expected, v's value there); None if it is. A path is kept as
    (parent, step) pairs and written out only for the value reported."""
    root, defs = parse(text)
    work = [(None, "state", v, root)]
    while work:
        item = work.pop()
        _, _, x, s = item
        if s == "*":
            continue
        k = s if type(s) is str else s[0]
        t = type(x)
        if k in "<(":
            named = interp.classes.get(s[1])
            ok = t is Instance and named is not None and x.cls.inherits(named)
        else:
            ok = t is PY[k] or k == "n" and t is float
        if not ok:
            return _path(interp, item), expected(s), x
        if k == "a":
            more = [(item, i, y, s[1]) for i, y in enumerate(x, 1)]
        elif k == "m":
            more = [(item, ".some", x.value, s[1])] if x.present else []
        elif k == "p":
            more = [(item, ".key", x.key, s[1]), (item, ".value", x.value, s[2])]
        elif k == "d":
            more = []
            for key, y in x.entries():
                more += [(item, " key", key, s[1]), (item, (key,), y, s[2])]
        elif k in "<(":
            fields = s[2] if k == "(" else defs.get(x.cls.name, ())
            more = [(item, "." + f, y, t) for f, y, t in zip(x.cls.fields, x.values, fields)]
        else:
            continue
        work.extend(reversed(more))
    return None


def _path(interp, item) -> str:
    """`state.items[2]`: an element's index, a Dictionary key's printString in brackets, other steps as they are."""
    steps = []
    while item is not None:
        parent, step = item[0], item[1]
        if type(step) is int:
            step = f"[{step}]"
        elif type(step) is tuple:
            step = f"[{interp.print_string(step[0])}]"
        steps.append(step)
        item = parent
    return "".join(reversed(steps))


def check(interp, v, text: str) -> str | None:
    """The error message for a state v not of the shape text, or None."""
    where = mismatch(interp, v, text)
    if where is None:
        return None
    path, want, found = where
    return (f"a stored grain state does not have the program's state type: {path}: expected {want}, "
            f"found {interp.describe(found)}")
