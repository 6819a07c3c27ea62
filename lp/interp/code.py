"""Compiled form of method and block bodies: flat instruction lists over registers.

Each body is lowered once from the AST to A-normal form: every send is its own
instruction whose operands are registers, and every instruction keeps the AST
node it came from (for error locations). The explicit frame stack of vm.py runs
them, which lets an actor stop at any receive and resume on any domain.
"""
from __future__ import annotations

# Opcodes (small ints compared in vm.py's loop, most frequent first).
SEND, TSEND, MOVE, JF, JMP, RET, CLOSURE, RECV, ARRAY, RECORD, SUPER, TSUPER, NLRET, JT, FORLOOP, INTCHECK, \
    FALLBACK, FORNEXT = range(18)
OPNAMES = ["SEND", "TSEND", "MOVE", "JF", "JMP", "RET", "CLOSURE", "RECV", "ARRAY", "RECORD", "SUPER", "TSUPER",
           "NLRET", "JT", "FORLOOP", "INTCHECK", "FALLBACK", "FORNEXT"]

# Receive-table matcher kinds.
MATCH_ANY, MATCH_CLASS, MATCH_VALUE = range(3)


class Code:
    """A method or block body: instructions, the register template, and frame layout."""
    __slots__ = ("name", "instrs", "template", "nparams", "ncaptured", "span", "is_block", "owner",
                 "selector", "returns")

    def __init__(self, name: str, span, is_block: bool):
        self.name = name
        self.instrs: list[tuple] = []
        self.template: list = []
        self.nparams = 0
        self.ncaptured = 0
        self.span = span
        self.is_block = is_block
        self.owner = None      # the LPClass whose method this body is or is inside (for super sends)
        self.selector = None
        self.returns = False   # a block containing `^`, directly or in a nested block

    def dump(self) -> str:
        lines = [f"{self.name}: params={self.nparams} captured={self.ncaptured} regs={len(self.template)}"]
        for i, ins in enumerate(self.instrs):
            lines.append(f"  {i:3} {OPNAMES[ins[0]]} {ins[1:-1]}")
        return "\n".join(lines)


class Method:
    """An LP-defined method."""
    __slots__ = ("code", "cls", "selector", "class_side")

    def __init__(self, code: Code, cls, selector: str, class_side: bool):
        self.code = code
        self.cls = cls
        self.selector = selector
        self.class_side = class_side


class Primitive:
    """A method implemented in Python: fn(process, receiver, *args) -> value."""
    __slots__ = ("fn", "selector", "arity")

    def __init__(self, fn, selector: str):
        self.fn = fn
        self.selector = selector
        self.arity = selector.count(":") if selector[-1] == ":" else (0 if selector[0].isalpha() else 1)


class FieldGetter:
    __slots__ = ("index", "name")

    def __init__(self, index: int, name: str):
        self.index = index
        self.name = name
