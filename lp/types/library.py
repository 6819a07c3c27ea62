"""Signatures of the core library (LANGUAGE.md §2 and §3) and of the network library (§5, docs/network.md).

Each line is `selector-with-argument-types -> result`. In a signature,
`Self` is the receiver's type (on the class side: an instance of the receiving
class), lowercase names are the receiver's type parameters or fresh variables,
`Block[a, b, r]` is a block taking a and b and answering r, and `Actor[?]` is an
actor whose protocol is not constrained here.

Selectors whose typing needs more than a signature (numeric operators, sends
and receives, `fields:`, `ask:`, ...) are marked `special` and typed in
`lp/types/special.py`.
"""
from __future__ import annotations

from lp.classdecls import CHECKER_ONLY, HIERARCHY, RUNTIME_ONLY

# type name -> its type parameters
PARAMS = {
    "Array": ("t",), "Dictionary": ("k", "v"), "Maybe": ("t",), "Association": ("k", "v"),
    "Future": ("t",), "Promise": ("t",), "Actor": ("p",), "Remote": ("t",), "GrainRef": ("c",),
}

# The builtin class tree: name -> superclass, lp/classdecls.py's (the interpreter's too).
# Every builtin can be a receive key.
BUILTIN_CLASSES = {name: sup for name, sup, _ in HIERARCHY if name not in RUNTIME_ONLY} | CHECKER_ONLY
# Fields of builtin classes that have them (types in signature notation).
BUILTIN_FIELDS = {
    "Error": {"message": "String"},
    "Down": {"actor": "Actor[!]", "reason": "Reason"},
    "Exit": {"actor": "Actor[!]", "reason": "Reason"},
    "HttpRequest": {"method": "String", "target": "String", "version": "String", "headers": "Dictionary[String,String]",
                 "path": "String", "query": "String", "body": "ByteArray", "keepAlive": "Boolean"},
    "HttpWireError": {"status": "Integer"},
    "Datagram": {"data": "ByteArray", "host": "String", "port": "Integer"},
    "HttpStatusHead": {"version": "String", "status": "Integer", "reason": "String",
                       "headers": "Dictionary[String,String]"},
    "WebSocketMessage": {"data": "ByteArray", "isText": "Boolean"},
    "SqlResult": {"columns": "Array[String]", "rows": "Array[Dictionary[String,Dynamic]]", "rowsWritten": "Integer"},
    "RemoteRequest": {"callId": "Dynamic", "selector": "Symbol", "className": "String", "id": "Dynamic",
                      "arguments": "Dynamic", "takeover": "String"},
}

NUMERIC_OPS = ("+", "-", "*", "/", "//", "\\\\", "<", ">", "<=", ">=", "max:", "min:", "rem:", "raisedTo:")
# Integer, Float and Number type their arithmetic and comparisons in lp/types/special.py.
NUMERIC_SPECIAL = "".join(f"{op} special\n" for op in NUMERIC_OPS)

UNIVERSAL = """
printNl -> Self
displayNl -> Self
printString -> String
displayString -> String
= a -> Boolean
== a -> Boolean
~= a -> Boolean
~~ a -> Boolean
isNil -> Boolean
notNil -> Boolean
ifNil: Block[Self] -> Self
ifNotNil: Block[Self,a] -> UndefinedObject
ifNil: Block[a] ifNotNil: Block[Self,a] -> a
ifNotNil: Block[Self,a] ifNil: Block[a] -> a
-> a -> Association[Self,a]
yourself -> Self
copy -> Self
hash -> Integer
isKindOf: a -> Boolean
respondsTo: Symbol -> Boolean
isString -> Boolean
isNumber -> Boolean
isSymbol -> Boolean
class -> Class
"""

INSTANCE = {
    "Integer": NUMERIC_SPECIAL + """
abs -> Integer
negated -> Integer
squared -> Integer
sqrt -> Float
isZero -> Boolean
even -> Boolean
odd -> Boolean
sign -> Integer
factorial -> Integer
gcd: Integer -> Integer
between:and: special
to: Integer do: Block[Integer,a] -> Integer
to: Integer collect: Block[Integer,a] -> Array[a]
timesRepeat: Block[a] -> Integer
asFloat -> Float
asNumber -> Number
asInteger -> Integer
truncated -> Integer
rounded -> Integer
floor -> Integer
ceiling -> Integer
asString -> String
asCharacter -> Character
printString: Integer -> String
bitAnd: Integer -> Integer
bitOr: Integer -> Integer
bitXor: Integer -> Integer
bitShift: Integer -> Integer
to: Integer -> Interval
to: Integer by: Integer -> Interval
to: Integer by: Integer do: Block[Integer,a] -> Integer
lcm: Integer -> Integer
""",
    "Float": NUMERIC_SPECIAL + """
abs -> Float
isNaN -> Boolean
negated -> Float
squared -> Float
sqrt -> Float
isZero -> Boolean
sign -> Integer
rounded -> Integer
truncated -> Integer
floor -> Integer
ceiling -> Integer
asFloat -> Float
asNumber -> Number
asInteger -> Integer
asString -> String
roundTo: Float -> Float
between:and: special
""",
    "Number": NUMERIC_SPECIAL + """
between:and: special
abs -> Number
negated -> Number
squared -> Number
sqrt -> Float
isZero -> Boolean
sign -> Integer
asFloat -> Float
asNumber -> Number
asInteger -> Integer
asString -> String
""",
    "Boolean": """
ifTrue: Block[a] ifFalse: Block[a] -> a
ifFalse: Block[a] ifTrue: Block[a] -> a
ifTrue: Block[a] -> UndefinedObject
ifFalse: Block[a] -> UndefinedObject
and: Block[Boolean] -> Boolean
or: Block[Boolean] -> Boolean
& Boolean -> Boolean
| Boolean -> Boolean
not -> Boolean
xor: Boolean -> Boolean
asString -> String
""",
    "UndefinedObject": """
asString -> String
""",
    "Character": """
asInteger -> Integer
value -> Integer
asString -> String
asSymbol -> Symbol
asUppercase -> Character
asLowercase -> Character
isVowel -> Boolean
isLetter -> Boolean
isDigit -> Boolean
isUppercase -> Boolean
isLowercase -> Boolean
isSeparator -> Boolean
digitValue -> Integer
< Character -> Boolean
> Character -> Boolean
<= Character -> Boolean
>= Character -> Boolean
""",
    "String": """
, String -> String
size -> Integer
at: Integer -> Character
includesSubstring: String -> Boolean
startsWith: String -> Boolean
endsWith: String -> Boolean
asSymbol -> Symbol
asString -> String
asInteger -> Integer
asNumber -> Float
asUppercase -> String
asLowercase -> String
lines -> Array[String]
splitOn: String -> Array[String]
substrings -> Array[String]
trim -> String
reversed -> String
reverse -> String
isEmpty -> Boolean
notEmpty -> Boolean
indexOf: Character -> Integer
copyFrom: Integer to: Integer -> String
asByteArray -> ByteArray
sha256Hex -> String
copyReplaceAll: String with: String -> String
join: Array[String] -> String
substrings: String -> Array[String]
occurrencesOf: Character -> Integer
first: Integer -> String
last: Integer -> String
allButFirst -> String
allButLast -> String
inject: a into: Block[a,Character,a] -> a
anySatisfy: Block[Character,Boolean] -> Boolean
allSatisfy: Block[Character,Boolean] -> Boolean
count: Block[Character,Boolean] -> Integer
detect: Block[Character,Boolean] ifNone: Block[Character] -> Character
do: Block[Character,a] -> String
collect: Block[Character,Character] -> String
select: Block[Character,Boolean] -> String
includes: Character -> Boolean
first -> Character
last -> Character
asArray -> Array[Character]
< String -> Boolean
> String -> Boolean
<= String -> Boolean
>= String -> Boolean
""",
    "Symbol": """
asString -> String
asSymbol -> Symbol
size -> Integer
numArgs -> Integer
, String -> String
< Symbol -> Boolean
> Symbol -> Boolean
""",
    "Array": """
at: Integer -> t
size -> Integer
do: Block[t,a] -> Array[t]
doWithIndex: Block[t,Integer,a] -> Array[t]
keysAndValuesDo: Block[Integer,t,a] -> Array[t]
reverseDo: Block[t,a] -> Array[t]
do: Block[t,a] separatedBy: Block[b] -> Array[t]
collect: Block[t,a] -> Array[a]
select: Block[t,Boolean] -> Array[t]
reject: Block[t,Boolean] -> Array[t]
inject: a into: Block[a,t,a] -> a
detect: Block[t,Boolean] ifNone: Block[t] -> t
detect: Block[t,Boolean] -> t
anySatisfy: Block[t,Boolean] -> Boolean
allSatisfy: Block[t,Boolean] -> Boolean
count: Block[t,Boolean] -> Integer
with: t -> Array[t]
copyWith: t -> Array[t]
, Array[t] -> Array[t]
includes: t -> Boolean
indexOf: t -> Integer
isEmpty -> Boolean
notEmpty -> Boolean
first -> t
last -> t
allButFirst -> Array[t]
allButLast -> Array[t]
reversed -> Array[t]
reverse -> Array[t]
copyFrom: Integer to: Integer -> Array[t]
at: Integer put: t -> Array[t]
asSortedCollection: Block[t,t,Boolean] -> Array[t]
sort: Block[t,t,Boolean] -> Array[t]
with: Array[a] collect: Block[t,a,b] -> Array[b]
max special
min special
sum special
asSortedArray special
asArray -> Array[t]
occurrencesOf: t -> Integer
first: Integer -> Array[t]
last: Integer -> Array[t]
copyWithout: t -> Array[t]
detectMax: Block[t,Integer] -> t
detectMin: Block[t,Integer] -> t
collectWithIndex: Block[t,Integer,a] -> Array[a]
flatCollect: Block[t,Array[a]] -> Array[a]
""",
    "Dictionary": """
at: k -> v
at: k ifAbsent: Block[v] -> v
at: k put: v -> Dictionary[k,v]
removeKey: k -> Dictionary[k,v]
includesKey: k -> Boolean
keysDo: Block[k,a] -> Dictionary[k,v]
valuesDo: Block[v,a] -> Dictionary[k,v]
do: Block[v,a] -> Dictionary[k,v]
keysAndValuesDo: Block[k,v,a] -> Dictionary[k,v]
associationsDo: Block[Association[k,v],a] -> Dictionary[k,v]
associations -> Array[Association[k,v]]
keys -> Array[k]
values -> Array[v]
size -> Integer
isEmpty -> Boolean
notEmpty -> Boolean
collect: Block[v,a] -> Dictionary[k,a]
select: Block[v,Boolean] -> Dictionary[k,v]
reject: Block[v,Boolean] -> Dictionary[k,v]
inject: a into: Block[a,v,a] -> a
anySatisfy: Block[v,Boolean] -> Boolean
allSatisfy: Block[v,Boolean] -> Boolean
count: Block[v,Boolean] -> Integer
includes: v -> Boolean
keyAtValue: v -> Maybe[k]
keysSortedBy: Block[k,k,Boolean] -> Array[k]
""",
    "Interval": """
at: Integer -> Integer
size -> Integer
first -> Integer
last -> Integer
isEmpty -> Boolean
notEmpty -> Boolean
includes: Integer -> Boolean
asArray -> Array[Integer]
reversed -> Interval
reverse -> Interval
sum -> Integer
do: Block[Integer,a] -> Interval
reverseDo: Block[Integer,a] -> Interval
collect: Block[Integer,a] -> Array[a]
select: Block[Integer,Boolean] -> Array[Integer]
reject: Block[Integer,Boolean] -> Array[Integer]
inject: a into: Block[a,Integer,a] -> a
detect: Block[Integer,Boolean] ifNone: Block[Integer] -> Integer
anySatisfy: Block[Integer,Boolean] -> Boolean
allSatisfy: Block[Integer,Boolean] -> Boolean
count: Block[Integer,Boolean] -> Integer
""",
    "Maybe": """
ifPresent: Block[t,a] -> UndefinedObject
ifPresent: Block[t,a] ifAbsent: Block[a] -> a
ifAbsent: Block[a] ifPresent: Block[t,a] -> a
ifAbsent: Block[t] -> t
valueOr: t -> t
value -> t
isSome -> Boolean
isNone -> Boolean
isPresent -> Boolean
collect: Block[t,a] -> Maybe[a]
""",
    "Block": """
value special
value: special
value:value: special
value:value:value: special
value:value:value:value: special
numArgs special
ensure: special
ifCurtailed: special
whileTrue: special
whileFalse: special
whileTrue special
whileFalse special
on:do: special
""",
    "Association": """
key -> k
value -> v
""",
    "Actor": """
! special
receive special
receive: special
receive:after:do: special
ask: special
linkTo: Actor[?] -> UndefinedObject
unlinkFrom: Actor[?] -> UndefinedObject
monitor: Actor[?] -> UndefinedObject
demonitor: Actor[?] -> UndefinedObject
exit: special
isAlive -> Boolean
id -> Integer
""",
    "Future": """
await -> t
await: Integer -> t
isResolved -> Boolean
""",
    "Promise": """
resolve: t -> t
future -> Future[t]
""",
    "Error": """
signal -> a
raise -> a
messageText -> String
description -> String
signal: String -> a
""",
    "ByteArray": """
size -> Integer
at: Integer -> Integer
, ByteArray -> ByteArray
copyFrom: Integer to: Integer -> ByteArray
isEmpty -> Boolean
notEmpty -> Boolean
asArray -> Array[Integer]
asString -> String
indexOf: Integer -> Integer
""",
    "TCPSocket": """
readLine: Integer -> Maybe[String]
readLine: Integer limit: Integer -> Maybe[String]
readBytes: Integer timeout: Integer -> Maybe[ByteArray]
write: String -> Integer
write: String timeout: Integer -> Integer
writeBytes: ByteArray -> Integer
writeBytes: ByteArray timeout: Integer -> Integer
close -> UndefinedObject
isClosed -> Boolean
readHttpRequest: Integer timeout: Integer bodyTimeout: Integer maxLine: Integer maxHeaders: Integer maxHead: Integer maxBody: Integer -> Maybe[HttpRequest]
writeHttpResponse: Integer headers: Dictionary[String,String] body: String keepAlive: Boolean head: Boolean -> Integer
writeHttpResponse: Integer headers: Dictionary[String,String] body: String keepAlive: Boolean head: Boolean timeout: Integer -> Integer
readHttpChunked: Integer timeout: Integer -> ByteArray
readHttpStatus: Integer maxHead: Integer -> Maybe[HttpStatusHead]
readToEnd: Integer timeout: Integer -> ByteArray
release -> UndefinedObject
isReused -> Boolean
""",
    "UDPSocket": """
port -> Integer
sendTo: String port: Integer data: ByteArray -> Integer
receiveFrom: Integer -> Maybe[Datagram]
close -> UndefinedObject
""",
    "WebSocket": """
receive: Integer -> Maybe[WebSocketMessage]
receive: Integer limit: Integer -> Maybe[WebSocketMessage]
receiveOrMail: Integer -> Maybe[Maybe[WebSocketMessage]]
receiveOrMail: Integer limit: Integer -> Maybe[Maybe[WebSocketMessage]]
sendText: String -> Integer
sendBytes: ByteArray -> Integer
close -> UndefinedObject
close: Integer -> UndefinedObject
close: Integer reason: String -> UndefinedObject
closeCode -> Integer
closeReason -> String
protocol -> Maybe[String]
""",
    "GrainRef": """
label -> String
""",
    "Storage": """
execute: String -> SqlResult
execute: String with: Array[Dynamic] -> SqlResult
query: String -> SqlResult
query: String with: Array[Dynamic] -> SqlResult
transaction: Array[Association[String,Array[Dynamic]]] -> Array[SqlResult]
path -> String
limit: Integer -> Storage
resultLimit: Integer -> Storage
busyTimeout: Integer -> Storage
""",
    "WebSocketMessage": """
text -> String
""",
    "TCPListener": """
port -> Integer
accept: Integer -> TCPSocket
close -> UndefinedObject
""",
    "Reason": """
isNormal -> Boolean
isKilled -> Boolean
isError -> Boolean
error -> Maybe[Error]
""",
    "Class": """
name -> String
""",
}

CLASS_SIDE = {
    "Object": """
name -> String
printString -> String
printNl special
displayNl special
yourself special
displayString -> String
= a -> Boolean
== a -> Boolean
~= a -> Boolean
~~ a -> Boolean
class -> Class
new special
fields: special
""",
    "Maybe": """
none -> Maybe[a]
some: a -> Maybe[a]
""",
    "Array": """
new -> Array[a]
with: a -> Array[a]
with: a with: a -> Array[a]
with: a with: a with: a -> Array[a]
new: Integer withAll: a -> Array[a]
""",
    "Dictionary": """
new -> Dictionary[a,b]
""",
    "Association": """
key: a value: b -> Association[a,b]
""",
    "Promise": """
new -> Promise[a]
""",
    "Error": """
raise: special
signal: special
new: special
new special
try: Block[a] onError: Block[Self,a] -> a
raiseSiteOf: Error -> String
""",
    "Actor": """
self special
spawn: special
spawnLink: special
trapExits: Boolean -> UndefinedObject
exit: special
sleep: Integer -> UndefinedObject
millisecondClock -> Integer
unixMillis -> Integer
microsecondClock -> Integer
""",
    "Log": """
info: String -> UndefinedObject
warn: String -> UndefinedObject
error: String -> UndefinedObject
debug: String -> UndefinedObject
""",
    "JSON": """
encode: a -> String
decode: String -> Dynamic
""",
    "ByteArray": """
new: Integer -> ByteArray
withAll: Array[Integer] -> ByteArray
""",
    "String": """
new -> String
lf -> String
crlf -> String
""",
    "UDPSocket": """
bind: Integer -> UDPSocket
bindHost: String port: Integer -> UDPSocket
""",
    "WebSocket": """
over: TCPSocket client: Boolean -> WebSocket
over: TCPSocket client: Boolean protocol: String -> WebSocket
acceptKeyFor: String -> String
newKey -> String
""",
    "TLS": """
wrapClient: TCPSocket host: String timeout: Integer -> TCPSocket
wrapClient: TCPSocket host: String caFile: String timeout: Integer -> TCPSocket
wrapServer: TCPSocket certFile: String keyFile: String timeout: Integer -> TCPSocket
""",
    "Remote": """
at:for:id: special
at:for:id:timeout: special
encode: a -> String
decode: String -> Dynamic
request: String -> RemoteRequest
result: String -> Dynamic
perform: Symbol on: a withArguments: Array[b] -> Dynamic
isInstance: a named: Symbol -> Boolean
ownerFor: String class: String id: a -> Maybe[String]
remember: String for: String class: String id: a -> UndefinedObject
""",
    "Storage": """
at: String -> Storage
bindGrain: String dir: String -> String
register: a as: String -> a
registered: String like: a -> a
asDynamic: a -> Dynamic
current -> Storage
currentGrain -> String
currentDir -> String
""",
    "RuntimeView": """
observing -> Boolean
host -> String
port -> Integer
hide -> UndefinedObject
announce: Integer -> UndefinedObject
asset: String -> Maybe[String]
contentTypeOf: String -> String
snapshot: String -> String
pause -> Integer
supervisor: Symbol event: Symbol child: Symbol detail: String children: Array[Symbol] actors: Array[Integer] restarts: Array[Integer] -> UndefinedObject
""",
    "GrainRef": """
label: String like: c on: Block[Symbol,Array[Dynamic],Dynamic] -> GrainRef[c]
nodeId -> String
hashOf: String -> Integer
encodeState: a -> String
decodeState: String like: a shape: String -> a
shape: String of: a -> a
shapeOf: a -> String
isState: a like: b -> Boolean
asState: b like: a -> a
""",
    "TCP": """
connect: String port: Integer timeout: Integer -> TCPSocket
listen: Integer -> TCPListener
listenHost: String port: Integer -> TCPListener
pooledConnect: String port: Integer timeout: Integer -> TCPSocket
""",
    "Transcript": """
show: String -> UndefinedObject
showCr: String -> UndefinedObject
showLine: String -> UndefinedObject
display: a -> UndefinedObject
print: a -> UndefinedObject
cr -> UndefinedObject
tab -> UndefinedObject
space -> UndefinedObject
""",
}

# Class-side selectors only one stdlib module (or a few) may send: (class, selector) -> (that module's file,
# or a tuple of them, what a program uses instead, why it is internal).
_SAMPLE = "its answer takes its type from a sample value, which only that module's own use keeps true"
_GRAINS = ("stdlib/grain.lp", "grains are made with `Grain for: C initial: state` and referred to with its `id:` "
           "(docs/grains.md)", _SAMPLE)
_SOCKETS = ("stdlib/grain_sockets.lp", "a durable grain reaches its sockets with `Grain sockets` (docs/durable.md)",
            _SAMPLE)
_REGISTRY = (("stdlib/grain_sockets.lp", "stdlib/reliable.lp"),
             "the process registry keeps each durable server's socket hub (`Grain sockets`, docs/durable.md) and "
             "each reliable node's directory (docs/reliable.md)", _SAMPLE)
INTERNAL = {("GrainRef", "label:like:on:"): _GRAINS, ("GrainRef", "decodeState:like:shape:"): _GRAINS,
            ("GrainRef", "shape:of:"): _GRAINS, ("GrainRef", "shapeOf:"): _GRAINS,
            ("GrainRef", "asState:like:"): _GRAINS, ("Storage", "register:as:"): _REGISTRY,
            ("Storage", "registered:like:"): _REGISTRY, ("Storage", "asDynamic:"): _SOCKETS,
            ("Error", "raiseSiteOf:"): ("stdlib/http_server.lp", "an error that escapes is reported with where it "
                                        "was raised (docs/language.md)",
                                        "a binary knows where an error was raised only until its actor catches "
                                        "another one")}

# Selectors whose result does not matter when the send is a discarded statement:
# their branches need not agree there.
BRANCHING = {
    "ifTrue:ifFalse:": "ifTrue: Block[a] ifFalse: Block[b] -> UndefinedObject",
    "ifFalse:ifTrue:": "ifFalse: Block[a] ifTrue: Block[b] -> UndefinedObject",
    "ifPresent:ifAbsent:": "ifPresent: Block[t,a] ifAbsent: Block[b] -> UndefinedObject",
    "ifAbsent:ifPresent:": "ifAbsent: Block[a] ifPresent: Block[t,b] -> UndefinedObject",
    "ifNil:ifNotNil:": "ifNil: Block[a] ifNotNil: Block[Self,b] -> UndefinedObject",
    "ifNotNil:ifNil:": "ifNotNil: Block[Self,a] ifNil: Block[b] -> UndefinedObject",
    "try:onError:": "try: Block[a] onError: Block[Self,b] -> UndefinedObject",
    "ifNil:": "ifNil: Block[a] -> UndefinedObject",
    "ifAbsent:": "ifAbsent: Block[a] -> UndefinedObject",
}


# ---- the signature notation ---------------------------------------------------------

class Sig:
    __slots__ = ("selector", "args", "result", "special")

    def __init__(self, selector, args, result, special=False):
        self.selector = selector
        self.args = args
        self.result = result
        self.special = special


def parse_type(text: str):
    """`Array[Association[k,v]]` -> ('con', 'Array', [('con', 'Association', [...])])."""
    pos = 0

    def item():
        nonlocal pos
        start = pos
        while pos < len(text) and (text[pos].isalnum() or text[pos] in "?!_"):
            pos += 1
        name = text[start:pos]
        args = []
        if pos < len(text) and text[pos] == "[":
            pos += 1
            while True:
                args.append(item())
                if text[pos] == ",":
                    pos += 1
                    continue
                assert text[pos] == "]", text
                pos += 1
                break
        if name == "Self":
            return ("self",)
        if name in ("?", "!"):
            return ("proto", name)
        if name[0].islower():
            return ("var", name)
        return ("con", name, args)

    out = item()
    assert pos == len(text), text
    return out


def parse_sig(line: str) -> Sig:
    line = line.strip()
    if line.endswith(" special"):
        sel = line[:-len(" special")]
        return Sig(sel, None, None, True)
    lhs, res = line.rsplit(" -> ", 1)
    toks = lhs.split()
    if len(toks) == 1:
        return Sig(toks[0], [], parse_type(res))
    sel = "".join(toks[0::2])
    return Sig(sel, [parse_type(t) for t in toks[1::2]], parse_type(res))


def _table(text: str) -> dict[str, Sig]:
    out = {}
    for line in text.strip().split("\n"):
        if line.strip():
            s = parse_sig(line)
            out[s.selector] = s
    return out


UNIVERSAL_SIGS = _table(UNIVERSAL)
INSTANCE_SIGS = {k: _table(v) for k, v in INSTANCE.items()}
CLASS_SIGS = {k: _table(v) for k, v in CLASS_SIDE.items()}
BRANCHING_SIGS = {k: parse_sig(v) for k, v in BRANCHING.items()}
FIELD_SIGS = {c: {f: parse_type(t) for f, t in fs.items()} for c, fs in BUILTIN_FIELDS.items()}


def builtin_owners() -> dict[str, set[str]]:
    """selector -> the builtin types whose instances understand it (universal selectors excluded)."""
    owners: dict[str, set[str]] = {}
    for cls, table in INSTANCE_SIGS.items():
        for sel in table:
            owners.setdefault(sel, set()).add(cls)
    for cls, fs in BUILTIN_FIELDS.items():
        for f in fs:
            owners.setdefault(f, set()).add(cls)
    return owners
