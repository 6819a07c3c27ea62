"""What went wrong, as data: the named kinds of problem inference finds, with their data and spans.

Inference builds these and hands them to `Reporter.report`; lp/types/reports.py words each kind
(the Elm compiler's split between `Type/Error.hs` and `Reporting/Error/Type.hs`). Class
declaration problems are lp/classdecls.py's `Problem`, shared with the interpreter.
"""
from __future__ import annotations

from dataclasses import dataclass

from lp.syntax.ast import Span


@dataclass
class MethodOnUnknownClass:
    class_name: str
    span: Span
    near: str | None


@dataclass
class EqualityBuiltIn:
    """A class defining =, ~=, ==, ~~ or hash."""
    selector: str
    span: Span


@dataclass
class DuplicateMethod:
    class_name: str
    selector: str
    class_side: bool
    span: Span
    first: Span


@dataclass
class SpawnArity:
    given: int
    span: Span


@dataclass
class HandlerArity:
    given: int
    span: Span


@dataclass
class ReceiveNeedsTable:
    selector: str
    span: Span


@dataclass
class UnreceivableKey:
    """A receive key naming a class of the type system that no run-time value belongs to."""
    class_name: str
    span: Span


@dataclass
class UnknownKeyClass:
    class_name: str
    near: str | None
    span: Span


@dataclass
class BadReceiveKey:
    """A capitalised key that is a variable: the run time takes a capitalised key as a class name."""
    name: str
    span: Span


@dataclass
class AskWithoutReply:
    what: str              # the message's type as shown
    span: Span
    declared: Span | None  # where the message's class is declared, if the program declares it
    user_class: str | None  # the class's name if the program may add a reply field to it


@dataclass
class NilReply:
    class_name: str
    span: Span
    entry: Span
    entry_class: str       # the entry's key: the message's class or an ancestor


@dataclass
class SendToOpaqueActor:
    what: str
    span: Span
    origin: Span


@dataclass
class NotAccepted:
    what: str              # the message as shown (a literal's text or its type)
    span: Span
    accepted: list         # what the receiving actor accepts, as shown
    receive: Span | None   # its first receive entry
    suggestion: str | None  # a near literal or class, already shown
    key: str               # the entry key that would take it: the literal sent, or the message's class


@dataclass
class NeverReceives:
    what: str
    span: Span
    spawned: Span | None


@dataclass
class ReceiveOnAnotherActor:
    span: Span
    other: Span            # the other actor's spawn (line 0: the main program's), or the ask: of a reply address
    reply: bool = False    # the receiver is a reply address


# ---- declarations, statements and names (infer.py) ----------------------------------------------

@dataclass(frozen=True)
class MethodName:
    """A method a report names: `C >> sel`, `C class >> sel`, or (owner None) the library's `sel`."""
    owner: str | None
    selector: str
    class_side: bool = False


@dataclass
class NarrowerOverride:
    method: MethodName
    nth: int               # the argument the override demands more of
    only: str | None       # the one type it takes there, shown; or
    sends: list            # the selectors it sends that argument beyond the overridden method's
    whose: MethodName      # the overridden method
    span: Span
    overridden: Span | None


# ---- overrides and built-in selectors (overrides.py) -----------------------------------------------

@dataclass
class OverrideLessGeneral:
    method: MethodName
    whose: MethodName      # the overridden method
    theirs: str            # its type, shown
    mine: str              # the override's type, shown
    answers_anything: bool  # the overridden method answers a type found nowhere else (it only raises)
    span: Span
    overridden: Span | None


@dataclass
class FieldOverridesPrimitive:
    """A field named like a selector with arguments or typed by a rule (`yourself`) of an ancestor."""
    class_name: str
    field: str
    owner: str             # the builtin class that understands it
    span: Span


@dataclass
class FieldLessGeneral:
    class_name: str
    field: str
    whose: MethodName
    theirs: str            # the overridden method's type, shown
    span: Span
    overridden: Span | None


@dataclass
class FieldReaderLessGeneral:
    method: MethodName     # `Sub >> reply`
    field: str
    owner: str
    answer: str | None     # what the method answers, shown (None: a type the program fixes elsewhere)
    span: Span
    declared: Span | None


@dataclass
class FieldReaderWithArguments:
    method: MethodName     # `B >> v`
    field: str
    owner: str             # the ancestor declaring the field
    span: Span


@dataclass
class BuiltInSelector:
    """A method redefining a selector the checker types by a rule of its own."""
    kind: str              # class | with | primitive | reason
    class_name: str
    selector: str
    span: Span


@dataclass
class ObjectMethodOverPrimitive:
    """`Object >> sel` where a builtin class (or every class) has a primitive `sel`."""
    selector: str
    owner: str             # the builtin class, `Integer class`, or "" for every class
    span: Span


@dataclass
class ObjectMethodOverLibrary:
    selector: str
    mine: str              # the Object method's type, shown
    owner: str             # as in ObjectMethodOverPrimitive
    instances: bool        # the library method is an instance-side one (every `Maybe`)
    library: str           # the library method's type, shown
    span: Span


@dataclass
class RuntimeMessageToPlainReceive:
    message: str           # Down or Exit
    selector: str          # monitor: or trapExits:
    plain: str             # what the plain receive answers, shown
    span: Span
    receive: Span


@dataclass
class InheritedConstructor:
    """A constructor sent to a class that may be a subclass of the one it is typed as."""
    receiver: str | None   # `self` or `super` in a class-side method; None for another expression
    class_name: str        # the class the receiver is typed as
    selector: str
    sub: str               # a subclass the receiver may be
    sub_fields: list | None  # its own fields; None if it defines its own class-side constructor instead
    span: Span
    declared: Span | None  # where the subclass is declared


@dataclass
class Mismatch:
    """A unification clash found by infer.py: `about` names a kind of subject in reports.CLASH_SUBJECTS, `data`
    what its phrases name; `note` the span its note points at, if any."""
    about: str
    data: tuple
    clash: object          # unify.Clash
    span: Span
    expected: object
    actual: object
    note: Span | None = None
    title: str = "type mismatch"


@dataclass
class InternalError:
    what: str              # program | code (the checker failed on it) | nesting (too deep) | node (unknown kind)
    detail: str            # the exception, or the node's kind
    span: Span | None


@dataclass
class ReturnOutsideMethod:
    in_actor: bool
    span: Span


@dataclass
class MixedArray:
    kinds: list            # the element types, shown, first one first
    span: Span
    first_other: Span      # the first element not of the first kind


@dataclass
class RecordOutOfPlace:
    span: Span


@dataclass
class SelfOutsideMethod:
    name: str              # self or super
    span: Span


@dataclass
class NoSuperclass:
    class_name: str
    span: Span


@dataclass
class UnknownName:
    """A capitalised name that is neither a class nor a variable."""
    name: str
    near: str | None
    span: Span


@dataclass
class RemoteUnknownClass:
    """`Remote at:for:id:` with a literal class name that is no class of the program."""
    name: str
    near: str | None
    span: Span
    builtin: bool


@dataclass
class ReliableUnknownMethod:
    """A reliable call's op (or result handler) names no one-argument method of its class (reliable_ops.py)."""
    role: str
    selector: str
    class_name: str
    near: str | None
    span: Span


@dataclass
class ReliableKernelMethod:
    """A reliable call's op (or result handler) names a method of the kernel (ReliableHandler's)."""
    role: str
    selector: str
    span: Span


@dataclass
class ReliableBadAddress:
    """A reliable call's literal address with no `/` (an address is Class/id)."""
    span: Span


@dataclass
class ReliableUnknownClass:
    """A reliable call's literal address names no reliable grain class."""
    class_name: str
    near: str | None
    span: Span


@dataclass
class ReliableNotLiteral:
    """A reliable call's op or result handler that is not a literal Symbol."""
    role: str
    span: Span


@dataclass
class RemoteNeedsModule:
    span: Span


@dataclass
class ReceiveThroughProxy:
    """A method called through a grain reference or a Remote proxy receives: it runs in the library's
    actor (the grain's owner, the server's), whose mailbox holds the library's own messages."""
    side: str
    span: Span


@dataclass
class SendThroughProxy:
    """A method called through a grain reference or a Remote proxy sends to the actor running it (its
    `Actor self`): that is the library's actor, which never receives the program's messages."""
    side: str
    span: Span


@dataclass
class UnknownVariable:
    name: str
    near: str | None
    field_of: str | None   # the method's class, when it has a field of that name
    span: Span


@dataclass
class ReceiverClash:
    """A method on Object or a builtin class whose body only works on some receivers."""
    owner: str
    selector: str
    needs: str             # the receiver type the body needs, shown
    got: str               # this receiver's type, shown
    span: Span
    defined: Span


@dataclass
class NotUnderstood:
    receiver: str          # the receiver's type, shown; a class's name; a proxy's target's type
    selector: str
    span: Span
    because: tuple | None  # (type shown, span that made it that type)
    near: str | None
    instance_side: str | None  # the class whose instances understand the selector
    class_side: str | None     # the class that itself understands the selector
    side: str = "instance"     # instance | class (the class itself) | remote | grain (a proxy)
    proxy: str | None = None   # the proxy's own type, shown


@dataclass
class WithNeedsRecord:
    """`with:` sent to an instance with fields, with something else than a record literal."""
    class_name: str
    span: Span
    empty: bool            # the argument is `{}` (an empty Array)


@dataclass
class ValueNotUnderstood:
    selector: str
    span: Span


@dataclass
class NoClassUnderstands:
    selector: str
    near: str | None
    span: Span


# ---- sends typed by rule (special.py) ---------------------------------------------------------------

@dataclass
class NotANumber:
    op: str
    receiver: str          # Integer or Float
    arg: str               # the argument's type, shown
    span: Span
    because: Span | None
    string_plus: bool      # `+` with a String: hint at printString


@dataclass
class MixedNumbers:
    op: str
    receiver: str
    arg: str
    span: Span


@dataclass
class ElementNeed:
    selector: str
    allowed: tuple
    elements: str          # the element type, shown
    span: Span


@dataclass
class BlockArity:
    takes: int
    selector: str
    passed: int
    span: Span


@dataclass
class ServedAsAnotherClass:
    found: str             # the object's type, shown
    named: str             # the class the literal names
    grain: bool            # `Grain for:initial:` (else `register:for:id:`)
    span: Span
    because: Span | None


@dataclass
class InternalSelector:
    class_name: str
    selector: str
    module: str            # the one stdlib file that may send it
    instead: str           # what a program uses instead
    why: str               # why it is internal
    span: Span


@dataclass
class OnDoHandlerClass:
    caught: str            # the class on:do: catches
    takes: str             # the Error class the handler is typed for
    narrower: bool         # takes is a subclass of caught
    span: Span
    because: Span | None   # where the caught class came from, when it is a parameter's


@dataclass
class OnDoNeedsErrorClass:
    found: str
    span: Span
    because: Span | None


@dataclass
class NotMadeWithNew:
    class_name: str
    span: Span


@dataclass
class NewNeedsFields:
    class_name: str
    fields: list
    span: Span
    declared: Span | None


@dataclass
class ErrorFieldsByText:
    class_name: str
    own: list              # its fields besides message
    selector: str          # raise:, signal:, new:, new ...
    span: Span
    declared: Span | None


@dataclass
class FieldsNeedsRecord:
    class_name: str
    span: Span


@dataclass
class NoFieldsToBuild:
    class_name: str
    span: Span


@dataclass
class UnknownField:
    class_name: str
    name: str
    fields: list
    near: str | None
    span: Span
    declared: Span | None


@dataclass
class MissingFields:
    class_name: str
    missing: list
    has_reply: bool
    span: Span
    declared: Span | None


@dataclass
class WithWithoutFields:
    what: str              # the receiver's type, shown
    span: Span


@dataclass
class BadReasonSymbol:
    name: str
    span: Span


@dataclass
class BadReasonType:
    what: str
    span: Span


# ---- traps (traps.py) ------------------------------------------------------------------------------

@dataclass
class RebindingInBlock:
    name: str
    span: Span
    outer: Span | None


@dataclass
class NotATailCall:
    """A warning: a method's call of itself in a one-branch form (which answers nil) at its end."""
    method: str
    form: str
    span: Span


@dataclass
class UnusedResult:
    """A warning: a statement throws away the new value a send answers."""
    selector: str
    in_cascade: bool
    span: Span
