"""Independent parts of a program: top-level items that cannot affect each other's typing.

Two items of the main module are linked when they share anything through
which the checker passes type information between items (see
docs/editors.md): a user class (its declaration, methods, subclasses and
field types), a selector some user method or field defines (the checker's
"who understands this" table), a top-level variable, or the main actor (what
touches `Actor self` or receives at the top level). An item whose diagnostic
could quote the whole program (an unknown class, variable or selector, with
its "did you mean") or that adds methods to a builtin class is linked to
everything. Items in different components can be checked separately.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lp.syntax import ast as A
from lp.types.library import BUILTIN_CLASSES, BUILTIN_FIELDS, CLASS_SIGS, INSTANCE_SIGS, UNIVERSAL_SIGS

LIBRARY_SELECTORS = frozenset(UNIVERSAL_SIGS).union(*map(set, INSTANCE_SIGS.values()), *map(set, CLASS_SIGS.values()),
                                                     *map(set, BUILTIN_FIELDS.values()))
RECEIVES = frozenset({"receive", "receive:", "receive:after:do:"})
SPAWNS = frozenset({"spawn:", "spawnLink:"})
ALL = "*"
ACTOR = "actor"


@dataclass
class Facts:
    """What one item mentions, independent of the rest of the program."""
    sends: set = field(default_factory=set)        # selectors sent, and record field names
    defines: set = field(default_factory=set)      # selectors and fields it defines
    classes: set = field(default_factory=set)      # capitalised names it refers to or declares
    free: set = field(default_factory=set)         # lowercase names it reads without binding them
    binds: str | None = None                       # the top-level variable it assigns
    actor: bool = False                            # touches the running actor
    on_builtin: bool = False                       # a method added to a builtin class


def _free_names(node, bound: frozenset, out: set) -> None:
    """Names read in `node` that no enclosing block parameter or earlier local `:=` binds."""
    if isinstance(node, A.Name):
        if node.name not in bound and node.name not in A.PSEUDO_VARIABLES:
            out.add(node.name)
        return
    if isinstance(node, (A.Block, A.Sequence)):
        inner = set(bound)
        inner.update(p.name for p in getattr(node, "params", ()))
        for s in node.body:
            _free_names(s, frozenset(inner), out)
            if isinstance(s, A.Assign):
                inner.add(s.name)
        return
    for c in node.children():
        _free_names(c, bound, out)


def facts_of(item) -> Facts:
    f = Facts()
    if isinstance(item, A.ClassDecl):
        f.classes.update((item.name, item.superclass))
        f.defines.update(item.fields)
        return f
    body = item
    if isinstance(item, A.MethodDecl):
        f.classes.add(item.class_name)
        f.defines.add(item.selector)
        f.on_builtin = item.class_name in BUILTIN_CLASSES
        body = item.body
    elif isinstance(item, A.Assign):
        f.binds = item.name
        body = item.value
    for n in A.walk(body):
        t = type(n)
        if t is A.Send or t is A.Message:
            f.sends.add(n.selector)
            if n.selector in RECEIVES:
                f.actor = True
        elif t is A.RecordField:
            f.sends.add(n.name)
        elif t is A.Name and n.name[:1].isupper():
            f.classes.add(n.name)
    for n in A.walk(body):
        if type(n) is A.Send and type(n.receiver) is A.Name and n.receiver.name == "Actor" \
                and n.selector not in SPAWNS:
            f.actor = True
        elif type(n) is A.Name and n.name == "Actor":
            f.actor = f.actor or not _is_spawn_receiver(n, body)
    if not isinstance(item, A.MethodDecl):
        names: set = set()
        _free_names(body, frozenset(), names)
        f.free = {x for x in names if not x[:1].isupper()}
        f.classes |= {x for x in names if x[:1].isupper()}
    return f


def _is_spawn_receiver(name: A.Name, body) -> bool:
    return any(type(n) is A.Send and n.receiver is name and n.selector in SPAWNS for n in A.walk(body))


def components(items, facts: list[Facts], user_classes: set, user_selectors: set, known: set) -> list[int]:
    """A component number for each item: items with the same number must be checked together.
    `user_selectors` are those user classes define (fields too); `known`, those the imports define."""
    parent = list(range(len(items) + 1))      # the last slot stands for "everything"
    everything = len(items)

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i, j):
        parent[find(i)] = find(j)

    owner: dict[str, int] = {}
    assigned: set = set()
    for i, f in enumerate(facts):
        keys = []
        for c in f.classes:
            if c in user_classes:
                keys.append("class " + c)
            elif c not in BUILTIN_CLASSES:
                keys.append("var " + c)
                if c not in assigned:
                    keys.append(ALL)
        for s in f.sends | f.defines:
            if s in user_selectors:
                keys.append("sel " + s)
            elif s not in LIBRARY_SELECTORS and s not in known:
                keys.append(ALL)
        for v in f.free:
            keys.append("var " + v)
            if v not in assigned:
                keys.append(ALL)
        if f.binds is not None:
            keys.append("var " + f.binds)
            assigned.add(f.binds)
        if f.actor:
            keys.append(ACTOR)
        if f.on_builtin:
            keys.append(ALL)
        for k in keys:
            if k == ALL:
                union(i, everything)
            elif k in owner:
                union(i, owner[k])
            else:
                owner[k] = i
    return [find(i) for i in range(len(items))]
