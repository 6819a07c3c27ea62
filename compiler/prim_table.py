"""The primitives that are one call of a C core function (runtime/native), as one table.

Each row: (class, class side?, selector) → (lpn_ function, operation code or None, number of
arguments, the answer's type or None for the checker's, may it raise?). The receiver and the
arguments are passed as value pairs; a function listed in SHAPES always takes the same number
of values after the receiver (missing ones are nil) and its operation code first or last.
The emitted call consumes the receiver and arguments (docs/native.md "The C core").
"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.codegen import V, c64
from lp.compiler.layout import I32
from lp.ir import nodes as I

INT, FLOAT, BOOL, STR = I.Ty("Integer"), I.Ty("Float"), I.Ty("Boolean"), I.Ty("String")
CHAR, SYM, IVL = I.Ty("Character"), I.Ty("Symbol"), I.Ty("Interval")

SHAPES = {   # function: (values after the receiver, where the operation code goes)
    "lpn_text_op": (1, "first"), "lpn_interval_op": (1, "first"), "lpn_maybe_op": (1, "first"),
    "lpn_object_op": (1, "first"), "lpn_float_op": (0, "first"), "lpn_dict_list": (0, "first"),
    "lpn_lib_op": (2, "last"),
}


def _rows(cls: str, fn: str, rows: dict, side: bool = False, may_fail: bool = True) -> dict:
    """rows: selector → (code, nargs, type) or (code, nargs, type, may_fail)."""
    out = {}
    for sel, row in rows.items():
        code, nargs, ty, *fails = row
        out[(cls, side, sel)] = (fn, code, nargs, ty, fails[0] if fails else may_fail)
    return out


def _lib(rows: dict) -> dict:
    """lib.c's smaller library selectors: (class, side, selector) → (code, nargs, type, may_fail)."""
    return {key: ("lpn_lib_op", *row) for key, row in rows.items()}


CALLS: dict = {
    **_rows("Object", "lpn_print_string", {"printString": (None, 0, STR)}),
    **_rows("Object", "lpn_display_string", {"displayString": (None, 0, STR)}),
    **{(c, False, "asString"): ("lpn_display_string", None, 0, STR, True)
       for c in ("Integer", "Float", "Number", "Boolean", "UndefinedObject")},
    **_rows("Object", "lpn_object_op", {"class": ("c", 0, None), "isKindOf:": ("k", 1, None),
                                        "isString": ("S", 0, None), "isNumber": ("N", 0, None),
                                        "isSymbol": ("Y", 0, None)}, may_fail=False),
    **_rows("Number", "lpn_raised_to", {"raisedTo:": (None, 1, None)}),
    **_rows("Float", "lpn_float_op", {"truncated": ("t", 0, INT), "asInteger": ("t", 0, INT), "rounded": ("r", 0, INT),
                                      "floor": ("f", 0, INT), "ceiling": ("c", 0, INT), "isNaN": ("n", 0, BOOL)}),
    **_rows("String", "lpn_str_size", {"size": (None, 0, INT)}, may_fail=False),
    **_rows("String", "lpn_text_op", {
        "at:": ("c", 1, CHAR), "includesSubstring:": ("i", 1, BOOL), "startsWith:": ("s", 1, BOOL),
        "endsWith:": ("e", 1, BOOL), "<": ("<", 1, BOOL), ">": (">", 1, BOOL), "<=": ("l", 1, BOOL),
        ">=": ("G", 1, BOOL), "indexOf:": ("x", 1, INT), "splitOn:": ("p", 1, None), "trim": ("t", 0, STR),
        "reversed": ("r", 0, STR), "reverse": ("r", 0, STR), "asUppercase": ("U", 0, STR),
        "asLowercase": ("L", 0, STR), "asInteger": ("I", 0, INT), "asSymbol": ("S", 0, SYM),
        "lines": ("n", 0, None), "asArray": ("A", 0, None), "first": ("f", 0, CHAR), "last": ("Z", 0, CHAR),
        "asString": ("a", 0, STR), ",": (",", 1, STR), "join:": ("j", 1, STR), "substrings": ("w", 0, None),
        "substrings:": ("W", 1, None), "includes:": ("h", 1, BOOL), "occurrencesOf:": ("O", 1, INT)}),
    **_rows("Symbol", "lpn_text_op", {"asString": ("a", 0, STR), "displayString": ("a", 0, STR),
                                      "size": ("z", 0, INT), "numArgs": ("N", 0, INT), ",": (",", 1, STR)}),
    **_rows("Character", "lpn_text_op", {
        "value": ("v", 0, INT), "asInteger": ("v", 0, INT), "asString": ("a", 0, STR),
        "displayString": ("a", 0, STR), "isVowel": ("V", 0, BOOL), "isLetter": ("L", 0, BOOL),
        "isDigit": ("D", 0, BOOL), "isSeparator": ("W", 0, BOOL), "asUppercase": ("u", 0, CHAR),
        "asLowercase": ("d", 0, CHAR), "isUppercase": ("U", 0, BOOL), "isLowercase": ("o", 0, BOOL),
        "asSymbol": ("S", 0, SYM), "digitValue": ("g", 0, INT), "<": ("<", 1, BOOL), ">": (">", 1, BOOL),
        "<=": ("l", 1, BOOL), ">=": ("G", 1, BOOL)}),
    **{("Array", False, sel): (fn, None, n, ty, fails) for sel, (fn, n, ty, fails) in {
        "at:": ("lpn_arr_at", 1, None, True), "at:put:": ("lpn_arr_at_put", 2, None, True),
        "size": ("lpn_arr_size", 0, INT, False), "with:": ("lpn_arr_with", 1, None, False),
        "copyWith:": ("lpn_arr_with", 1, None, False), ",": ("lpn_arr_concat", 1, None, True),
        "indexOf:": ("lpn_arr_index_of", 1, INT, False), "reversed": ("lpn_arr_reversed", 0, None, False),
        "reverse": ("lpn_arr_reversed", 0, None, False)}.items()},
    **_rows("Interval", "lpn_interval_op", {"size": ("s", 0, None), "isEmpty": ("e", 0, None),
                                            "notEmpty": ("n", 0, None), "first": ("f", 0, None),
                                            "last": ("l", 0, None), "at:": ("a", 1, None),
                                            "includes:": ("i", 1, None), "asArray": ("A", 0, None)}),
    **{("Dictionary", False, sel): (fn, code, n, ty, fails) for sel, (fn, code, n, ty, fails) in {
        "at:": ("lpn_dict_at", None, 1, None, True), "at:put:": ("lpn_dict_at_put", None, 2, None, False),
        "includesKey:": ("lpn_dict_includes_key", None, 1, BOOL, False),
        "removeKey:": ("lpn_dict_remove", None, 1, None, False), "size": ("lpn_dict_size", None, 0, INT, False),
        "keys": ("lpn_dict_list", "k", 0, None, False), "values": ("lpn_dict_list", "v", 0, None, False),
        "associations": ("lpn_dict_list", "a", 0, None, False)}.items()},
    **_rows("Maybe", "lpn_maybe_op", {"value": ("v", 0, None, True), "valueOr:": ("o", 1, None, False),
                                      "isSome": ("s", 0, None, False), "isPresent": ("s", 0, None, False),
                                      "isNone": ("n", 0, None, False)}),
    **_lib({("Object", False, "hash"): ("h", 0, INT, False), ("Array", False, "asSortedArray"): ("S", 0, None, True),
            ("Array", False, "copyWithout:"): ("W", 1, None, False),
            ("String", False, "asNumber"): ("N", 0, None, True),
            ("String", False, "copyReplaceAll:with:"): ("R", 2, STR, True),
            ("Symbol", False, "<"): ("<", 1, BOOL, False), ("Symbol", False, ">"): (">", 1, BOOL, False),
            ("Integer", False, "bitShift:"): ("B", 1, INT, True), ("Float", False, "isZero"): ("Z", 0, BOOL, False),
            ("Float", False, "roundTo:"): ("T", 1, FLOAT, True),
            ("Dictionary", False, "includes:"): ("i", 1, BOOL, False),
            ("Dictionary", False, "keyAtValue:"): ("k", 1, None, False),
            ("Interval", False, "reversed"): ("r", 0, IVL, False), ("Interval", False, "reverse"): ("r", 0, IVL, False),
            ("Interval", False, "sum"): ("s", 0, INT, True), ("Error", True, "new:"): ("E", 1, None, False),
            ("Object", True, "name"): ("n", 0, STR, False), ("Class", False, "name"): ("n", 0, STR, False),
            ("Error", False, "signal:"): ("G", 1, None, True), ("Error", True, "raiseSiteOf:"): ("w", 1, STR, False)}),
}


def emitter(fn: str, code: str | None, nargs: int, ty: I.Ty | None, may_fail: bool):
    arity, where = SHAPES.get(fn, (nargs, None))

    def emit(g, sel, n, site, tail, rty):
        vs = g.pop_n(nargs + 1) + [V(c64(0), c64(0), I.Ty("UndefinedObject"))] * (arity - nargs)
        words = [w for v in vs for w in (v.cls, v.bits)]
        op = [ir.Constant(I32, ord(code))] if code else []
        args = words + op if where == "last" else op + words
        return g.call_c(fn, args, ty or (rty if rty.known else I.UNKNOWN), site, may_fail=may_fail)
    return emit


def one_call_prims() -> dict:
    return {key: emitter(*row) for key, row in CALLS.items()}
