"""The built-in class hierarchy and the validation of class declarations, shared by the type checker
(lp/types/) and the interpreter (lp/interp/): one definition of both, problems answered as data.

`validate(decls, builtins)` answers the problems it finds (named kinds with the declaration they
are about) and, for each declaration kept, the superclass it gets after a problem (`Object`). The
checker reports every problem; the interpreter, run without the checker, stops at the first. The
wording of each kind is lp/types/reports.py's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# name, superclass, field names: the classes every program starts with
HIERARCHY = [
    ("Object", None, ()),
    ("Boolean", "Object", ()), ("UndefinedObject", "Object", ()),
    ("Number", "Object", ()), ("Integer", "Number", ()), ("Float", "Number", ()),
    ("Character", "Object", ()), ("String", "Object", ()), ("Symbol", "Object", ()),
    ("Array", "Object", ()), ("Interval", "Object", ()), ("Dictionary", "Object", ()), ("Maybe", "Object", ()),
    ("Association", "Object", ()), ("Record", "Object", ()), ("Block", "Object", ()),
    ("Actor", "Object", ()), ("Future", "Object", ()), ("Promise", "Object", ()),
    ("Error", "Object", ("message",)),
    ("Down", "Object", ("actor", "reason")), ("Exit", "Object", ("actor", "reason")),
    ("Log", "Object", ()), ("JSON", "Object", ()), ("Transcript", "Object", ()),
    # the network library (docs/network.md)
    ("ByteArray", "Object", ()), ("TCP", "Object", ()), ("TCPSocket", "Object", ()), ("TCPListener", "Object", ()),
    ("Timeout", "Error", ()), ("NetworkError", "Error", ()), ("ConnectionRefused", "NetworkError", ()),
    ("ConnectionReset", "NetworkError", ()), ("ConnectionClosed", "NetworkError", ()),
    ("DNSError", "NetworkError", ()), ("LimitExceeded", "NetworkError", ()),
    ("HttpRequest", "Object", ("method", "target", "version", "headers", "path", "query", "body", "keepAlive")),
    ("HttpWireError", "NetworkError", ("status",)),
    ("UDPSocket", "Object", ()), ("Datagram", "Object", ("data", "host", "port")),
    ("HttpStatusHead", "Object", ("version", "status", "reason", "headers")),
    ("TLS", "Object", ()), ("TLSError", "NetworkError", ()),
    ("WebSocket", "Object", ()), ("WebSocketMessage", "Object", ("data", "isText")),
    ("Remote", "Object", ()), ("RemoteRequest", "Object", ("callId", "selector", "className", "id", "arguments", "takeover")),
    # grains (docs/grains.md): a reference to one grain, whose sends go to its class's methods
    ("GrainRef", "Object", ()),
    # durable grains (docs/durable.md): private SQLite stores and their errors
    ("Storage", "Object", ()), ("SqlResult", "Object", ("columns", "rows", "rowsWritten")),
    ("StorageError", "Error", ()), ("InvalidSql", "StorageError", ()), ("ConstraintViolation", "StorageError", ()),
    ("NumericOutOfRange", "StorageError", ()), ("ResultTooLarge", "StorageError", ()),
    ("StorageFull", "StorageError", ()), ("StorageBusy", "StorageError", ()),
    ("BackendUnavailable", "StorageError", ()),
    # what `lp run --observe` shows (docs/observer.md)
    ("RuntimeView", "Object", ()),
]
# only at run time: record literals, which the checker types as the arguments of fields: and with:
RUNTIME_ONLY = {"Record"}
# only in the checker: the static type of exit reasons (Symbols or Errors at run time), and of what
# `x class` answers (a class, known only as one: a subclass instance answers its own class)
CHECKER_ONLY = {"Reason": "Object", "Class": "Object"}
# the builtin classes a program may subclass, in the order messages name them (and every builtin
# subclass of Error: the network library's errors)
SUBCLASSABLE = ("Object", "Error")


def _error_classes() -> dict:
    """The builtin subclasses of Error (name -> (superclass, own fields))."""
    sup = {n: (s, f) for n, s, f in HIERARCHY}
    out = {}
    for n, (s, f) in sup.items():
        c = s
        while c is not None and c != "Error":
            c = sup[c][0]
        if c == "Error":
            out[n] = (s, f)
    return out


ERROR_CLASSES = _error_classes()
# Library error classes a program may declare itself in the library's shape (same superclass, no
# fields of its own), as LANGUAGE.md's `Error subclass: #Timeout`: the declaration then names the
# library's class, so the program's raise and try: and the library's are one class
# (docs/language.md, "Error classes").
REDECLARABLE = {n: s for n, (s, f) in ERROR_CLASSES.items() if not f}


@dataclass
class Problem:
    kind: str            # duplicate builtin | duplicate class | unknown superclass | cannot subclass |
    decl: object         # inheritance cycle | duplicate field | library class shape
    other: object = None  # the first declaration (duplicate class), the class gone through (cycle),
    #                       the inherited field's owner (duplicate field), the library's superclass (shape)
    name: str = ""       # the field (duplicate field)


@dataclass
class Validated:
    problems: list[Problem] = field(default_factory=list)
    kept: list = field(default_factory=list)          # declarations that define a class, in order
    superclass: dict = field(default_factory=dict)    # class name -> superclass it gets
    fields: dict = field(default_factory=dict)        # class name -> its own fields, duplicates dropped
    same: list = field(default_factory=list)          # declarations that name a library class (REDECLARABLE)


def validate(decls, builtins: dict) -> Validated:
    """builtins: name -> (superclass, fields) of the classes that exist before the program. The names
    only the checker or only the interpreter has are builtin for both, so both judge alike."""
    v = Validated()
    first = {}
    reserved = set(builtins) | RUNTIME_ONLY | set(CHECKER_ONLY)
    same = {}
    for d in decls:
        if d.name in first or d.name in same:
            v.problems.append(Problem("duplicate class", d, first.get(d.name) or same[d.name]))
        elif d.name in REDECLARABLE and d.name in builtins:
            if d.superclass == REDECLARABLE[d.name] and not d.fields:
                same[d.name] = d
                v.same.append(d)
            else:
                v.problems.append(Problem("library class shape", d, REDECLARABLE[d.name]))
        elif d.name in reserved:
            v.problems.append(Problem("duplicate builtin", d))
        else:
            first[d.name] = d
            v.kept.append(d)
    known = reserved | set(first)
    for d in v.kept:
        sup = d.superclass
        if sup not in known:
            v.problems.append(Problem("unknown superclass", d))
            sup = "Object"
        elif sup in reserved and sup not in SUBCLASSABLE and sup not in ERROR_CLASSES:
            v.problems.append(Problem("cannot subclass", d))
            sup = "Object"
        v.superclass[d.name] = sup
    for d in v.kept:
        seen = {d.name}
        c = v.superclass[d.name]
        while c in first:
            if c in seen:
                v.problems.append(Problem("inheritance cycle", d, c))
                v.superclass[d.name] = "Object"
                break
            seen.add(c)
            c = v.superclass[c]

    def inherited(name):
        out = {}
        while name is not None:
            own = builtins[name][1] if name in builtins else v.fields.get(name, first[name].fields)
            for f in own:
                out.setdefault(f, name)
            name = builtins[name][0] if name in builtins else v.superclass[name]
        return out

    for d in v.kept:
        have = inherited(v.superclass[d.name])
        own = []
        for f in d.fields:
            if f in have:
                v.problems.append(Problem("duplicate field", d, have[f], f))
            else:
                own.append(f)
        v.fields[d.name] = own
    return v
