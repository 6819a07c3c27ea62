"""Run-time values of the interpreter.

LP Integer, Float, Boolean, nil and String are Python int, float, bool, None
and str; everything else is one of the classes below. All values are
immutable, so actors can share them freely.
"""
from __future__ import annotations

import threading


class Symbol:
    """An interned symbol: equal symbols are the same object."""
    __slots__ = ("name", "__weakref__")
    _table: dict[str, "Symbol"] = {}
    _lock = threading.Lock()

    def __new__(cls, name: str):
        s = cls._table.get(name)
        if s is None:
            with cls._lock:
                s = cls._table.get(name)
                if s is None:
                    s = object.__new__(cls)
                    s.name = name
                    cls._table[name] = s
        return s

    def __repr__(self):
        return f"#{self.name}"

    def __reduce__(self):
        return (Symbol, (self.name,))


class Char:
    __slots__ = ("ch",)
    _table: dict[str, "Char"] = {}

    def __new__(cls, ch: str):
        c = cls._table.get(ch)
        if c is None:
            c = object.__new__(cls)
            c.ch = ch
            if ord(ch) < 256:
                cls._table[ch] = c
        return c

    def __eq__(self, other):
        return isinstance(other, Char) and other.ch == self.ch

    def __hash__(self):
        return hash(("char", self.ch))


class LPClass:
    """A class: name, superclass, all field names (inherited first), and method tables."""
    root: "LPClass | None" = None  # Object, where class-side lookup ends
    __slots__ = ("name", "superclass", "fields", "methods", "class_methods", "field_index",
                 "_cache", "_class_cache", "builtin", "ancestors")

    def __init__(self, name: str, superclass: "LPClass | None", own_fields=(), builtin=False):
        self.name = name
        self.superclass = superclass
        self.fields = tuple(superclass.fields if superclass else ()) + tuple(own_fields)
        self.field_index = {f: i for i, f in enumerate(self.fields)}
        self.methods: dict = {}
        self.class_methods: dict = {}
        self._cache: dict = {}
        self._class_cache: dict = {}
        self.builtin = builtin
        chain = []
        c = self
        while c is not None:
            chain.append(c)
            c = c.superclass
        self.ancestors = frozenset(chain)

    def inherits(self, other: "LPClass") -> bool:
        return other in self.ancestors

    def lookup(self, selector: str):
        m = self._cache.get(selector)
        if m is None:
            c = self
            while c is not None:
                m = c.methods.get(selector)
                if m is not None:
                    break
                c = c.superclass
            if m is not None:
                self._cache[selector] = m
        return m

    def lookup_class(self, selector: str):
        """Class-side lookup: class methods up the chain, then Object's instance methods (classes are objects)."""
        m = self._class_cache.get(selector)
        if m is None:
            c = self
            while c is not None:
                m = c.class_methods.get(selector)
                if m is not None:
                    break
                c = c.superclass
            if m is None and LPClass.root is not None:
                m = LPClass.root.lookup(selector)
            if m is not None:
                self._class_cache[selector] = m
        return m

    def invalidate(self):
        self._cache.clear()
        self._class_cache.clear()

    def __repr__(self):
        return self.name


class Instance:
    """An instance of a user (or library) class: its class and field values in order."""
    __slots__ = ("cls", "values", "trace")

    def __init__(self, cls: LPClass, values: tuple, trace=None):
        self.cls = cls
        self.values = values
        self.trace = trace  # errors: the LP call stack where they were raised

    def get(self, name: str):
        return self.values[self.cls.field_index[name]]

    def __eq__(self, other):
        return isinstance(other, Instance) and other.cls is self.cls and other.values == self.values

    def __hash__(self):
        return hash((self.cls.name, self.values))


class Closure:
    """A block: compiled code, the values it captured, and its home method frame (for ^)."""
    __slots__ = ("code", "captured", "home")

    def __init__(self, code, captured: tuple, home):
        self.code = code
        self.captured = captured
        self.home = home


class Maybe:
    __slots__ = ("present", "value")

    def __init__(self, present: bool, value=None):
        self.present = present
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Maybe) and other.present == self.present and other.value == self.value

    def __hash__(self):
        return hash(("maybe", self.present, self.value))


NONE = Maybe(False)


class Association:
    __slots__ = ("key", "value")

    def __init__(self, key, value):
        self.key = key
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Association) and other.key == self.key and other.value == self.value

    def __hash__(self):
        return hash(("assoc", self.key, self.value))


class Record:
    """The value of a record literal `{ x: 1. y: 2 }`: field names and values, in order."""
    __slots__ = ("names", "values")

    def __init__(self, names: tuple, values: tuple):
        self.names = names
        self.values = values

    def __eq__(self, other):
        return isinstance(other, Record) and dict(zip(self.names, self.values)) == dict(zip(other.names, other.values))

    def __hash__(self):
        return hash(frozenset(zip(self.names, self.values)))


class LPDict:
    """An immutable dictionary; `at:put:` answers a new one. Keys keep insertion order."""
    __slots__ = ("items",)

    def __init__(self, items: dict):
        self.items = items

    def __eq__(self, other):
        return isinstance(other, LPDict) and other.items == self.items

    def __hash__(self):
        return hash(frozenset(self.items.items()))


class Future:
    """A value that arrives later. Waiting actors are woken by a message to their mailbox."""
    __slots__ = ("lock", "resolved", "value", "waiters")

    def __init__(self):
        self.lock = threading.Lock()
        self.resolved = False
        self.value = None
        self.waiters: list = []


class Promise:
    __slots__ = ("future",)

    def __init__(self):
        self.future = Future()


class ReplyAddress:
    """The one-shot address `ask:` puts in a message's reply field: `!` resolves its future."""
    __slots__ = ("future",)

    def __init__(self, future: Future):
        self.future = future


class FutureReady:
    """Internal wake-up message: never matched by LP receives."""
    __slots__ = ("future",)

    def __init__(self, future: Future):
        self.future = future


class ActorValue:
    """An LP reference to an actor (wraps the runtime's reference)."""
    __slots__ = ("ref", "id")

    def __init__(self, ref):
        self.ref = ref
        self.id = ref.id

    def __eq__(self, other):
        return isinstance(other, ActorValue) and other.id == self.id

    def __hash__(self):
        return hash(("actor", self.id))
