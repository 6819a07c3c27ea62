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

from lp.diagnostics import Note
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


def report(ck, mi, theirs_text, mine_text, whose, parent_decl):
    side = " class" if mi.class_side else ""
    ck.error("override less general",
             f"`{mi.cls.name}{side} >> {mi.decl.selector}` overrides {whose}, whose type is `{theirs_text}`, "
             f"but its own type is only `{mine_text}`. A send typed against the overridden method can "
             "reach this override and get an answer of a type it did not expect.",
             mi.decl.span,
             [Note("The overridden method is here:", parent_decl.span)] if parent_decl is not None else (),
             hint="an override must work for every type the method it overrides works for; "
                  "give it another selector if it is more specific")


def texts(theirs, mine):
    return signature_text(theirs, Namer()), signature_text(mine, Namer())


# Class-side selectors of every class that the checker types by a rule of its own, which a user
# method would silently replace at run time (`new` is not among them: a user `new` is what the
# checker types a send of `new` by).
CLASS_PRIMITIVES = frozenset({"printNl", "displayNl", "yourself", "fields:"})
# The opaque `Reason` protocol: a reason is a Symbol or an Error at run time.
REASON_SELECTORS = ("isNormal", "isKilled", "isError", "error")


def primitive_redefinition(ck, m, info):
    """An error message if method `m` on class `info` redefines a selector whose typing (or the
    run time) is built in, so that the checker's rule and the method run would disagree."""
    from lp.types.library import INSTANCE_SIGS
    sel = m.selector
    side = " class" if m.class_side else ""
    if m.span is not None and m.span.file.replace("\\", "/").endswith("stdlib/core.lp"):
        return None     # the core library implements some of these primitives in LP
    if m.class_side:
        if sel in CLASS_PRIMITIVES:
            return (f"`{info.name} class >> {sel}` would redefine `{sel}`, which every class understands "
                    "and which the checker types by a rule of its own.")
        return None
    if info.builtin:
        sig = INSTANCE_SIGS.get(info.name, {}).get(sel)
        if sig is not None and sig.special:
            return (f"`{sel}` is a primitive of `{info.name}` that the compiler and the checker rely on; "
                    f"`{info.name}{side} >> {sel}` cannot redefine it.")
    if sel in REASON_SELECTORS:
        names = {c.name for c in ck.table.chain(info.name)}
        if "Error" in names or info.name == "Symbol":
            return (f"`{sel}` is part of the `Reason` protocol, and an actor's exit reason is a Symbol or "
                    f"an Error at run time: `{info.name} >> {sel}` would change what every reason answers.")
    return None
