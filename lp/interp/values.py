"""Run-time values of the interpreter.

LP Integer, Float, Boolean, nil and String are Python int, float, bool, None
and str; everything else is one of the classes below. All values are
immutable, so actors can share them freely.
"""
from __future__ import annotations

import threading

from immutables import Map


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


class GrainRefValue:
    """A reference to one grain (stdlib/grain.lp): its label (`Counter/a`) and the block that makes
    a call; a selector its class does not define is a call (lp/interp/prims_grain.py). Two references
    are equal when they name the same grain: the same class and id (its label)."""
    __slots__ = ("label", "block")

    def __init__(self, label: str, block):
        self.label = label
        self.block = block

    def __eq__(self, other):
        return type(other) is GrainRefValue and other.label == self.label

    def __hash__(self):
        return hash(("GrainRef", self.label))


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
        return deep_equal(self, other)

    def __hash__(self):
        return deep_hash(self)


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
        return deep_equal(self, other)

    def __hash__(self):
        return deep_hash(self)


NONE = Maybe(False)


class Association:
    __slots__ = ("key", "value")

    def __init__(self, key, value):
        self.key = key
        self.value = value

    def __eq__(self, other):
        return deep_equal(self, other)

    def __hash__(self):
        return deep_hash(self)


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
    """An immutable dictionary on a HAMT: `at:put:` answers a new one sharing most of the
    structure. Keys keep insertion order: each entry remembers when its key was first added."""
    __slots__ = ("map", "next", "_order")

    def __init__(self, map_: Map = Map(), next_: int = 0):
        self.map = map_      # dict_key(k) -> (insertion number, k, value)
        self.next = next_    # the insertion number of the next new key
        self._order = None   # the entries in insertion order, computed once on demand

    @staticmethod
    def of(pairs) -> "LPDict":
        d = LPDict()
        with d.map.mutate() as m:
            n = 0
            for k, v in pairs:
                dk = dict_key(k)
                old = m.get(dk)
                if old is None:
                    m[dk] = (n, k, v)
                    n += 1
                else:
                    m[dk] = (old[0], old[1], v)
            return LPDict(m.finish(), n)

    def get(self, k, default=None):
        e = self.map.get(dict_key(k))
        return default if e is None else e[2]

    def __contains__(self, k):
        return dict_key(k) in self.map

    def __len__(self):
        return len(self.map)

    def put(self, k, v) -> "LPDict":
        dk = dict_key(k)
        old = self.map.get(dk)
        if old is None:
            return LPDict(self.map.set(dk, (self.next, k, v)), self.next + 1)
        return LPDict(self.map.set(dk, (old[0], old[1], v)), self.next)

    def remove(self, k) -> "LPDict":
        dk = dict_key(k)
        if dk not in self.map:
            return self
        return LPDict(self.map.delete(dk), self.next)

    def entries(self) -> list:
        """(key, value) pairs in insertion order."""
        if self._order is None:
            self._order = [(k, v) for _, k, v in sorted(self.map.values(), key=_first)]
        return self._order

    def __eq__(self, other):
        return deep_equal(self, other)

    def __hash__(self):
        # the same pairs in any order hash alike; each pair's parts without recursion
        h = len(self.map)
        for _, k, v in self.map.values():
            h += _mix(deep_hash(k) * 31 + deep_hash(v))
        return h & _MASK64


_ABSENT = object()


def _first(e):
    return e[0]


class _BoolKey:
    """A Boolean as a dictionary key: Python's True == 1, LP's `true = 1` is false."""
    __slots__ = ("b",)

    def __init__(self, b):
        self.b = b

    def __eq__(self, other):
        return type(other) is _BoolKey and other.b is self.b

    def __hash__(self):
        return hash(("bool", self.b))


_TRUE_KEY, _FALSE_KEY = _BoolKey(True), _BoolKey(False)


class _ArrayKey:
    """An Array as a dictionary key: compared and hashed by deep_equal / deep_hash, since
    Python's tuple == and hash recurse (and call True equal to 1)."""
    __slots__ = ("t", "h")

    def __init__(self, t):
        self.t = t
        self.h = deep_hash(t)

    def __eq__(self, other):
        return type(other) is _ArrayKey and other.h == self.h and deep_equal(other.t, self.t)

    def __hash__(self):
        return self.h


def dict_key(k):
    if k is True:
        return _TRUE_KEY
    if k is False:
        return _FALSE_KEY
    if type(k) is tuple:
        return _ArrayKey(k)
    return k


# ---- structural equality and hashing without recursion: values nested hundreds of thousands
# deep (a linked list of instances) compare, hash and serve as keys, as in native binaries

_NUMBERS = (int, float)
_MASK64 = (1 << 64) - 1


def _mix(x: int) -> int:
    x &= _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def deep_equal(a, b) -> bool:
    """LP's `=`: structural, numbers by value (1 = 1.0), a Boolean never equal to a number."""
    work = [(a, b)]
    while work:
        a, b = work.pop()
        ta, tb = type(a), type(b)
        if ta is bool or tb is bool:
            if a is not b:
                return False
        elif ta in _NUMBERS and tb in _NUMBERS:
            if a != b:
                return False
        elif ta is not tb:
            return False
        elif a is b:
            continue
        elif ta is tuple:
            if len(a) != len(b):
                return False
            work.extend(zip(a, b))
        elif ta is Instance:
            if a.cls is not b.cls:
                return False
            work.extend(zip(a.values, b.values))
        elif ta is Maybe:
            if a.present != b.present:
                return False
            work.append((a.value, b.value))
        elif ta is Association:
            work.append((a.key, b.key))
            work.append((a.value, b.value))
        elif ta is LPDict:
            if len(a.map) != len(b.map):
                return False
            for dk, (_, _, v) in a.map.items():
                e = b.map.get(dk, _ABSENT)
                if e is _ABSENT:
                    return False
                work.append((v, e[2]))
        elif a != b:   # strings, symbols, characters, intervals, records, classes ...
            return False
    return True


def deep_hash(v) -> int:
    """A hash consistent with deep_equal: the structure's shape and leaves in order."""
    h = 0x345678
    work = [v]
    while work:
        x = work.pop()
        t = type(x)
        if t is tuple:
            token = 0x7475 + len(x)
            work.extend(reversed(x))
        elif t is Instance:
            token = hash(x.cls.name)
            work.extend(reversed(x.values))
        elif t is Maybe:
            token = 0x4D41 + x.present
            if x.present:
                work.append(x.value)
        elif t is Association:
            token = 0x4153
            work.append(x.value)
            work.append(x.key)
        else:
            token = hash(x)
        h = ((h ^ token) * 1000003) & _MASK64
    return h


class Interval:
    """`start to: stop by: step`: the Integers from start towards stop, without storing them."""
    __slots__ = ("start", "stop", "step", "size")

    def __init__(self, start: int, stop: int, step: int = 1):
        self.start, self.stop, self.step = start, stop, step
        self.size = max(0, (stop - start) // step + 1)

    def at(self, i: int) -> int:
        return self.start + (i - 1) * self.step

    def __iter__(self):
        return iter(range(self.start, self.start + self.size * self.step, self.step))

    def __eq__(self, other):
        # the same elements: the same size, then the same first element and (past one) the same step
        return (isinstance(other, Interval) and self.size == other.size
                and (self.size == 0 or self.start == other.start)
                and (self.size < 2 or self.step == other.step))

    def __hash__(self):
        return hash(("interval", self.size, self.start if self.size else 0, self.step if self.size > 1 else 0))


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
    """The one-shot address `ask:` puts in a message's reply field: `!` resolves its future.
    Typed as an actor, it answers every other actor message for the asker (`ref`, `id`):
    `isAlive`, `monitor:`, `exit:` ... are about the actor waiting for the reply."""
    __slots__ = ("future", "ref", "id")

    def __init__(self, future: Future, asker: ActorValue):
        self.future = future
        self.ref, self.id = asker.ref, asker.id


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
