"""Type terms: variables (union-find, with levels), constructors, actor protocols, poison and Dynamic.

A `TVar` is bound by setting `ref`; `prune` follows the chain. `level` drives
let-generalisation (Kiselyov / OCaml): a variable whose level is above the
current one when a binding is generalised becomes generic (`GENERIC`).
A `TVar` may carry pending constraints (sends to a receiver whose class is not
known yet); they fire when the variable is bound to a constructor.

A `TProto` is an actor's message protocol: what its receives accept (class
tags, literal values, a plain `receive`), what sends to it require, and where
the actor came from. Protocols are union-find nodes too: unifying two
`Actor[...]` types merges their protocols.
"""
from __future__ import annotations

from itertools import count

GENERIC = 1 << 30
_ids = count()


class Type:
    __slots__ = ()


class TVar(Type):
    __slots__ = ("ref", "level", "pending", "id")

    def __init__(self, level: int):
        self.ref = None
        self.level = level
        self.pending = None      # list of constraints, or None
        self.id = next(_ids)


class TCon(Type):
    """A constructor: `Integer`, `Array[a]`, `Block[a, b, r]`, `Actor[p]`, `Point`, `Point class`.
    `why` is the span of the expression that made this type, used for notes. `open` marks a class type
    (`X class`) whose value may be a subclass of X: a class-side `self` of a class with subclasses, and
    every class type unified with one (unify.py), since a value of either may reach the other."""
    __slots__ = ("name", "args", "why", "open", "ctx")

    def __init__(self, name: str, args: tuple = (), why=None):
        self.name = name
        self.args = args
        self.why = why
        self.open = False
        self.ctx = None     # a Block's: the protocol of the actor that runs it (its `Actor self`), once known


class TProto(Type):
    __slots__ = ("ref", "level", "accepts", "lits", "computed", "plain", "plain_sites", "asked", "requires", "origins",
                 "opaque",
                 "owner_checks", "id", "why", "copies", "late")

    def __init__(self, level: int):
        self.ref = None
        self.level = level
        self.accepts = {}        # class name -> (payload type, span of the entry)
        self.lits = {}           # kind ('Symbol', 'Integer', ...) -> {value: span}
        self.computed = []       # [(key type, span of the entry)]: keys computed at run time (`k -> [...]`)
        self.plain = None        # (answer type, span, True for a real `receive` / False for an ask: reply address)
        self.plain_sites = []    # the spans of every real plain `receive` on it
        self.asked = None        # the span of an ask: whose reply address this is
        self.requires = []       # [Require]
        self.origins = ()        # spans of the spawns / main that this protocol belongs to
        self.opaque = None       # span where an actor of unknown protocol came from
        self.owner_checks = []   # [(ctx protocol, span of the receive)]
        self.id = next(_ids)
        self.why = None
        self.copies = []         # a generic protocol's instances (one per call of its method)
        self.late = []           # deferred sends to type in each instance (constraints.Send.fire)


class Require:
    """A send `target ! msg`: the message type, where it was sent, and its literal value if any."""
    __slots__ = ("msg", "span", "literal", "done", "runtime", "plain")

    def __init__(self, msg, span, literal=None, runtime=None):
        self.msg = msg
        self.span = span
        self.literal = literal
        self.done = False
        self.plain = False      # unified with its target's plain `receive` (one merged in later needs it too)
        self.runtime = runtime   # the selector that makes the run time deliver it (`monitor:`), if not a send


class TSpecial(Type):
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


ERR = TSpecial("?error")      # poison: unifies with anything silently, after an error was reported
DYN = TSpecial("Dynamic")     # the explicit dynamic escape


def prune(t):
    if type(t) is TVar or type(t) is TProto:
        r = t.ref
        if r is None:
            return t
        root = r
        while (type(root) is TVar or type(root) is TProto) and root.ref is not None:
            root = root.ref
        while t.ref is not None and t.ref is not root:
            t.ref, t = root, t.ref
        return root
    return t


def free_vars(types) -> list:
    """The unbound variables in `types` (inside constructors and their contexts, not protocols), once each."""
    out, seen, stack = [], set(), list(types)
    while stack:
        t = prune(stack.pop())
        if type(t) is TVar:
            if t.id not in seen:
                seen.add(t.id)
                out.append(t)
        elif type(t) is TCon and t.args and id(t) not in seen:
            seen.add(id(t))
            stack.extend(t.args)
            if t.ctx is not None:
                stack.append(t.ctx)
    return out


def con(name, *args, why=None):
    return TCon(name, tuple(args), why)


# ---- printing -----------------------------------------------------------------

class Namer:
    """Gives type variables stable short names (a, b, c, ...) within one message."""

    def __init__(self):
        self.names = {}

    def var(self, v):
        n = self.names.get(v.id)
        if n is None:
            i = len(self.names)
            n = self.names[v.id] = chr(ord("a") + i % 26) + (str(i // 26) if i >= 26 else "")
        return n


WIDTH = 200        # a type shown longer than this is shown less deep
DEPTHS = (6, 4, 3, 2, 1)


def show(t, namer: Namer | None = None) -> str:
    """The type as a diagnostic shows it: nested 6 deep at most, and less deep if it would be longer
    than WIDTH (a type built by doubling, `Dictionary[Dictionary[...]]`, would be kilobytes)."""
    namer = namer or Namer()
    for limit in DEPTHS:
        trial = Namer()
        trial.names = dict(namer.names)
        text = _show(t, trial, 0, limit)
        if len(text) <= WIDTH:
            break
    namer.names = trial.names
    return text


def _show(t, namer: Namer, depth: int, limit: int) -> str:
    t = prune(t)
    if depth > limit:
        return "..."
    if type(t) is TVar:
        return namer.var(t)
    if type(t) is TSpecial:
        return "Dynamic" if t is DYN else "?"
    if type(t) is TProto:
        return _show_protocol(t, namer, depth + 1, limit)
    if t.name == "Block":
        if len(t.args) == 1:
            return f"Block[{_show(t.args[0], namer, depth + 1, limit)}]"
        ps = ", ".join(_show(a, namer, depth + 1, limit) for a in t.args[:-1])
        return f"Block[{ps} -> {_show(t.args[-1], namer, depth + 1, limit)}]"
    if t.name == "Method":
        return "method"
    if t.name == "Actor" and t.args:
        p = prune(t.args[0])
        if type(p) is TProto and not p.accepts and not p.lits and not p.computed and p.plain is None:
            return "Actor"
    if not t.args:
        return t.name
    return f"{t.name}[{', '.join(_show(a, namer, depth + 1, limit) for a in t.args)}]"


def _show_protocol(p, namer: Namer, depth: int, limit: int) -> str:
    p = prune(p)
    parts = accepted_names(p)
    if p.plain is not None:
        parts.append(f"any {_show(p.plain[0], namer, depth + 1, limit)}")
    if p.opaque is not None and not parts:
        return "?"
    return " | ".join(parts) if parts else "nothing yet"


COMPUTED = " equal to a computed key"   # how a computed receive key is listed


def accepted_names(p) -> list[str]:
    out = list(p.accepts)
    for kind, vals in p.lits.items():
        for v in vals:
            out.append(literal_text(kind, v))
    for k, _ in p.computed:
        out.append(show(k) + COMPUTED)
    return out


def literal_text(kind, v) -> str:
    if kind == "Symbol":
        return "#" + v
    if kind == "String":
        return "'" + v.replace("'", "''") + "'"
    if kind == "Character":
        return "$" + v
    return str(v)
