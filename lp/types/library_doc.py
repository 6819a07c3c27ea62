"""Generates docs/library.md from the checker's signatures (lp/types/library.py), so the
reference cannot drift from what the checker accepts: `python -m lp.types.library_doc > docs/library.md`.
The one-line descriptions are kept here, by selector, with class-specific ones where the meaning differs.
"""
from __future__ import annotations

import sys

from lp.types import library as L

HEADER = """# LP library reference

Generated from the type checker's signatures by `python -m lp.types.library_doc > docs/library.md`;
do not edit by hand (a test regenerates it and compares). Notation: `Self` is the receiver's type,
lowercase names are type variables (`t` is an Array's element type, `k`/`v` a Dictionary's key and
value types), `Block[a, b, r]` takes `a` and `b` and answers `r`, `Dynamic` is an unchecked value
(see docs/types.md). *special* means the checker types the send by a rule of its own (numbers mix
Integer and Float; actor sends follow protocols), described in docs/types.md.

Collections are immutable: every selector that "adds", "removes" or "replaces" answers a new
collection. Indices start at 1. Dictionaries keep their keys in insertion order.
"""

DESCRIPTIONS = {
    # every value
    "printNl": "writes printString and a newline to standard output; answers the receiver",
    "displayNl": "writes displayString and a newline to standard output; answers the receiver",
    "printString": "the text that shows the value as LP source would write it ('it''s', #sym, $c; the NUL Character as `(0 asCharacter)`)",
    "displayString": "the text for people: Strings, Symbols and Characters without quotes",
    "=": "structural equality (1 = 1.0; a Boolean never equals a number)",
    "==": "identity (numbers of one class, characters, symbols, booleans and nil are identical when equal; `1 == 1.0` is false)",
    "~=": "not =", "~~": "not ==",
    "isNil": "whether the receiver is nil", "notNil": "whether the receiver is not nil",
    "ifNil:": "the block's value when nil, else the receiver",
    "ifNotNil:": "runs the block with the receiver unless it is nil; answers nil",
    "ifNil:ifNotNil:": "the first block's value when nil, else the second's with the receiver",
    "ifNotNil:ifNil:": "the first block's value with the receiver, or the second's when nil",
    "->": "an Association of the receiver and the argument",
    "yourself": "the receiver", "copy": "the receiver (values are immutable)",
    "hash": "an Integer equal for equal values", "isKindOf:": "whether the receiver's class is the argument or inherits from it",
    "respondsTo:": "whether the receiver understands the selector", "isString": "whether the receiver is a String",
    "isNumber": "whether the receiver is an Integer or a Float", "isSymbol": "whether the receiver is a Symbol",
    "class": "the receiver's class (typed `Class`: what every class understands)",
    # numbers
    "+": "sum; Integer overflow past 64 bits raises", "-": "difference; Integer overflow raises",
    "*": "product; Integer overflow raises", "/": "quotient as a Float; division by zero raises",
    "//": "quotient rounded towards negative infinity", "\\\\": "modulo with the sign of the divisor (floored)",
    "<": "less than", ">": "greater than", "<=": "less than or equal", ">=": "greater than or equal",
    "max:": "the larger of the two", "min:": "the smaller of the two",
    "rem:": "remainder with the sign of the receiver (truncated)", "abs": "absolute value", "negated": "0 - receiver",
    "squared": "receiver * receiver", "sqrt": "square root as a Float; negative receivers raise",
    "isZero": "whether it is 0", "even": "whether it is divisible by 2", "odd": "whether it is not divisible by 2",
    "sign": "-1, 0 or 1", "factorial": "1 * 2 * ... * receiver; overflow raises",
    "gcd:": "greatest common divisor", "lcm:": "least common multiple",
    "between:and:": "whether the receiver lies in the closed range; the bounds are numbers of either kind",
    "to:do:": "runs the block with each Integer from the receiver to the argument; answers the receiver",
    "to:by:do:": "runs the block with each Integer of `receiver to: stop by: step`; answers the receiver",
    "to:collect:": "an Array of the block's values for each Integer from the receiver to the argument",
    "to:": "the Interval from the receiver to the argument, step 1",
    "to:by:": "the Interval from the receiver towards the argument with the given step (not 0)",
    "timesRepeat:": "runs the block receiver times; answers the receiver",
    "asFloat": "the same number as a Float", "asCharacter": "the Character with this code point (surrogates raise)",
    "printString:": "the digits in the given base (2 to 36)",
    "bitAnd:": "bitwise and", "bitOr:": "bitwise or", "bitXor:": "bitwise exclusive or",
    "bitShift:": "shift left (positive) or right (negative); overflow raises before computing",
    "raisedTo:": "the receiver to the power of the argument; overflow raises before computing",
    "isNaN": "whether the Float is not a number", "rounded": "nearest Integer (halves up)",
    "truncated": "Integer part, towards zero", "floor": "largest Integer not above", "ceiling": "smallest Integer not below",
    "roundTo:": "the nearest multiple of the argument",
    # booleans
    "ifTrue:ifFalse:": "the value of the block for the receiver's case", "ifFalse:ifTrue:": "the value of the block for the receiver's case",
    "ifTrue:": "runs the block when true; answers nil", "ifFalse:": "runs the block when false; answers nil",
    "and:": "false, or the block's value when true (short-circuit)", "or:": "true, or the block's value when false (short-circuit)",
    "&": "and (both evaluated)", "|": "or (both evaluated)", "not": "the negation", "xor:": "exclusive or",
    "asString": "the displayString",
    # characters
    "value": "the code point", "asSymbol": "the Symbol with this text",
    "asUppercase": "the upper-case version", "asLowercase": "the lower-case version", "isVowel": "whether it is one of aeiou (any case)",
    "isLetter": "whether it is a letter", "isDigit": "whether it is a digit", "isUppercase": "whether it is upper case",
    "isLowercase": "whether it is lower case", "isSeparator": "whether it is white space",
    "digitValue": "0-9 for the digits 0-9, 10-35 for the letters a-z and A-Z, -1 otherwise (other scripts' digits too)",
    # strings and collections
    ",": "the concatenation", "size": "the number of elements", "at:": "the element at an index (1-based); out of bounds raises",
    "includesSubstring:": "whether the argument occurs in the receiver", "startsWith:": "whether the receiver begins with the argument",
    "endsWith:": "whether the receiver ends with the argument",
    "asInteger": "the Integer it denotes (optional sign, decimal digits); anything else raises",
    "asNumber": "the Float it denotes ('3' asNumber is 3.0; `asInteger` reads an Integer); anything else raises",
    "lines": "the lines, without line terminators", "splitOn:": "the parts between occurrences of the separator",
    "substrings": "the words separated by white space", "substrings:": "the parts between any of the argument's characters, without empty parts",
    "trim": "without leading and trailing white space", "reversed": "the elements in reverse order", "reverse": "the elements in reverse order",
    "isEmpty": "whether it has no elements", "notEmpty": "whether it has elements",
    "indexOf:": "the index of the first occurrence, or 0", "copyFrom:to:": "the elements from the first index to the second",
    "copyReplaceAll:with:": "every occurrence of the first String replaced by the second",
    "join:": "the Strings of the argument with the receiver between them (`', ' join: #('a' 'b')`)",
    "occurrencesOf:": "how many elements equal the argument",
    "first:": "the first n elements", "last:": "the last n elements",
    "allButFirst": "all elements but the first", "allButLast": "all elements but the last",
    "do:": "runs the block with each element; answers the receiver",
    "collect:": "the block's values for each element", "select:": "the elements for which the block answers true",
    "reject:": "the elements for which the block answers false",
    "inject:into:": "folds the elements: the block gets the accumulator and each element",
    "detect:ifNone:": "the first element for which the block answers true, else the second block's value",
    "detect:": "the first element for which the block answers true; raises when none does",
    "anySatisfy:": "whether the block answers true for some element", "allSatisfy:": "whether the block answers true for every element",
    "count:": "how many elements the block answers true for",
    "includes:": "whether some element equals the argument", "first": "the first element; raises when empty",
    "last": "the last element; raises when empty", "asArray": "the elements as an Array",
    "doWithIndex:": "runs the block with each element and its index", "keysAndValuesDo:": "runs the block with each index (key) and element (value)",
    "reverseDo:": "runs the block with each element, last first",
    "do:separatedBy:": "runs the first block with each element and the second between elements",
    "with:": "a copy with the argument added at the end (O(n): build large Arrays with collect:, select: or a Dictionary)",
    "copyWith:": "a copy with the argument added at the end", "copyWithout:": "a copy without the elements equal to the argument",
    "at:put:": "a copy with the element at the index (Array) or key (Dictionary) replaced or added",
    "asSortedCollection:": "the elements sorted by the block (a less-or-equal test); stable",
    "sort:": "the elements sorted by the block (a less-or-equal test); stable merge sort",
    "with:collect:": "the block's values for the pairs of elements at equal indices (both Arrays of one size, else it raises)",
    "max": "the largest element", "min": "the smallest element", "sum": "the sum of the elements",
    "asSortedArray": "numbers and Strings in ascending order", "detectMax:": "the element for which the block answers the largest Integer",
    "detectMin:": "the element for which the block answers the smallest Integer",
    "collectWithIndex:": "the block's values for each element and its index",
    "flatCollect:": "the concatenation of the Arrays the block answers",
    # dictionaries
    "at:ifAbsent:": "the value at the key, else the block's value", "removeKey:": "a copy without the key",
    "includesKey:": "whether the key is present", "keysDo:": "runs the block with each key", "valuesDo:": "runs the block with each value",
    "associationsDo:": "runs the block with each key -> value Association", "associations": "the key -> value Associations",
    "keys": "the keys in insertion order", "values": "the values in key insertion order",
    "keyAtValue:": "the first key whose value equals the argument, as a Maybe",
    "keysSortedBy:": "the keys sorted by the block (a less-or-equal test)",
    # Maybe and Association
    "ifPresent:": "runs the block with the value when present; answers nil",
    "ifPresent:ifAbsent:": "the first block's value with the value, or the second's when absent",
    "ifAbsent:ifPresent:": "the second block's value with the value, or the first's when absent",
    "ifAbsent:": "the value, or the block's value when absent", "valueOr:": "the value, or the argument (a plain value) when absent",
    "isSome": "whether a value is present", "isPresent": "whether a value is present", "isNone": "whether no value is present",
    "key": "the key",
    # blocks
    "value:": "runs the block with one argument", "value:value:": "runs the block with two arguments",
    "value:value:value:": "runs the block with three arguments", "value:value:value:value:": "runs the block with four arguments",
    "numArgs": "the number of arguments", "ensure:": "runs the receiver, then the argument however the receiver ends",
    "ifCurtailed:": "runs the argument only when the receiver ends by an error or a non-local return",
    "whileTrue:": "runs the argument while the receiver answers true", "whileFalse:": "runs the argument while the receiver answers false",
    "whileTrue": "runs the receiver until it answers false", "whileFalse": "runs the receiver until it answers true",
    "on:do:": "runs the receiver; an Error of the class is handled by the second block",
    # actors
    "!": "sends the message to the actor; answers the message", "receive": "takes the oldest message",
    "receive:": "takes the first message a table entry matches and runs its handler",
    "receive:after:do:": "like receive:, or runs the block after the timeout (ms)",
    "ask:": "sends a message with a reply field and answers a Future of the reply",
    "linkTo:": "links the running actor with the argument", "unlinkFrom:": "removes a link",
    "monitor:": "the running actor receives Down when the argument ends", "demonitor:": "removes a monitor",
    "exit:": "ends the actor (or sends it an exit signal) with the reason", "isAlive": "whether the actor is running",
    "id": "the actor's number", "await": "waits for the value",
    "await:": "waits at most the given ms for the value; raises on timeout", "isResolved": "whether the value has arrived",
    "resolve:": "gives the Future its value (once) and answers it", "future": "the Promise's Future",
    # errors and reasons
    "signal": "raises the receiver", "raise": "raises the receiver", "messageText": "the message", "description": "the message",
    "signal:": "raises with the given message", "isNormal": "whether the reason is #normal", "isKilled": "whether the reason is #killed",
    "isError": "whether the reason is an Error", "error": "the Error, as a Maybe",
    # class side
    "name": "the class's name", "new": "a new instance (classes without fields, empty collections)",
    "fields:": "a new instance from a record of field values", "none": "the absent Maybe", "some:": "a present Maybe",
    "with:with:": "an Array of the two arguments", "with:with:with:": "an Array of the three arguments",
    "new:withAll:": "an Array of n copies of the value", "key:value:": "an Association",
    "raise:": "raises a new instance with the message", "new:": "a new instance with the message",
    "try:onError:": "the block's value, or the handler's when an Error of this class is raised",
    "self": "the running actor", "spawn:": "starts an actor running the block", "spawnLink:": "spawn: and link",
    "trapExits:": "turns exit signals into Exit messages", "sleep:": "waits the given ms",
    "millisecondClock": "milliseconds from an arbitrary start",
    "microsecondClock": "microseconds from an arbitrary start (the same clock)", "info:": "writes `info: text` to standard error",
    "warn:": "writes `warn: text` to standard error", "error:": "writes `error: text` to standard error", "debug:": "writes `debug: text` to standard error",
    "encode:": "the JSON text of the value", "decode:": "the value of the JSON text (nesting, NaN and bad text raise)",
    "show:": "writes the text", "showCr:": "writes the text and a newline", "showLine:": "writes the text and a newline",
    "display:": "writes the displayString", "print:": "writes the printString", "cr": "writes a newline",
    "tab": "writes a tab", "space": "writes a space", "at:for:id:": "a reference to an actor on another node",
}

BY_CLASS = {
    ("Symbol", ","): "the Symbol's text followed by the String",
    ("Symbol", "size"): "the number of characters", ("Symbol", "numArgs"): "how many arguments a message with this selector takes",
    ("Character", "value"): "the code point", ("Character", "asInteger"): "the code point",
    ("Character", "asString"): "a String of the one character", ("String", "asString"): "the receiver",
    ("Symbol", "asString"): "the Symbol's text", ("Symbol", "asSymbol"): "the receiver", ("Float", "asInteger"): "Integer part, towards zero", ("Integer", "asNumber"): "the receiver, as a `Number` (where Integers and Floats meet)", ("Float", "asNumber"): "the receiver, as a `Number` (where Integers and Floats meet)", ("Number", "asNumber"): "the receiver", ("Number", "asInteger"): "Integer part, towards zero (an Integer answers itself)",
    ("Integer", "asInteger"): "the receiver", ("Integer", "asString"): "the decimal digits",
    ("String", "collect:"): "a String of the block's Characters", ("String", "select:"): "a String of the selected Characters",
    ("Dictionary", "collect:"): "a Dictionary with the same keys and the block's values",
    ("Dictionary", "select:"): "the entries whose value the block answers true for",
    ("Dictionary", "reject:"): "the entries whose value the block answers false for",
    ("Dictionary", "do:"): "runs the block with each value", ("Dictionary", "at:"): "the value at the key; a missing key raises",
    ("Dictionary", "includes:"): "whether some value equals the argument", ("Dictionary", "size"): "the number of keys",
    ("Maybe", "value"): "the value; raises when absent", ("Maybe", "collect:"): "the block's value as a Maybe, or none",
    ("Association", "value"): "the value", ("Block", "value"): "runs the block",
    ("Error", "new"): "a new instance whose message is the class name",
    ("Object", "printNl"): "writes the class name and a newline", ("Object", "displayNl"): "writes the class name and a newline",
    ("Object", "printString"): "the class name", ("Object", "displayString"): "the class name",
    ("Interval", "reversed"): "the same Integers in reverse order", ("Interval", "reverse"): "the same Integers in reverse order",
    ("Interval", "sum"): "the sum of the Integers (computed directly)", ("Interval", "at:"): "the index-th Integer",
    ("Promise", "new"): "a new unresolved Promise",
    ("ByteArray", "size"): "the number of bytes", ("ByteArray", "at:"): "the index-th byte (0-255)",
    ("ByteArray", ","): "the bytes followed by the argument's", ("ByteArray", "copyFrom:to:"): "the bytes from index to index",
    ("ByteArray", "isEmpty"): "whether there are no bytes", ("ByteArray", "notEmpty"): "whether there are bytes",
    ("ByteArray", "asArray"): "the bytes as an Array of Integers", ("ByteArray", "indexOf:"): "the index of the first such byte, 0 if none",
    ("ByteArray", "asString"): "the bytes decoded as UTF-8; raises if they are not UTF-8",
    ("ByteArray", "new:"): "that many zero bytes", ("ByteArray", "withAll:"): "the Integers (0-255) as bytes",
    ("String", "asByteArray"): "the text encoded as UTF-8", ("String", "new"): "the empty String, `''`",
    ("String", "lf"): "a String of the newline character",
    ("String", "sha256Hex"): "SHA-256 of the text as UTF-8, as 64 lowercase hex digits",
    ("String", "crlf"): "a String of carriage return and newline",
    ("TCP", "connect:port:timeout:"): "a connected socket (the name resolved off the scheduler's threads); raises Timeout, ConnectionRefused, DNSError",
    ("TCP", "listen:"): "a listener on every interface (port 0: any free port)",
    ("TCP", "listenHost:port:"): "a listener on one numeric local address (port 0: any free port)",
    ("TCPListener", "port"): "the port it listens on", ("TCPListener", "accept:"): "the next connection; raises Timeout after the milliseconds",
    ("TCPListener", "close"): "stops listening",
    ("TCPSocket", "readLine:"): "the next line without its line end, none at end of stream; Timeout after the milliseconds; LimitExceeded past 64 KiB",
    ("TCPSocket", "readLine:limit:"): "as readLine:, with the given longest line in bytes",
    ("TCPSocket", "readBytes:timeout:"): "exactly that many bytes, none at end of stream; Timeout; ConnectionClosed if the stream ends inside them",
    ("TCPSocket", "write:"): "writes the text (UTF-8) completely; answers the byte count",
    ("TCPSocket", "write:timeout:"): "as write:, raising Timeout if the peer does not take the bytes in time",
    ("TCPSocket", "writeBytes:"): "writes the bytes completely; answers their count",
    ("TCPSocket", "writeBytes:timeout:"): "as writeBytes:, raising Timeout if the peer does not take them in time",
    ("TCPSocket", "readHttpRequest:timeout:bodyTimeout:maxLine:maxHeaders:maxHead:maxBody:"): "the next HTTP/1.1 request, head and body, none at end of stream (for HttpServer; docs/network.md)",
    ("TCPSocket", "readHttpChunked:timeout:"): "a chunked body's data (for the Http client; docs/network.md)",
    ("TCPSocket", "writeHttpResponse:headers:body:keepAlive:head:"): "writes a whole HTTP/1.1 response in one write (for HttpServer; docs/network.md)",
    ("TCPSocket", "writeHttpResponse:headers:body:keepAlive:head:timeout:"): "as writeHttpResponse:headers:body:keepAlive:head:, raising Timeout if the peer does not take it in time",
    ("UDPSocket", "bind:"): "a UDP socket on every interface (port 0: any free port)",
    ("UDPSocket", "bindHost:port:"): "a UDP socket on one numeric local address (port 0: any free port)",
    ("UDPSocket", "port"): "the local port", ("UDPSocket", "close"): "closes the socket",
    ("UDPSocket", "sendTo:port:data:"): "sends one datagram to a numeric address; answers its size",
    ("UDPSocket", "receiveFrom:"): "the next Datagram (data, host, port); none once closed; Timeout after the milliseconds",
    ("TCPSocket", "readHttpStatus:maxHead:"): "the next HTTP response head, none at end of stream (for the Http client)",
    ("TCPSocket", "readToEnd:timeout:"): "everything until the peer closes, at most that many bytes",
    ("TCPSocket", "release"): "gives a pooled connection back to the pool (closed if the pool is full)",
    ("TCPSocket", "isReused"): "whether it came from the pool rather than a fresh connect",
    ("TCP", "pooledConnect:port:timeout:"): "an idle pooled connection that still looks usable, or a fresh one (at most 8 idle per host:port)",
    ("Remote", "at:for:id:"): "a proxy for the object registered under (class, id) at the URL: each send is a JSON-RPC call (docs/network.md); Remote[C] for a literal class of the program, else Dynamic",
    ("Remote", "at:for:id:timeout:"): "as at:for:id:, each call bounded by the milliseconds (5,000 without)",
    ("Remote", "encode:"): "the JSON text of the value, instances, symbols, characters, Maybes and byte arrays tagged so they come back as they were",
    ("Remote", "decode:"): "the value of JSON text made by encode: (or plain JSON)",
    ("Remote", "request:"): "a JSON-RPC call as a RemoteServer reads it; RemoteError -32700 / -32600 for text that is none",
    ("Remote", "result:"): "the result of a JSON-RPC response; its error raises RemoteError with the error's code",
    ("Remote", "isInstance:named:"): "whether the value is an instance of the program class of that name, or of a subclass of it",
    ("Remote", "perform:on:withArguments:"): "sends the selector to the object with the arguments: only methods of the program's classes (RemoteError -32601, -32602 otherwise)",
    ("Remote", "ownerFor:class:id:"): "the URL a redirect named for (class, id) reached through the entry URL, if this program remembers one (docs/network.md, Routing)",
    ("Remote", "remember:for:class:id:"): "remembers the URL as where (class, id) lives when reached through the entry URL; the entry URL itself forgets it",
    ("TLS", "wrapClient:host:timeout:"): "the socket, now TLS, after a handshake verifying the server's certificate (system CAs) and host name; TLSError, Timeout",
    ("TLS", "wrapClient:host:caFile:timeout:"): "as wrapClient:host:timeout:, trusting the CAs in the PEM file",
    ("TLS", "wrapServer:certFile:keyFile:timeout:"): "the socket, now TLS, after a server handshake with the PEM certificate chain and key",
    ("WebSocket", "receive:"): "the next message (fragments joined, pings answered), none after the peer's close; Timeout; over 1 MiB: closes with 1009 and raises LimitExceeded",
    ("WebSocket", "receive:limit:"): "as receive:, with the given largest message in bytes",
    ("WebSocket", "receiveOrMail:"): "none at once when the running actor has a message, else some: what receive: answers; the wait also ends when a message arrives",
    ("WebSocket", "receiveOrMail:limit:"): "as receiveOrMail:, with the given largest message in bytes",
    ("WebSocket", "sendText:"): "sends a text message; answers its size in bytes", ("WebSocket", "sendBytes:"): "sends a binary message",
    ("WebSocket", "close"): "sends a close frame (1000) and closes the connection", ("WebSocket", "close:"): "the same with another close code",
    ("WebSocket", "close:reason:"): "the same with a reason (UTF-8, at most 123 bytes)",
    ("WebSocket", "closeReason"): "the reason of the peer's close frame ('' without one)",
    ("WebSocket", "closeCode"): "the code the connection closed with: the peer's (1005: its close had none; 1006: the connection ended without one), or ours after `close:`; 0: still open",
    ("WebSocket", "over:client:"): "a WebSocket on a socket whose HTTP upgrade is done (clients mask their frames)",
    ("WebSocket", "over:client:protocol:"): "the same, with the subprotocol the upgrade chose ('' for none)",
    ("WebSocket", "protocol"): "the subprotocol the upgrade chose (Sec-WebSocket-Protocol), none without one",
    ("WebSocket", "acceptKeyFor:"): "the Sec-WebSocket-Accept value for a Sec-WebSocket-Key",
    ("WebSocket", "newKey"): "a fresh random Sec-WebSocket-Key", ("WebSocketMessage", "text"): "the data as UTF-8 text",
    ("TCPSocket", "close"): "closes the connection", ("TCPSocket", "isClosed"): "whether close was sent",
    ("RuntimeView", "observing"): "true while `lp run --observe` (or a binary's `--observe`) serves the observer (docs/observer.md)",
    ("RuntimeView", "host"): "the host given to `--observe` (127.0.0.1 unless one was given)",
    ("RuntimeView", "port"): "the port given to `--observe` (0: any free port)",
    ("RuntimeView", "hide"): "leaves the running actor and those it spawns out of the observer's view (the observer's own actors)",
    ("RuntimeView", "announce:"): "tells the user on stderr the observer's address with this port",
    ("RuntimeView", "asset:"): "the observer page's file served at the path, if there is one",
    ("RuntimeView", "contentTypeOf:"): "the Content-Type of the observer's file at the path",
    ("RuntimeView", "pause"): "milliseconds until the next tick: 250, or 20 times what the last one took",
    ("RuntimeView", "snapshot:"): "the observer's JSON for one tick, for the query the page sent (sort, page, selection)",
    ("RuntimeView", "supervisor:event:child:detail:children:actors:restarts:"): "a supervisor's event and children, for the observer (stdlib/supervision.lp)",
    ("GrainRef", "label"): "Class/id of the grain it reaches (every selector but the universal ones is a grain call: docs/grains.md)",
    ("GrainRef", "label:like:on:"): "a reference whose sends run the block with the selector and the arguments, typed as sends to the state's class (internal to stdlib/grain.lp)",
    ("Error", "raiseSiteOf:"): "file:line:col of the send that raised the error just caught, '' if unknown (internal to stdlib/http_server.lp, which logs it)",
    ("GrainRef", "nodeId"): "host name, process id and a random part: unique to this process",
    ("GrainRef", "hashOf:"): "a number for the String that is the same in every process (CRC-32 of its UTF-8), unlike hash: places an id among a member list",
    ("GrainRef", "encodeState:"): "the value as JSON text in Remote's form (docs/grains.md), raising for a value that would not come back as itself",
    ("GrainRef", "asState:like:"): "the first value, a call's answer isState:like: accepted, as the grain's state (internal to stdlib/grain.lp)",
    ("GrainRef", "decodeState:like:shape:"): "the value encodeState: encoded; raises unless it has the type the shape describes, or without one is like the second value (internal to stdlib/grain.lp)",
    ("GrainRef", "shape:of:"): "the value, whose type the shape describes, for Grain for:initial: (inserted by the back ends; internal to stdlib/grain.lp)",
    ("GrainRef", "shapeOf:"): "the shape shape:of: gave the value, or '' (internal to stdlib/grain.lp)",
    ("GrainRef", "isState:like:"): "whether the first value is an instance of the second's class",
    ("Actor", "unixMillis"): "milliseconds since 1970 on the system's clock (alarm times: docs/durable.md)",
    ("Storage", "at:"): "the SQLite store in that file (made with its directory by the first request; docs/durable.md)",
    ("Storage", "execute:"): "runs one SQL statement and commits it: its rows and the rows it wrote",
    ("Storage", "execute:with:"): "the same with the values of its ? parameters (nil, Integer, Float, String, ByteArray)",
    ("Storage", "query:"): "runs one statement and rolls it back: its rows, rowsWritten 0",
    ("Storage", "query:with:"): "the same with parameters",
    ("Storage", "transaction:"): "runs 1 to 100 statements (sql -> parameters) and commits them all, or none: their results",
    ("Storage", "path"): "the store's file",
    ("Storage", "limit:"): "the same store with a size limit in bytes (StorageFull past it; 0: none)",
    ("Storage", "resultLimit:"): "the same store answering at most this many bytes of values per request (ResultTooLarge)",
    ("Storage", "busyTimeout:"): "the same store waiting at most this long (ms) for a lock another connection holds (StorageBusy)",
    ("Storage", "bindGrain:dir:"): "makes the running actor the owner of a durable grain (key Class/id) with that data directory (for stdlib/grain.lp)",
    ("Storage", "current"): "the store of the durable grain the running actor owns (Grain storage): dir/Class/id.sqlite",
    ("Storage", "register:as:"): "keeps a value under a name in the process (for stdlib/grain_sockets.lp and stdlib/reliable.lp)",
    ("Storage", "registered:like:"): "the value kept under a name, typed like the sample; raises unless its class is the sample's or below it, or when nothing is kept under the name (for stdlib/grain_sockets.lp and stdlib/reliable.lp)",
    ("Storage", "asDynamic:"): "the value, typed Dynamic: the arguments of a grain call made by name (for stdlib/grain_sockets.lp)",
    ("Storage", "currentGrain"): "the key (Class/id) of the durable grain the running actor owns",
    ("Storage", "currentDir"): "the data directory of the durable grain the running actor owns",
    ("SqlResult", "columns"): "the names of the result's columns", ("SqlResult", "rows"): "the rows, each column name -> value",
    ("SqlResult", "rowsWritten"): "how many rows the statement inserted, updated or deleted",
}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n") if line.strip()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(cls: str, line: str) -> str:
    sig = L.parse_sig(line)
    typ = "*special*" if sig.special else f"`{_cell(line)}`"
    desc = BY_CLASS.get((cls, sig.selector)) or DESCRIPTIONS.get(sig.selector, "")
    return f"| `{_cell(sig.selector)}` | {typ} | {_cell(desc)} |"


def _table(cls: str, text: str) -> list[str]:
    out = ["| selector | signature | what it answers or does |", "|---|---|---|"]
    return out + [_row(cls, line) for line in _lines(text)]


CLASS_NOTES = {
    "Number": "A value known only to be an Integer or a Float, like the message a `Number` receive key takes. "
              "It understands what both do; an operator with a `Number` on either side answers a `Number` "
              "(comparisons a Boolean, `/` a Float). Methods defined on `Number` run on Integers and Floats.",
}


def render() -> str:
    parts = [HEADER, "## Every value\n", "Understood by every value, including classes.\n"]
    parts.append("\n".join(_table("", L.UNIVERSAL)) + "\n")
    parts.append("## Every class\n")
    parts.append("Understood by every class (the class side of Object).\n")
    parts.append("\n".join(_table("Object", L.CLASS_SIDE["Object"])) + "\n")
    names = list(L.INSTANCE) + [c for c in L.CLASS_SIDE if c not in L.INSTANCE and c != "Object"]
    for cls in names:
        parts.append(f"## {cls}\n")
        if cls in CLASS_NOTES:
            parts.append(CLASS_NOTES[cls] + "\n")
        params = L.PARAMS.get(cls)
        if params:
            parts.append(f"Type parameters: {', '.join(params)}.\n")
        if cls in L.BUILTIN_FIELDS:
            fields = ", ".join(f"`{f}`: `{t}`" for f, t in L.BUILTIN_FIELDS[cls].items())
            parts.append(f"Fields: {fields}.\n")
        if cls in L.CLASS_SIDE:
            parts.append(f"### {cls} class\n")
            parts.append("\n".join(_table(cls, L.CLASS_SIDE[cls])) + "\n")
        if cls in L.INSTANCE:
            if cls in L.CLASS_SIDE:
                parts.append(f"### {cls} instances\n")
            parts.append("\n".join(_table(cls, L.INSTANCE[cls])) + "\n")
    return "\n".join(parts)


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
