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

