"""What the program's classes understand, for completion and go-to-definition.

Built from the declarations of the main module and its imports, plus the
library signatures the checker uses for builtin classes. The checker keeps
its own class table internally; `CheckResult` does not expose it, so this is
rebuilt from the AST (the same lookup order: the class, its superclasses,
then what every object understands).
"""
from __future__ import annotations

from dataclasses import dataclass

from lp.syntax import ast as A
from lp.types.library import BUILTIN_CLASSES, BUILTIN_FIELDS, CLASS_SIGS, INSTANCE_SIGS, UNIVERSAL_SIGS
from lp.types.terms import TCon, prune


@dataclass(frozen=True)
class Entry:
    selector: str
    owner: str                        # the class that defines it
    kind: str                         # "method", "field" or "library"
    decl: A.MethodDecl | None = None


class ClassIndex:
    def __init__(self, modules):
        self.decls: dict[str, A.ClassDecl] = {}
        self.methods: dict[tuple[str, bool], dict[str, A.MethodDecl]] = {}
        self.by_selector: dict[str, list[A.MethodDecl]] = {}
        for m in modules:
            for item in m.items:
                if isinstance(item, A.ClassDecl):
                    self.decls.setdefault(item.name, item)
                elif isinstance(item, A.MethodDecl):
                    self.methods.setdefault((item.class_name, item.class_side), {}).setdefault(item.selector, item)
                    self.by_selector.setdefault(item.selector, []).append(item)

    def superclass(self, name: str) -> str | None:
        if name in BUILTIN_CLASSES:
            return BUILTIN_CLASSES[name]
        d = self.decls.get(name)
        return d.superclass if d is not None else None

    def chain(self, name: str) -> list[str]:
        out: list[str] = []
        while name is not None and name not in out and (name in BUILTIN_CLASSES or name in self.decls):
            out.append(name)
            name = self.superclass(name)
        return out

    def fields(self, name: str) -> list[str]:
        if name in BUILTIN_FIELDS:
            return list(BUILTIN_FIELDS[name])
        d = self.decls.get(name)
        return list(d.fields) if d is not None else []

    def understood(self, name: str, class_side: bool) -> dict[str, Entry]:
        """Every selector an instance of `name` (or the class itself) understands, nearest definition first."""
        out: dict[str, Entry] = {}
        for c in self.chain(name):
            for sel, decl in self.methods.get((c, class_side), {}).items():
                out.setdefault(sel, Entry(sel, c, "method", decl))
            if class_side:
                for sel in CLASS_SIGS.get(c, {}):
                    out.setdefault(sel, Entry(sel, c, "library"))
                continue
            for f in self.fields(c):
                out.setdefault(f, Entry(f, c, "field"))
            if c in BUILTIN_CLASSES:
                sigs = UNIVERSAL_SIGS if c == "Object" else INSTANCE_SIGS.get(c, {})
                for sel in sigs:
                    out.setdefault(sel, Entry(sel, c, "library"))
        return out

    def lookup(self, name: str, class_side: bool, selector: str) -> Entry | None:
        return self.understood(name, class_side).get(selector)

    def implementations(self, selector: str) -> list[A.MethodDecl]:
        return list(self.by_selector.get(selector, ()))


def class_of(t) -> tuple[str, bool] | None:
    """The class a type is an instance of, and whether the value is the class itself."""
    t = prune(t) if t is not None else None
    if not isinstance(t, TCon):
        return None
    if t.name.endswith(" class"):
        return t.name[:-len(" class")], True
    return t.name, False
