"""The entry point: declarations, method groups, the main program's statements, then protocol checks."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from lp.diagnostics import Diagnostic
from lp.syntax import ast as A
from lp.types import actors, overrides, proxies, traps
from lp.types import problems as P
from lp.types.generics import generic_fields, names_class, recursive_classes, recursive_fields, unsettled
from lp.types.grain_shapes import grain_shapes
from lp.types.infer import Checker, Cx, Scope
from lp.types.order import Order
from lp.types.parts import assemble
from lp.types.terms import prune


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    types: dict = field(default_factory=dict)    # id(node) -> (node, type)
    grain_shapes: dict = field(default_factory=dict)   # id(initial state node) -> (node, shape text)
    discarded: set = field(default_factory=set)   # id(node) of expressions typed as values thrown away

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def type_of(self, node):
        entry = self.types.get(id(node))
        return prune(entry[1]) if entry is not None else None


def _order(d: Diagnostic):
    s = d.span
    if s is None:
        return ("", 0, 0)
    return (s.file, s.line, s.col)


def check_program(program: A.Program, imports=()) -> CheckResult:
    ck = Checker(assemble())
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20000))
    shapes = {}
    try:
        try:
            ck = _check(ck, program, list(imports or ()))
            shapes = grain_shapes(ck)
        except Exception as e:  # noqa: BLE001 - never a traceback
            ck.report(P.InternalError("program", f"{type(e).__name__}: {e}", getattr(program, "span", None)))
    finally:
        sys.setrecursionlimit(old_limit)
    files = [getattr(p, "file", "") for p in list(imports or ()) + [program]]
    rank = {f: i for i, f in enumerate(files)}
    diags = sorted(_root_causes(ck.diagnostics), key=lambda d: (rank.get(d.span.file if d.span else "", len(rank)),)
                   + _order(d))
    return CheckResult(diags, ck.types, shapes, ck.discarded)


def _in_stdlib(d: Diagnostic) -> bool:
    return d.span is not None and d.span.file.replace("\\", "/").startswith("stdlib/")


def _root_causes(diags):
    """The standard library checks clean on its own, so an error inside it comes from the program (a
    method on `Object` it uses, say): when the program has errors of its own, those are the root causes."""
    if any(d.severity == "error" and not _in_stdlib(d) for d in diags):
        return [d for d in diags if d.severity != "error" or not _in_stdlib(d)]
    return diags


def _check(ck: Checker, program, imports):
    modules = []
    seen = set()
    for m in [*imports, program]:
        if not isinstance(m, A.Program):
            continue
        key = m.file if m.file != "<input>" else id(m)
        if key in seen or any(m is x for x in modules):
            continue
        seen.add(key)
        modules.append(m)
    if modules[-1] is not program:
        modules = [m for m in modules if m.file != program.file] + [program]
    items = [i for m in modules for i in m.items]
    ck.proxied = proxies.proxied_classes(items)
    ck.remote = proxies.proxied_classes(items, grains=False)
    ck.guard(program, ck.declare, items)
    ck.guard(program, ck.infer_methods)
    generic, strict = generic_fields(ck), generic_fields(ck, strict=True)
    done = _typed(ck, generic, program, items, modules)
    loose = unsettled(done, generic, strict)
    if loose:
        # Errors in the methods of a class generic in a field they send to: the methods may use the
        # field's value at several types, as one the program trusts (a Dynamic value); with one type
        # for those fields the sends wait as in the first pass. The reading with fewer errors wins.
        other = _typed(ck, {c: (strict[c] if c in loose else fs) for c, fs in generic.items()
                            if c not in loose or strict.get(c)}, program, items, modules)
        if _errors(other) < _errors(done):
            return other
    return done


def _errors(ck: Checker) -> int:
    return sum(d.severity == "error" for d in ck.diagnostics)


def _typed(first: Checker, generic, program, items, modules) -> Checker:
    """The program checked with the fields `generic` names as type parameters (none: the first pass's
    checker goes on to the statements)."""
    ck, recursive = _pass(first, generic, {}, program, items, modules)
    if not recursive:
        return ck
    # A generic class whose instance type would contain itself stays nominal: its name stands for the
    # recursion (`H fields: { blk: [:x | x] }` applied to an H).
    nominal, _ = _typed_nominal(first, generic, recursive, program, items, modules)
    # A field whose type in that reading names the class (`Tree`'s `kids : Array[Tree]`, a parameter
    # whose every instance held another Tree) can instead hold the class with the instance's own
    # parameters, the others staying parameters: tried once, kept if it has no more errors.
    again, sources = dict(generic), {}
    for c in recursive:
        info = nominal.table.get(c)
        own = [f for f in generic[c] if info is not None and names_class(info.field_types.get(f), c)]
        if own and set(generic[c]) - set(own) - {"reply"}:
            again[c], sources[c] = [f for f in generic[c] if f not in own], nominal
        else:
            del again[c]
    if not sources:
        return nominal
    ck, still = _pass(first, again, sources, program, items, modules)
    return ck if not still and _errors(ck) <= _errors(nominal) else nominal


def _typed_nominal(first, generic, recursive, program, items, modules):
    while True:
        generic = {c: fs for c, fs in generic.items() if c not in recursive}
        ck, recursive = _pass(first, generic, {}, program, items, modules)
        if not recursive:
            return ck, generic


def _pass(first: Checker, generic, sources, program, items, modules):
    """One pass over methods and statements with `generic`'s fields as parameters; `sources` names the
    checker whose field types make a class's self-naming fields (generics.recursive_fields) when it is
    not the first pass's. Answers the checker and the generic classes found recursive."""
    reuse = not generic and not first.stated   # the first pass's checker goes on to the statements once
    ck = first if reuse else Checker(first.parts, generic)
    ck.stated = True
    if not reuse:
        ck.proxied = first.proxied
        ck.recursive_fields = recursive_fields(first, generic, sources)
        ck.guard(program, ck.declare, items)
        if len(ck.method_list) == len(first.method_list) and all(
                a.decl is b.decl for a, b in zip(ck.method_list, first.method_list)):
            ck.plan = first.plan   # the same declarations: the same method groups
        ck.guard(program, ck.infer_methods)
    _statements(ck, program, modules)
    return ck, recursive_classes(ck) & set(generic)


def _statements(ck: Checker, program, modules):
    ck.order = Order(ck, program)
    main = ck.new_proto(origin=A.Span(program.file, 0, 0, 0, 0))
    main.why = None
    ck.level = 1
    for m in modules:
        scope = Scope()
        cx = Cx(None, False, None, None, main)
        for item in m.items:
            if isinstance(item, (A.ClassDecl, A.MethodDecl, A.Import)):
                continue
            ck.guard(item, ck.infer_stmt, item, scope, cx, True)
            traps.warn_discarded(ck, item)
    ck.guard(program, actors.finish, ck)
    ck.guard(program, overrides.late_constructions, ck)
