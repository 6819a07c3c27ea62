"""Generic user classes: which fields are type parameters, and instance types with one replaced.

After the methods are inferred with one type per field (first pass), a field of a
class that inherits from `Object` directly and has no subclasses becomes a type
parameter when its type is still open: a variable no method sends anything to
(`Box`'s `contents`) but messages whose arguments are the method's own (`self v , x`: outer
sends, typed per call, constraints.OuterSend), a type containing one (`items : Array[a]`) or naming a
class that is itself generic (a field holding a `Box`); an actor
type is fixed whatever its protocol. A `reply` field is always a parameter: the
address `ask:` fills differs per request. The checker then runs again with those fields as parameters, so each instance has its own types
(`Box[Integer]`, `Box[String]`) and methods are polymorphic in them. A field some
method fixes (`n + 1`) keeps one type per program; classes in a hierarchy keep
one type per field (subtyping between them stays nominal), except `reply`: every
class of a hierarchy that has one has it as its one parameter, and an instance of
a subclass meets its ancestors' methods and receive entries parameter by parameter
(`align`).

A generic `reply` is `UndefinedObject` in an instance built by `new` or by
`fields:` without it: only `ask:` (which sends a copy with the address) or an
explicit `reply:` gives it an actor, so a handler replying to a request sent
with `!` is a checked error (docs/types.md).
"""
from __future__ import annotations

from lp.types import constraints as C
from lp.types.reports import encloses
from lp.types.terms import TCon, TVar, prune


def _open(t, strict: bool = False) -> bool:
    """Does t still contain a free variable (but an actor's protocol: a field a method uses as an
    actor, `ChildSpec`'s `start : Block[Actor[p]]`, is fixed)? Strictly, also none waiting on a send
    but through a proxy (a grain's state is a grain server's field) or an outer send."""
    found, constrained = [], []

    def walk(x):
        x = prune(x)
        if type(x) is TVar:
            own = strict and [c for c in x.pending or () if type(c) not in (C.ProxySend, C.Mark, C.Outer)]
            (constrained if own else found).append(x)
        elif type(x) is TCon:
            for a in x.args:
                walk(a)
    walk(t)
    return bool(found) and not constrained


def _faulty(ck) -> set[str]:
    """Classes with a method a pass reported an error in. After the first pass they stay as they were
    checked, so the second pass reports the same diagnostics in the same words; after the second, a
    class generic only in fields its methods send to (`unsettled`) goes back to one type for them."""
    spans = [d.span for d in ck.diagnostics if d.span is not None]
    return {mi.cls.name for mi in ck.method_list if any(encloses(mi.decl.span, s) for s in spans)}


def generic_fields(ck, strict: bool = False) -> dict[str, list[str]]:
    """class name -> its fields that are type parameters, from the first pass's field types."""
    out = {}
    faulty = _faulty(ck) if strict else set()
    for info in ck.table.classes.values():
        if info.builtin or info.name in faulty:
            continue
        if info.superclass != "Object" or info.subclasses:
            if "reply" in ck.table.all_fields(info.name) and not _inherited(ck, info, "reply"):
                out[info.name] = ["reply"]
            continue
        tight = strict or _overrides(ck, info) or info.name in ck.remote
        free = [f for f in info.fields if (f == "reply" or _open(info.field_types[f], tight)) and not _inherited(ck, info, f)]
        if free:
            out[info.name] = free
    # A field whose type names a class that is generic (`sample : Box`, a grain server made in a method
    # for a Box) is open too: that class's parameters are still free. Until no more fields change.
    changed = True
    while changed:
        changed = False
        for info in ck.table.classes.values():
            if info.builtin or info.name in faulty or info.superclass != "Object" or info.subclasses:
                continue
            have = out.get(info.name, [])
            more = [f for f in info.fields if f not in have and _names_any(info.field_types[f], out, info.name)
                    and not _inherited(ck, info, f)]
            if more:
                out[info.name] = [f for f in info.fields if f in have or f in more]
                changed = True
    return out


def unsettled(ck, generic, strict) -> set[str]:
    """The classes of `generic` whose parameters the methods constrain (strictly they would have fewer)
    and whose methods the pass with them reported errors in: the methods use the field's value at
    several types, as a value the program trusts (the blocks of a dictionary of servers, answering
    Dynamic values); one type per program keeps those sends waiting as the first pass did."""
    return {c for c in _faulty(ck) & set(generic) if generic[c] != strict.get(c, [])}


def _overrides(ck, info) -> bool:
    """Does the class override a selector it inherits? The override check compares its methods with
    the inherited ones on the fields' one type (`A >> tag = self v first` against `Object >> tag`
    answering a String), so only fields no method sends anything to may be parameters."""
    return any(_inherited(ck, info, sel) for sel in info.methods)


def _inherited(ck, info, f) -> bool:
    """Does the class inherit a selector f (a library one or a method of the program)? Its field f
    then overrides it and must have its one type (overrides.check_fields), so it is no parameter."""
    from lp.types.library import INSTANCE_SIGS, UNIVERSAL_SIGS
    for anc in ck.table.chain(info.superclass):
        if anc.builtin and (UNIVERSAL_SIGS.get(f) if anc.name == "Object" else INSTANCE_SIGS.get(anc.name, {}).get(f)):
            return True
        if f in anc.methods:
            return True
    return False


def _names_any(t, classes, own: str) -> bool:
    """Does t contain, with no arguments of its own, the instance type of one of the classes (but
    the class `own` whose field it is: its name stands for itself)?"""
    stack = [t]
    while stack:
        x = prune(stack.pop())
        if type(x) is TCon:
            if not x.args and x.name in classes and x.name != own:
                return True
            stack.extend(x.args)
    return False


def recursive_fields(first, generic, sources=None) -> dict:
    """class -> field -> a type naming the class, for each field of a class of `generic` that is not a
    parameter and whose type (the first pass's, or that of the checker `sources` names for the class)
    names the class itself (`Node`'s `tail : Maybe[Node]`). In the next pass such a field holds the class
    with the instance's own parameters (`Node[a]`'s tail is a `Maybe[Node[a]]`, as an ML list's tail is
    a list of the same elements), so methods recursing through it stay generic."""
    out = {}
    for name, params in generic.items():
        src = (sources or {}).get(name, first)
        info = src.table.get(name)
        if info is None or info.builtin or set(params) <= {"reply"}:
            continue
        for f in info.fields:
            t = info.field_types.get(f)
            if f not in params and names_class(t, name) and not _inherited(src, info, f):
                out.setdefault(name, {})[f] = t
    return out


def names_class(t, name) -> bool:
    """Does type t name the class `name` (with or without parameters), and no actor protocol?"""
    return t is not None and not isinstance(t, tuple) and bool(instances_of(t, name, protocols=False))


def instances_of(t, name, protocols=True) -> list:
    """The instance types of class `name` in t (not looking inside them); without `protocols`, none
    when t holds an actor protocol (which a field template does not copy)."""
    out, stack, seen = [], [t], set()
    while stack:
        x = prune(stack.pop())
        if type(x) is TCon and id(x) not in seen:
            seen.add(id(x))
            if x.name == name:
                out.append(x)
            else:
                stack.extend(x.args)
        elif not protocols and type(x) is not TCon and type(x) is not TVar:
            return []
    return out


def own_template(info, t):
    """A field type naming its class (`Maybe[Node]`) rebuilt for the next pass with the class as
    `Node[p...]` over placeholders (answered too), which `filled` replaces by an instance's parameters;
    its variables become new variables of the whole program, as any field's."""
    holes = [TVar(0) for _ in info.params]
    fresh = {}

    def walk(x):
        x = prune(x)
        if type(x) is TVar:
            return fresh.setdefault(id(x), TVar(0))
        if type(x) is TCon:
            if x.name == info.name:
                return TCon(x.name, tuple(holes), x.why)
            return TCon(x.name, tuple(walk(a) for a in x.args), x.why)
        return x
    return walk(t), holes


def filled(t, args: dict):
    """t with the placeholders (by id) replaced; the parts without any shared."""
    x = prune(t)
    if type(x) is TVar:
        return args.get(id(x), x)
    if type(x) is TCon and x.args:
        new = tuple(filled(a, args) for a in x.args)
        if any(a is not b for a, b in zip(new, x.args)):
            c = TCon(x.name, new, x.why)
            c.open, c.ctx = x.open, x.ctx
            return c
    return x


def param_of(ck, inst, f):
    """The parameter of instance type `inst` that field f is, or None if f is not one."""
    inst = prune(inst)
    if type(inst) is not TCon or inst.name.endswith(" class"):
        return None
    info = ck.table.get(inst.name)
    if info is None or f not in info.params or len(inst.args) != len(info.params):
        return None
    return inst.args[info.params.index(f)]


def align(ck, self_t, recv):
    """A method's `self` type met by its receiver: unified, or for an instance of a subclass (whose
    parameters are its ancestor's, `reply`) unified parameter by parameter. Answers the first clash."""
    s, r = prune(self_t), prune(recv)
    if type(s) is TCon and type(r) is TCon and s.name != r.name and not r.name.endswith(" class") \
            and ck.table.is_ancestor(s.name, r.name):
        first = None
        for f in ck.table.get(s.name).params:
            clash = ck.unify(param_of(ck, s, f), param_of(ck, r, f))
            first = first or clash
        return first
    return ck.unify(self_t, recv)


def replaced(ck, info, inst, changes: dict):
    """A copy of the instance type `inst` of generic class `info` with the parameters of the fields
    in `changes` (field -> type) replaced; the others are shared with `inst`."""
    inst = prune(inst)
    if type(inst) is not TCon or inst.name != info.name or len(inst.args) != len(info.params):
        return inst
    args = tuple(changes.get(f, a) for f, a in zip(info.params, inst.args))
    return TCon(inst.name, args, inst.why)


def nil_reply(ck, info, inst, span):
    """Built without `reply` (by `new`, or `fields:` not naming it): its reply is nil. A `reply` that
    is no parameter (it overrides an inherited `reply`) has one type, which must then admit nil."""
    if "reply" in info.params:
        ck.unify(inst.args[info.params.index("reply")], TCon("UndefinedObject"))
        return inst
    owner = ck.table.field_owner(info.name, "reply")
    if owner is not None and _inherited(ck, owner, "reply"):
        from lp.types import problems as P
        ft = ck.field_type(owner, "reply", None, inst)
        nil = TCon("UndefinedObject", (), span)
        clash = ck.unify(ft, nil)
        if clash:
            ck.report(P.Mismatch("field value", ("reply", info.name), clash, span, ft, nil))
    return inst


def recursive_classes(ck) -> set[str]:
    """The classes named in the infinite types the check reported: a generic one of them needs its
    name to stand for a recursion (check.py then checks it as a nominal class)."""
    out, stack, seen = set(), [t for c in ck.infinite for t in (c.expected, c.actual)], set()
    while stack:
        t = prune(stack.pop())
        if type(t) is TCon and id(t) not in seen:
            seen.add(id(t))
            out.add(t.name)
            stack.extend(t.args)
    return out
