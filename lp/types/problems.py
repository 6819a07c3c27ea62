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
    class_name: str
    reason: str
    span: Span


@dataclass
class UnknownKeyClass:
    class_name: str
    near: str | None
    span: Span


@dataclass
class BadReceiveKey:
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
    class_name: str        # the message's class


@dataclass
class NeverReceives:
    what: str
    span: Span
    spawned: Span | None


@dataclass
class ReceiveOnAnotherActor:
    span: Span
    other: Span            # the other actor's spawn (line 0: the main program's)
