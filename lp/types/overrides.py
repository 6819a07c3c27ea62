"""Overrides must be at least as general as what they override (hostile report 1.13).

Dynamic dispatch can send a message typed against a method's scheme to any override
of it, so the override's scheme must be *at least as general*: every instance of the
overridden scheme must be an instance of the override's. Unifying the two instances
(what `check_override` does) is not enough: `A >> pick: x or: y = x` (a, b -> a) and
`B >> pick: x or: y = y` (a, b -> b) unify, yet a send typed "answers its first
argument" reaches B. So after unification every type variable of the overridden
scheme's instance must still be a variable of its own: not fixed to a class, not
merged with another of its variables, and not tied to a monomorphic type (a field).
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types import problems as P
from lp.types.terms import Namer, TCon, TVar, prune, show


def fresh_vars(types, level) -> list:
    """The type variables in `types` created by the instantiation (level >= `level`), in order."""
    out, seen, done = [], set(), set()
    stack = list(reversed(types))
    while stack:
        t = prune(stack.pop())
        if type(t) is TVar:
            if t.level >= level and t.id not in seen:
                seen.add(t.id)
                out.append(t)
        elif type(t) is TCon and t.args and id(t) not in done:
            done.add(id(t))
            stack.extend(reversed(t.args))
    return out


def blamed(theirs, mine, mi, level):
    """The overridden method's type `theirs` about to fix the override's `mine` where it is a type of the
    program's (a field's, level < `level`): a copy made by the override, so a later clash with that
    type points at the override (`A >> tag = self v` under `Object >> tag = 'obj'` fixes A's `v`)."""
    x, y = prune(theirs), prune(mine)
    if type(x) is TCon and type(y) is TVar and y.level < level:
        c = TCon(x.name, x.args, mi.decl.span)
        c.open, c.ctx = x.open, x.ctx
        return c
    return theirs


def covariant_answer(ck, theirs, mine) -> bool:
    """Does the override answer instances of a user subclass of the class the overridden method
    answers (`A >> copy = self`, `B >> copy = B new`)? A `B` is an `A`, so a send typed against the
    overridden method (answering `A`) may run the override; a send to a `B` is typed against the
    override and answers `B`. Only plain classes: a class with type parameters (`reply`) is not."""
    x, y = prune(theirs), prune(mine)
    if type(x) is not TCon or type(y) is not TCon or x.args or y.args or x.name == y.name:
        return False
    info = ck.table.get(y.name)
    return info is not None and not info.builtin and ck.table.is_ancestor(x.name, y.name)


def signature_text(types, namer) -> str:
    *args, result = types
    return (", ".join(show(a, namer) for a in args) + " -> " if args else "-> ") + show(result, namer)


def less_general(vars_, level) -> bool:
    """After unification: did two of `vars_` meet, or one get fixed (to a class or an outer variable)?"""
    reps = set()
    for v in vars_:
        r = prune(v)
        if type(r) is not TVar or r.level < level or r.id in reps:
            return True
        reps.add(r.id)
    return False


def method_name(mi) -> P.MethodName:
    return P.MethodName(mi.cls.name, mi.decl.selector, mi.class_side)


def report(ck, mi, theirs_text, mine_text, answers_anything, whose, parent_decl):
    ck.report(P.OverrideLessGeneral(method_name(mi), whose, theirs_text, mine_text,
                                    answers_anything, mi.decl.span,
                                    parent_decl.span if parent_decl is not None else None))


def texts(theirs, mine, self_t):
    """How both read, and whether the overridden one answers a variable found nowhere else (any type)."""
    res = prune(theirs[-1])
    anything = type(res) is TVar and not res.pending and all(v is not res for v in fresh_vars([*theirs[:-1], self_t], 0))
    return signature_text(theirs, Namer()), signature_text(mine, Namer()), anything


# Class-side selectors of every class that the checker types by a rule of its own, which a user
# method would silently replace at run time (`new` is not among them: a user `new` is what the
# checker types a send of `new` by).
CLASS_PRIMITIVES = frozenset({"printNl", "displayNl", "yourself", "fields:"})
# Class-side sends answering the receiving class itself.
CLASS_ITSELF = frozenset({"printNl", "displayNl", "yourself"})
# The opaque `Reason` protocol: a reason is a Symbol or an Error at run time.
REASON_SELECTORS = ("isNormal", "isKilled", "isError", "error")


def _fields_around(ck, info) -> bool:
    """Has `info`, an ancestor or a descendant fields (so `with:` on it may be the record copy)?"""
    if info.name == "Object" or any(c.fields or (c.builtin and c.name == "Error") for c in ck.table.chain(info.name)):
        return True
    stack = list(info.subclasses)
    while stack:
        sub = ck.table.classes.get(stack.pop())
        if sub is not None:
            if sub.fields:
                return True
            stack.extend(sub.subclasses)
    return False


def primitive_redefinition(ck, m, info):
    """The problem (problems.BuiltInSelector) if method `m` on class `info` redefines a selector whose
    typing (or the run time) is built in, so that the checker's rule and the method run would disagree."""
    from lp.types.library import INSTANCE_SIGS
    sel = m.selector
    if m.span is not None and m.span.file.replace("\\", "/").endswith("stdlib/core.lp"):
        return None     # the core library implements some of these primitives in LP
    kind = None
    if m.class_side:
        kind = "class" if sel in CLASS_PRIMITIVES else None
    elif sel == "with:" and _fields_around(ck, info):
        kind = "with"
    elif info.builtin and getattr(INSTANCE_SIGS.get(info.name, {}).get(sel), "special", False):
        kind = "primitive"
    elif sel in REASON_SELECTORS and ("Error" in {c.name for c in ck.table.chain(info.name)}
                                      or info.name in ("Symbol", "Object")):   # Object: both inherit it
        kind = "reason"
    return P.BuiltInSelector(kind, info.name, sel, m.span) if kind else None


# ---- field accessors are methods (hostile report 1.7) ------------------------------------------

def check_fields(ck):
    """A field `f` answers `p f`: a unary method that overrides any `f` its class inherits (a
    universal selector like `isNil` or `yourself`, a library selector of `Error`, a user method),
    so it must have that method's type. Its type is one per program, so it must fit exactly."""
    for info in list(ck.table.classes.values()):
        if info.builtin or info.decl is None:
            continue
        for f in info.fields:
            ck.guard(info.decl, _check_field, ck, info, f)


def _check_field(ck, info, f):
    from lp.types.library import INSTANCE_SIGS, UNIVERSAL_SIGS
    ft = info.field_types[f]
    self_t = ck.table.instance_type(info.name, level=ck.level)
    for anc in ck.table.chain(info.superclass):
        if anc.builtin:
            sig = UNIVERSAL_SIGS.get(f) if anc.name == "Object" else INSTANCE_SIGS.get(anc.name, {}).get(f)
            if sig is not None:
                if sig.special or sig.args:
                    ck.report(P.FieldOverridesPrimitive(info.name, f, anc.name, info.decl.span))
                    return
                expected = ck.build(sig.result, ck.sig_env(self_t), self_t, why=info.decl.span)
                _compare(ck, info, f, ft, [expected], P.MethodName(None, f), None)
                return
        mi = anc.methods.get(f)
        if mi is not None and mi.scheme is not None and not mi.decl.params:
            theirs = ck.instantiate(mi.scheme)
            if type(prune(theirs.args[1])) is TVar:
                ck.unify(theirs.args[1], self_t)
            _compare(ck, info, f, ft, theirs.args[2:], P.MethodName(anc.name, f), mi.decl)
            return


def _compare(ck, info, f, ft, theirs, whose, parent_decl):
    general = fresh_vars(theirs, ck.level)
    shown = signature_text(theirs, Namer())
    clash = ck.unify(theirs[-1], ft)
    if clash:
        ck.report(P.Mismatch("field reader", (f, info.name, whose), clash, info.decl.span, theirs[-1], ft,
                             parent_decl.span if parent_decl is not None else None, title="incompatible override"))
    elif less_general(general, ck.level):
        ck.report(P.FieldLessGeneral(info.name, f, whose, shown, info.decl.span,
                                     parent_decl.span if parent_decl is not None else None))


def check_method_over_field(ck, mi, anc, f):
    """`B >> v` where an ancestor `A` has the field `v`: the method overrides the field's accessor."""
    mine = ck.instantiate(mi.scheme)
    if mi.decl.params:
        ck.report(P.FieldReaderWithArguments(method_name(mi), f, anc.name, mi.decl.span))
        return
    ft = ck.field_type(anc, f, mi.decl, mine.args[1])
    general = fresh_vars([ft], ck.level)   # a type parameter of the field (`reply`): any type per instance
    clash = ck.unify(ft, mine.args[-1])
    if clash:
        ck.report(P.Mismatch("field reader override", (method_name(mi), f, anc.name), clash, mi.decl.span,
                             ft, mine.args[-1], anc.decl.span, title="incompatible override"))
    elif less_general(general, ck.level):
        answer = prune(mine.args[-1])
        ck.report(P.FieldReaderLessGeneral(method_name(mi), f, anc.name,
                                           None if type(answer) is TVar else show(answer, Namer()),
                                           mi.decl.span, anc.decl.span))


# ---- class-side constructors are inherited (hostile report 1.1, 1.12) ----------------------------

CONSTRUCTORS = frozenset({"new", "fields:", "new:", "raise:", "signal:"})


def inherited_construction(ck, cname, sel, node, recv_t=None):
    """`self new` (`fields:`, `new:`, `raise:`, `signal:`) in a class-side method of `cname` builds an
    instance of whichever class receives the method: a subclass inherits it. So may a constructor sent to
    any class value typed `cname class` that is open (terms.TCon: a class-side `self` answered by a method,
    `X class >> me = self`, then `Y me new`), which is judged once everything is inferred, since a class
    type only becomes open. If a subclass declares fields of its own, that instance would miss them (an
    error, or a nil field); if it defines its own class-side `sel`, that runs instead of the builtin
    constructor the send is typed by: an error either way."""
    recv = getattr(node, "receiver", None)
    if sel not in CONSTRUCTORS or (type(recv) is A.Name and recv.name == cname):
        return
    if type(recv) is A.Name and recv.name in ("self", "super"):
        _subclass_construction(ck, recv.name, cname, sel, node)
    elif recv_t is not None:
        ck.constructions.append((recv_t, cname, sel, node))


def late_constructions(ck):
    for t, cname, sel, node in ck.constructions:
        if t.open:
            _subclass_construction(ck, None, cname, sel, node)


def _subclass_construction(ck, named, cname, sel, node):
    stack = list(ck.table.classes[cname].subclasses) if cname in ck.table.classes else []
    while stack:
        sub = ck.table.classes.get(stack.pop())
        if sub is None:
            continue
        if sub.fields or sel in sub.cmethods:
            ck.report(P.InheritedConstructor(named, cname, sel, sub.name, list(sub.fields) if sub.fields else None,
                                             node.span, sub.decl.span if sub.decl is not None else None))
            return
        stack.extend(sub.subclasses)


# ---- library methods override user methods on Object ------------------------------------------

def check_object_methods(ck):
    """`Object >> sel` is inherited by every builtin class, and a builtin class's own `sel` (its library
    signature) overrides it: a send typed against the Object method (say on a receiver not yet known)
    can reach the builtin's. So the library signature must be at least as general as the Object method."""
    from lp.types.library import CLASS_SIGS, FIELD_SIGS, INSTANCE_SIGS
    obj = ck.table.classes["Object"]
    for sel, om in list(obj.methods.items()):
        if om.scheme is None or om.decl.span is None or om.decl.span.file.replace("\\", "/").endswith("stdlib/core.lp"):
            continue
        # the library's own `sel` of each builtin class, and (classes are objects, whose class-side chain
        # ends in Object's instance methods) the class-side `sel` of each builtin class and its heirs
        overriders = [(c, t.get(sel), False) for c, t in INSTANCE_SIGS.items() if c not in ("Object", "Reason")] + \
            [(c, t.get(sel), True) for c, t in CLASS_SIGS.items()] + \
            [(c, FieldReader(t[sel]), False) for c, t in FIELD_SIGS.items() if sel in t]   # a field is a method
        for cname, sig, class_side in overriders:
            if sig is not None and cname in ck.table.classes and \
                    ck.guard(om.decl, _library_over_object, ck, om, cname, sig, class_side) is False:
                break


class FieldReader:
    """A builtin class's field (`Error`'s `message`) as the unary library method that reads it."""
    args = ()
    special = False

    def __init__(self, result):
        self.result = result


def _library_over_object(ck, om, cname, sig, class_side=False):
    sel = om.decl.selector
    owner = "" if class_side and cname == "Object" else f"{cname} class" if class_side else cname
    if sig.special or len(sig.args) != len(om.decl.params):
        ck.report(P.ObjectMethodOverPrimitive(sel, owner, om.decl.span))
        return False
    inst = ck.table.instance_type(cname, level=ck.level)
    recv = TCon(f"{cname} class") if class_side else inst
    theirs = ck.instantiate(om.scheme)
    ck.unify(theirs.args[1], recv)
    general = fresh_vars([recv, *theirs.args[2:]], ck.level)   # the receiver's parameters are any types too
    shown = signature_text(theirs.args[2:], Namer())
    env = ck.sig_env(inst) if not class_side else {}
    lib = [ck.build(a, env, inst) for a in sig.args] + [ck.build(sig.result, env, inst)]
    lib_shown = signature_text(lib, Namer())
    clashed = any(ck.unify(x, y) is not None for x, y in zip(theirs.args[2:], lib))
    if clashed or less_general(general, ck.level):
        ck.report(P.ObjectMethodOverLibrary(sel, shown, owner, not class_side, lib_shown, om.decl.span))
        return False
    return True
