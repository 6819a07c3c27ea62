"""The shape of each grain's state type, as the checker inferred it, for the run time to check a stored
state against when it activates (docs/grains.md, "What a stored state is checked for").

`Grain for: C initial: s ...` records the type of `s` (proxies.py); once the program is checked, each such
site's type becomes a compact text that lp/interp/grain_shape.py and runtime/native/grain_shape.c read:

    shape := i | f | n | s | y | b | c | z | x | *     Integer Float Number String Symbol Boolean
                                                       Character nil ByteArray, anything (not known)
           | a shape | m shape                         Array, Maybe
           | d shape shape | p shape shape             Dictionary, Association (key, value)
           | (Name: shape...)                          an instance of a generic class: its fields in order
           | <Name>                                    an instance of Name or of a subclass, defined below
    text  := shape (;Name= shape...)*                  each nominal class met: all its fields in order

A nominal class (one type per field per program) is defined once, with every subclass, so recursive
classes have finite shapes; a generic class's instance is written where it occurs, with its parameters.
"""
from __future__ import annotations

from lp.types.generics import instances_of, param_of
from lp.types.constraints import Numeric
from lp.types.terms import TCon, TVar, prune

LEAVES = {"Integer": "i", "Float": "f", "Number": "n", "String": "s", "Symbol": "y", "Boolean": "b",
          "Character": "c", "UndefinedObject": "z", "ByteArray": "x"}
ONE = {"Array": "a", "Maybe": "m"}
TWO = {"Dictionary": "d", "Association": "p"}
DEEPEST = 64   # a deeper type is "anything" from there down (the run time refuses states this deep anyway)


class _Shapes:
    def __init__(self, ck):
        self.ck = ck
        self.table = ck.table
        self.nominal: dict[str, str] = {}   # class -> its definition, once made
        self.instance: dict[str, object] = {}   # a generic class written nominally -> its one instance type
        self.pending: list[str] = []

    def user_class(self, name):
        """The ClassInfo of a class of the program whose ancestors are all the program's (up to Object)."""
        chain = self.table.chain(name)
        if not chain or any(c.builtin and c.name != "Object" for c in chain):
            return None
        return chain[0]

    def generic(self, info) -> bool:
        """Written inline with its parameters: a class with parameters (beyond a reply), no subclasses and
        no superclass but Object (generics.py makes only those generic)."""
        return bool(set(info.params) - {"reply"}) and not info.subclasses and info.superclass == "Object"

    def own_instance(self, info, inst):
        """The instance type the fields of `inst` that are not parameters hold its class as (`next :
        Maybe[Node[a]]` of a `Node[a]`, or of one type for the program), if they hold it and all the same
        way: instances like it are written `<Node>`, defined once with those parameters, so a recursive
        generic class has a finite shape too."""
        found = {}
        for f, t in info.field_types.items():
            if f not in info.params and not isinstance(t, tuple):
                if f in info.templates:
                    t = self.ck.field_type(info, f, None, inst)
                for held in instances_of(t, info.name):
                    found.setdefault(self.arguments(held), held)
        return next(iter(found.values())) if len(found) == 1 else None

    def arguments(self, inst) -> str:
        return "".join(self.of(a, DEEPEST - 8) for a in prune(inst).args)

    def of(self, t, depth=0) -> str:
        t = prune(t)
        if type(t) is TVar and any(type(c) is Numeric and prune(c.arg) is t for c in t.pending or ()):
            return "n"   # the argument of arithmetic on a number, Integer or Float
        if type(t) is not TCon or depth > DEEPEST:
            return "*"
        if t.name in LEAVES:
            return LEAVES[t.name]
        if t.name in ONE and len(t.args) == 1:
            return ONE[t.name] + self.of(t.args[0], depth + 1)
        if t.name in TWO and len(t.args) == 2:
            return TWO[t.name] + self.of(t.args[0], depth + 1) + self.of(t.args[1], depth + 1)
        info = self.user_class(t.name)
        if info is None:
            return "*"
        if self.generic(info):
            own = self.own_instance(info, t)
            if own is None or self.arguments(own) != self.arguments(t):
                return f"({t.name}:" + "".join(self.field(t.name, f, t, depth + 1)
                                              for f in self.table.all_fields(t.name)) + ")"
            self.instance[t.name] = own
        self.want(t.name)
        return f"<{t.name}>"

    def field(self, cname, f, inst, depth) -> str:
        p = param_of(self.ck, inst, f) if inst is not None else None
        if p is not None:
            return self.of(p, depth)
        owner = self.table.field_owner(cname, f)
        if owner is None or f in owner.params or isinstance(owner.field_types.get(f), tuple):
            return "*"
        if f in owner.templates and inst is not None:
            return self.of(self.ck.field_type(owner, f, None, inst), depth)
        return self.of(owner.field_types[f], depth)

    def want(self, name):
        if name not in self.nominal and name not in self.pending:
            self.pending.append(name)

    def definitions(self) -> str:
        while self.pending:
            name = self.pending.pop()
            self.nominal[name] = ""   # placeholder: a class met again while defining refers to itself
            inst = self.instance.get(name)
            self.nominal[name] = "".join(self.field(name, f, inst, 1) for f in self.table.all_fields(name))
            for sub in self.table.get(name).subclasses:
                if self.user_class(sub) is not None:
                    self.want(sub)
        return "".join(f";{n}={d}" for n, d in sorted(self.nominal.items()))


def state_shape(ck, t) -> str | None:
    """The shape text of a grain state of type t, or None when t is not (yet) a class of the program."""
    t = prune(t)
    if type(t) is not TCon:
        return None
    s = _Shapes(ck)
    if s.user_class(t.name) is None:
        return None
    root = s.of(t)
    return root + s.definitions()


def grain_shapes(ck) -> dict[int, tuple[object, str]]:
    """id(initial-state node) -> (node, shape text) for every `Grain for: C initial: s ...` the checker met."""
    out = {}
    for node, t in ck.grain_states.values():
        text = state_shape(ck, t)
        if text is not None:
            out[id(node)] = (node, text)
    return out
