"""Independent parts of a program: top-level items that cannot affect each other's typing.

The checker passes type information between the items of a module only
through what they name: a user class (its declaration, methods, subclasses and
shared field types), a top-level variable, the main program's actor (what
receives or uses `Actor self` at the top level, directly or through the
methods it calls), and a selector understood by one user class only (a send to
a receiver of unknown class then takes that class). Items sharing none of
these are independent. An item whose diagnostic could quote the whole
program (an unknown class, variable or selector, with its "did you mean"),
or that adds a method to a builtin class, is linked to everything.
The class and method declarations themselves (names, fields, selectors) are
compared between versions by the caller: when they change, it checks the
whole program.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lp.syntax import ast as A
from lp.types.library import BUILTIN_CLASSES, CLASS_SIGS, UNIVERSAL_SIGS, builtin_owners
from lp.types.named_sends import performed_selector
from lp.types.reliable_ops import named_selectors

RECEIVES = frozenset({"receive", "receive:", "receive:after:do:"})
SPAWNS = frozenset({"spawn:", "spawnLink:"})
ALL = "*"
ACTOR = "actor"


@dataclass
class Facts:
    """What one item mentions, independent of the rest of the program."""
    sends: set = field(default_factory=set)        # selectors sent, and record field names
    direct: set = field(default_factory=set)       # selectors sent by the running actor (not in a spawned body)
    defines: set = field(default_factory=set)      # selectors and fields it defines
    classes: set = field(default_factory=set)      # capitalised names it refers to or declares
    free: set = field(default_factory=set)         # lowercase names it reads without binding them
    binds: str | None = None                       # the top-level variable it assigns
    actor: bool = False                            # receives or uses `Actor` as the running actor
    method: bool = False
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


def _is_spawn(n) -> bool:
    return type(n) is A.Send and n.selector in SPAWNS and type(n.receiver) is A.Name and n.receiver.name == "Actor"


def _escaping_actor_block(spawn) -> bool:
    """Whether a spawned body holds a block (other than itself) that uses `Actor`: sent or answered to
    another actor, it runs there and joins that actor's protocol (lp/types/actors.py)."""
    for body in spawn.args:
        for n in A.walk(body):
            if type(n) is A.Block and n is not body and any(
                    (type(m) is A.Name and m.name == "Actor")
                    or (type(m) in (A.Send, A.Message) and m.selector in RECEIVES) for m in A.walk(n)):
                return True
    return False


def _running_actor(body, f: Facts, performed: dict) -> None:
    """Sends and uses of `Actor` by the actor running `body`, skipping the bodies of actors it spawns
    (`performed`: id of a send -> the selector its `Remote perform:` names, found by facts_of)."""
    stack = [body]
    while stack:
        n = stack.pop()
        t = type(n)
        if _is_spawn(n):
            if _escaping_actor_block(n):
                f.actor = True
            continue
        if t is A.Send or t is A.Message:
            f.direct.add(n.selector)
            sel = performed.get(id(n))
            if sel is not None:   # the method runs in this actor (lp/types/infer.py)
                f.direct.add(sel)
            if n.selector in RECEIVES:
                f.actor = True
        elif t is A.Name and n.name == "Actor":
            f.actor = True
        stack.extend(n.children())


def facts_of(item) -> Facts:
    f = Facts()
    if isinstance(item, A.ClassDecl):
        f.classes.update((item.name, item.superclass))
        f.defines.update(item.fields)
        return f
    body = item
    if isinstance(item, A.MethodDecl):
        f.method = True
        f.classes.add(item.class_name)
        f.defines.add(item.selector)
        f.on_builtin = item.class_name in BUILTIN_CLASSES
        body = item.body
    elif isinstance(item, A.Assign):
        f.binds = item.name
        body = item.value
    performed = {}
    for n in A.walk(body):
        t = type(n)
        if t is A.Send or t is A.Message:
            f.sends.add(n.selector)
            sel = performed_selector(n)
            if sel is not None:
                f.sends.add(sel)
                performed[id(n)] = sel
            f.sends.update(named_selectors(n))   # a reliable call's op and handler Symbols
        elif t is A.RecordField:
            f.sends.add(n.name)
        elif t is A.Name and n.name[:1].isupper():
            f.classes.add(n.name)
    _running_actor(body, f, performed)
    if not f.method:
        names: set = set()
        _free_names(body, frozenset(), names)
        f.free = {x for x in names if not x[:1].isupper()}
        f.classes |= {x for x in names if x[:1].isupper()}
    return f


@dataclass
class Program:
    """What the whole program (the main module and its imports) declares, as components needs it."""
    classes: set                 # user class names
    owners: dict                 # selector -> the classes whose instances understand it
    class_side: set              # selectors some class understands on its class side
    touching: set                # selectors of methods that use their caller's actor


def program_facts(modules, main_facts: dict) -> Program:
    """`modules` are the imports then the main items; `main_facts` maps id(item) to its Facts."""
    owners = builtin_owners()
    classes, class_side = set(), set(CLASS_SIGS.get("Object", {}))
    for sigs in CLASS_SIGS.values():
        class_side.update(sigs)
    methods = []
    for items in modules:
        for it in items:
            if isinstance(it, A.ClassDecl):
                classes.add(it.name)
                for fld in it.fields:
                    owners.setdefault(fld, set()).add(it.name)
            elif isinstance(it, A.MethodDecl):
                if it.class_side:
                    class_side.add(it.selector)
                else:
                    owners.setdefault(it.selector, set()).add(it.class_name)
                methods.append(main_facts.get(id(it)) or facts_of(it))
    touching: set = set()
    changed = True
    while changed:
        changed = False
        for f in methods:
            sel = next(iter(f.defines))
            if sel not in touching and (f.actor or f.direct & touching):
                touching.add(sel)
                changed = True
    return Program(classes, owners, class_side, touching)


def components(facts: list[Facts], prog: Program) -> list[int]:
    """A component number for each item: items with the same number must be checked together."""
    n = len(facts)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    assigned: set = set()
    for i, f in enumerate(facts):
        keys = []
        for c in f.classes:
            if c in prog.classes:
                keys.append("class " + c)
            elif c not in BUILTIN_CLASSES:
                keys.append("var " + c)
                if c not in assigned:
                    keys.append(ALL)
        for s in f.sends | f.defines:
            who = prog.owners.get(s, ())
            if s in UNIVERSAL_SIGS or len(who) > 1:
                continue
            if who:
                if not who <= BUILTIN_CLASSES.keys():
                    keys.append("sel " + s)
            elif s not in prog.class_side:
                keys.append(ALL)
        for v in f.free:
            keys.append("var " + v)
            if v not in assigned:
                keys.append(ALL)
        if f.binds is not None:
            keys.append("var " + f.binds)
            assigned.add(f.binds)
        if not f.method and (f.actor or f.direct & prog.touching):
            keys.append(ACTOR)
        if f.on_builtin:
            keys.append(ALL)
        if ALL in keys:
            return [0] * n
        for k in keys:
            parent[find(i)] = find(owner.setdefault(k, i))
    return [find(i) for i in range(n)]
