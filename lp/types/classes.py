"""The class table: builtin and user classes, their fields (with one inferred type each) and methods."""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.library import BUILTIN_CLASSES, FIELD_SIGS, PARAMS
from lp.types.terms import TCon, TVar


class MethodInfo:
    __slots__ = ("decl", "cls", "class_side", "mono", "scheme")

    def __init__(self, decl, cls, class_side):
        self.decl = decl
        self.cls = cls
        self.class_side = class_side
        self.mono = None      # Method[ctx, self, args..., result] while its group is inferred
        self.scheme = None    # the same, generalised, afterwards


class ClassInfo:
    __slots__ = ("name", "superclass", "decl", "builtin", "fields", "field_types", "methods",
                 "cmethods", "subclasses", "params", "templates")

    def __init__(self, name, superclass, decl=None, builtin=False):
        self.name = name
        self.superclass = superclass
        self.decl = decl
        self.builtin = builtin
        self.fields: list[str] = []          # own fields, in declaration order
        self.field_types: dict = {}          # own field -> Type (or a signature for builtins)
        self.methods: dict[str, MethodInfo] = {}
        self.cmethods: dict[str, MethodInfo] = {}
        self.subclasses: list[str] = []
        self.params: list[str] = []          # generic fields: type parameters of each instance (Box[a])
        self.templates: dict = {}            # a field holding the class again -> the placeholders of its params


class ClassTable:
    def __init__(self):
        self.classes: dict[str, ClassInfo] = {}
        for name, sup in BUILTIN_CLASSES.items():
            info = ClassInfo(name, sup, builtin=True)
            for f, sig in FIELD_SIGS.get(name, {}).items():
                info.fields.append(f)
                info.field_types[f] = sig
            self.classes[name] = info
        for name, sup in BUILTIN_CLASSES.items():
            if sup:
                self.classes[sup].subclasses.append(name)

    def get(self, name):
        return self.classes.get(name)

    def chain(self, name):
        """The class and its ancestors, nearest first."""
        out = []
        seen = set()
        c = self.classes.get(name)
        while c is not None and c.name not in seen:
            seen.add(c.name)
            out.append(c)
            c = self.classes.get(c.superclass) if c.superclass else None
        return out

    def is_ancestor(self, anc: str, name: str) -> bool:
        return any(c.name == anc for c in self.chain(name))

    def all_fields(self, name) -> list[str]:
        out = []
        for c in reversed(self.chain(name)):
            out.extend(c.fields)
        return out

    def field_owner(self, name, field):
        for c in self.chain(name):
            if field in c.field_types:
                return c
        return None

    def instance_type(self, name, why=None, level=1):
        params = PARAMS.get(name, ())
        if name == "Block":
            return TCon("Block", (TVar(level),), why)
        if name == "Actor":
            from lp.types.terms import TProto
            return TCon("Actor", (TProto(level),), why)
        info = self.classes.get(name)
        if info is not None and info.params:
            return TCon(name, tuple(TVar(level) for _ in info.params), why)
        return TCon(name, tuple(TVar(level) for _ in params), why)

    def has_subclasses(self, name) -> bool:
        c = self.classes.get(name)
        return bool(c and c.subclasses)


def declared_selectors(decl: A.MethodDecl):
    return decl.selector
