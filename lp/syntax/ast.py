"""LP's abstract syntax tree: immutable nodes, each carrying the source span it came from.

Spans take no part in equality, so two parses of differently formatted sources
with the same meaning compare equal (the formatter's round-trip test relies on it).
Nor does a literal's source spelling (`text`: `16rFF` and `255` are equal), which
the formatter prints back as written.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Iterator, NamedTuple


class Span(NamedTuple):
    file: str
    line: int
    col: int
    end_line: int
    end_col: int  # exclusive, 1-based like col

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to(self, other: "Span") -> "Span":
        return Span(self.file, self.line, self.col, other.end_line, other.end_col)


NO_SPAN = Span("<none>", 0, 0, 0, 0)


def _span():
    return field(default=NO_SPAN, compare=False, repr=False)


def _spelling(default=None):
    return field(default=default, compare=False, repr=False)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(
            f.name for f in fields(cls) if f.name not in ("span", "selector_span", "name_span", "file", "comments",
                                                          "chain", "text", "opener")
            and f.type not in ("str", "int", "float", "bool"))
    return names


class Node:
    __slots__ = ()

    def children(self) -> Iterator["Node"]:
        for name in _child_fields(type(self)):
            v = getattr(self, name)
            if isinstance(v, Node):
                yield v
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, Node):
                        yield x
                    elif isinstance(x, tuple):
                        yield from (y for y in x if isinstance(y, Node))


# ---- expressions -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class IntLit(Node):
    value: int
    span: Span = _span()
    text: str | None = _spelling()   # as written (`16rFF`, `1e6`), None for a built node


@dataclass(frozen=True, slots=True)
class FloatLit(Node):
    value: float
    span: Span = _span()
    text: str | None = _spelling()


@dataclass(frozen=True, slots=True)
class StrLit(Node):
    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CharLit(Node):
    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SymLit(Node):
    name: str
    span: Span = _span()
    text: str | None = _spelling()   # `#foo`, `#'foo'`, or a bare `foo` inside a literal array


@dataclass(frozen=True, slots=True)
class LitArray(Node):
    """`#(1 $a foo 'x' (nested))`: elements are literals; bare words are symbols."""
    items: tuple[Node, ...]
    span: Span = _span()
    opener: str = _spelling("#(")   # a nested array may be written `(1 2)` or `#(1 2)`


@dataclass(frozen=True, slots=True)
class Name(Node):
    """A variable or class reference. `self`, `super`, `nil`, `true`, `false` are names too."""
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Block(Node):
    params: tuple["Param", ...]
    body: tuple[Node, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Param(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Send(Node):
    receiver: Node
    selector: str
    args: tuple[Node, ...]
    span: Span = _span()
    selector_span: Span = _span()
    chain: int = field(default=1, compare=False, repr=False)  # sends nested directly below, plus one

    @property
    def kind(self) -> str:
        return selector_kind(self.selector)


@dataclass(frozen=True, slots=True)
class Message(Node):
    """One message of a cascade part (the receiver is given by the cascade)."""
    selector: str
    args: tuple[Node, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Cascade(Node):
    """`r m1; m2; m3`: each part is a chain of messages, the first sent to `receiver`."""
    receiver: Node
    parts: tuple[tuple[Message, ...], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BraceArray(Node):
    items: tuple[Node, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Record(Node):
    """`{ x: 7. y: 8 }`, used to build instances with `fields:` and `with:`."""
    fields: tuple["RecordField", ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RecordField(Node):
    name: str
    value: Node
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DispatchTable(Node):
    """A brace array whose every element is `key -> handler`: the form `receive:` takes."""
    entries: tuple["TableEntry", ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TableEntry(Node):
    key: Node
    handler: Node
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Sequence(Node):
    """A parenthesised statement sequence `(a := 1. a + 2)`; answers its last value."""
    body: tuple[Node, ...]
    span: Span = _span()


# ---- statements ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Assign(Node):
    name: str
    value: Node
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class Return(Node):
    value: Node
    span: Span = _span()


# ---- top-level declarations ---------------------------------------------------

@dataclass(frozen=True, slots=True)
class ClassDecl(Node):
    name: str
    superclass: str
    fields: tuple[str, ...]
    has_field_list: bool = False
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MethodDecl(Node):
    class_name: str
    class_side: bool
    selector: str
    params: tuple[Param, ...]
    body: Node
    span: Span = _span()

    @property
    def kind(self) -> str:
        return selector_kind(self.selector)


@dataclass(frozen=True, slots=True)
class Import(Node):
    """`Import module: #Supervision.`"""
    module: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Comment:
    text: str  # without the surrounding double quotes
    span: Span


@dataclass(frozen=True, slots=True)
class Program(Node):
    items: tuple[Node, ...]
    file: str = field(default="<input>", compare=False)
    comments: tuple[Comment, ...] = field(default=(), compare=False, repr=False)
    span: Span = _span()

    @property
    def classes(self) -> tuple[ClassDecl, ...]:
        return tuple(i for i in self.items if isinstance(i, ClassDecl))

    @property
    def methods(self) -> tuple[MethodDecl, ...]:
        return tuple(i for i in self.items if isinstance(i, MethodDecl))

    @property
    def imports(self) -> tuple[Import, ...]:
        return tuple(i for i in self.items if isinstance(i, Import))

    @property
    def statements(self) -> tuple[Node, ...]:
        return tuple(i for i in self.items
                     if not isinstance(i, (ClassDecl, MethodDecl, Import)))


PSEUDO_VARIABLES = frozenset({"self", "super", "nil", "true", "false"})


def selector_kind(selector: str) -> str:
    if selector.endswith(":"):
        return "keyword"
    if selector[0].isalpha() or selector[0] == "_":
        return "unary"
    return "binary"


def keyword_parts(selector: str) -> list[str]:
    return [p + ":" for p in selector.split(":")[:-1]]


def walk(node: Node) -> Iterator[Node]:
    """Every node below and including `node`, iteratively (ASTs may be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children())
