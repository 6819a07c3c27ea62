"""The typed IR: the checked program in the declared form every back end consumes.

Built by `lp.ir.build` from the AST and the checker's result; a back end never
reaches into the checker. Every expression carries its resolved type (`Ty`)
and its source span. Names are resolved: a `Ref` points at one `Var` (unique
`id`), a block lists the outer `Var`s it captures, class references and
selectors are by name. Control messages the checker proves safe to inline
(`ifTrue:ifFalse:` and friends on a Boolean, `and:`/`or:`, `to:do:` and
`timesRepeat:` on an Integer) are their own nodes; every other message is a
`Send`, with `tail` set when it is in tail position (the frame may be replaced).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from lp.syntax.ast import NO_SPAN, Span


@dataclass(frozen=True, slots=True)
class Ty:
    """A resolved type: a constructor with arguments (`Array[Integer]`), or a type variable
    (`var` set, `name` empty) where the checker left the type open (a generic method)."""
    name: str
    args: tuple["Ty", ...] = ()
    var: int | None = None

    @property
    def known(self) -> bool:
        return self.var is None and self.name not in ("", "Dynamic", "?")

    def __str__(self) -> str:
        if self.var is not None:
            return f"'t{self.var}"
        if not self.args:
            return self.name
        return f"{self.name}[{', '.join(str(a) for a in self.args)}]"


UNKNOWN = Ty("?")


@dataclass(eq=False, slots=True)
class Var:
    """One binding: a method or block parameter, `self`, a `:=` binding, a loop counter."""
    name: str
    id: int
    type: Ty
    span: Span = NO_SPAN


# ---- expressions ---------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Const:
    """A literal. kind: int float bool nil char string symbol array (value: tuple of Const)."""
    kind: str
    value: object
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class Ref:
    var: Var
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class ClassRef:
    """A class used as a value (the receiver of class-side sends)."""
    name: str
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class Send:
    receiver: "Expr"
    selector: str
    args: tuple["Expr", ...]
    type: Ty
    span: Span = NO_SPAN
    tail: bool = False
    super_from: str | None = None   # `super m`: the class whose superclass starts the lookup


@dataclass(eq=False, slots=True)
class Closure:
    """A block value: its parameters, body, and the outer variables it captures (in order).
    `returns` when the body holds a `^` (a non-local return to `home`'s method)."""
    params: tuple[Var, ...]
    body: "Body"
    captures: tuple[Var, ...]
    type: Ty
    span: Span = NO_SPAN
    returns: bool = False
    name: str = ""                  # `[] in Point >> norm`, as the interpreter names it


@dataclass(eq=False, slots=True)
class If:
    """Inlined `ifTrue:` / `ifFalse:` / `ifTrue:ifFalse:` / `ifFalse:ifTrue:` on a proven Boolean.
    A missing branch, and both branches of a one-branch form, answer nil (`one_branch`)."""
    cond: "Expr"
    then: "Body | None"
    else_: "Body | None"
    one_branch: bool
    type: Ty
    span: Span = NO_SPAN
    tail: bool = False


@dataclass(eq=False, slots=True)
class AndOr:
    """Inlined `and:` / `or:` on a proven Boolean (`op` is 'and' or 'or')."""
    op: str
    left: "Expr"
    right: "Body"
    type: Ty
    span: Span = NO_SPAN
    tail: bool = False


@dataclass(eq=False, slots=True)
class Loop:
    """Inlined `start to: stop do: [:i | body]` or `n timesRepeat: [body]` (start 1, stop n, var None)
    on proven Integers. Answers the receiver."""
    kind: str                       # 'to:do:' or 'timesRepeat:'
    start: "Expr"
    stop: "Expr"
    var: Var | None
    body: "Body"
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class Seq:
    """A parenthesised statement sequence; bindings inside stay inside."""
    body: "Body"
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class MakeArray:
    """A brace array `{ a. b }`."""
    items: tuple["Expr", ...]
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class MakeRecord:
    """A record `{ x: 1. y: 2 }` (the argument of `fields:` and `with:`)."""
    names: tuple[str, ...]
    values: tuple["Expr", ...]
    type: Ty
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class Receive:
    """`me receive` (entries empty, any message) or `me receive: { K -> [:m | ...] }` with a literal
    table, optionally `after: ms do: [...]`. Entry keys are class names (str) or Const literals."""
    actor: "Expr"
    entries: tuple[tuple[object, Var | None, "Body"], ...]
    timeout: "Expr | None"
    on_timeout: "Body | None"
    type: Ty
    span: Span = NO_SPAN
    tail: bool = False


Expr = Union[Const, Ref, ClassRef, Send, Closure, If, AndOr, Loop, Seq, MakeArray, MakeRecord, Receive]


# ---- statements ------------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class Let:
    """`x := value`: binds a new Var (bindings are immutable; a later `x :=` is another Var)."""
    var: Var
    value: Expr
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class Return:
    """`^value`. In a method body it returns from the method; in a block (`nonlocal`) it
    returns from the method that created the block."""
    value: Expr
    nonlocal_: bool
    span: Span = NO_SPAN


Stmt = Union[Let, Return, Expr]


@dataclass(eq=False, slots=True)
class Body:
    """Statements run in order; the value is the last statement's (nil when empty).
    The last statement is in tail position when the body is."""
    stmts: tuple[Stmt, ...]
    type: Ty


# ---- declarations ----------------------------------------------------------------------

@dataclass(eq=False, slots=True)
class ClassDef:
    name: str
    superclass: str | None
    fields: tuple[str, ...]          # every field, the superclass's first
    builtin: bool
    span: Span = NO_SPAN


@dataclass(eq=False, slots=True)
class MethodDef:
    class_name: str
    class_side: bool
    selector: str
    self_var: Var
    params: tuple[Var, ...]
    body: Body
    type: Ty                         # the answer's type
    span: Span = NO_SPAN
    returns: bool = False            # some block inside holds a `^` to this method
    name: str = ""                   # `Point >> norm` / `Point class >> origin`

    @property
    def key(self) -> tuple[str, bool, str]:
        return (self.class_name, self.class_side, self.selector)


@dataclass(eq=False, slots=True)
class Program:
    file: str
    classes: dict[str, ClassDef]
    methods: dict[tuple[str, bool, str], MethodDef]
    main: Body
    main_self: Var
    spans: dict = field(default_factory=dict)   # unused by back ends; kept for tools

    def lookup(self, class_name: str, class_side: bool, selector: str) -> MethodDef | None:
        """The method a send finds: the class, then its superclasses (class side falls
        back to Object's instance methods, as classes are objects)."""
        c = self.classes.get(class_name)
        while c is not None:
            m = self.methods.get((c.name, class_side, selector))
            if m is not None:
                return m
            c = self.classes.get(c.superclass) if c.superclass else None
        if class_side:
            return self.lookup("Object", False, selector)
        return None

    def subclasses(self, name: str) -> list[str]:
        """Every class below `name` (not itself)."""
        out, todo = [], [name]
        while todo:
            n = todo.pop()
            for c in self.classes.values():
                if c.superclass == n:
                    out.append(c.name)
                    todo.append(c.name)
        return out
