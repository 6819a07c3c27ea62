"""The LP program the hosted-socket tests and bench/durable/sockets_bench.py run: a durable Room
grain whose sockets are hosted (docs/durable.md, Hosted sockets), driven by text commands, and an
HTTP handler that routes /r/<name> to the room of that name, answers /active with how many rooms
are active, tries accept: on the plain request /plain, and has the room `full` accept the upgrade
request /full until it has 10,000 sockets (reserved: their responses are never sent)."""
from __future__ import annotations

PROGRAM = """
Import module: #Durable.
Object subclass: #Room fields: (posts).
Room >> join: request = (request webSocketProtocols includes: 'room.v1')
    ifTrue: [Grain sockets accept: request attachment: 'guest' asByteArray protocol: 'room.v1']
    ifFalse: [Grain sockets accept: request attachment: 'guest' asByteArray].
Room >> socketMessage: socket data: message = (
    words := message text substrings: ' '.
    cmd := words first.
    cmd = 'who' ifTrue: [socket send: ((socket attachment collect: [:b | b asString]) valueOr: 'none')].
    cmd = 'name' ifTrue: [socket attachment: (words at: 2) asByteArray].
    cmd = 'forget' ifTrue: [socket clearAttachment].
    cmd = 'id' ifTrue: [socket send: socket id].
    cmd = 'at' ifTrue: [socket send: (Grain sockets at: socket id) isSome printString , ' ' , (Grain sockets at: 'nope') isSome printString].
    cmd = 'list' ifTrue: [socket send: (' ' join: (Grain sockets list collect: [:s | s id]))].
    cmd = 'count' ifTrue: [socket send: self posts printString].
    cmd = 'post' ifTrue: [Grain sockets list do: [:s | s send: (words at: 2)]].
    cmd = 'bytes' ifTrue: [socket sendBytes: (words at: 2) asByteArray].
    cmd = 'big' ifTrue: [socket send: (Room try: [socket attachment: (ByteArray new: (words at: 2) asInteger)])].
    cmd = 'toolarge' ifTrue: [socket send: (Room try: [socket sendBytes: (ByteArray new: 33554433)])].
    cmd = 'flood' ifTrue: [
        blob := ByteArray new: 20000000.
        socket send: (Room try: [socket sendBytes: blob]) , ' ' , (Room try: [socket sendBytes: blob])].
    cmd = 'close' ifTrue: [
        r := Room try: [socket close: (words at: 2) asInteger reason: (words size > 2 ifTrue: [words at: 3] ifFalse: [''])].
        r = 'ok' ifFalse: [socket send: r]].
    cmd = 'closeLong' ifTrue: [socket send: (Room try: [socket close: 4000 reason: ('' join: ((1 to: 124) asArray collect: [:i | 'r']))])].
    cmd = 'raise' ifTrue: [Error signal: 'the room broke'].
    self with: { posts: self posts + 1 }).
Room >> socketClose: socket event: event = (
    late := (Room try: [socket send: 'late']) , ' ' , (Room try: [socket close]) , ' ' , (Room try: [socket attachment: 'x' asByteArray]).
    ('close ' , Grain key , ' ' , event code printString , ' [' , event reason , '] ' , event wasClean printString , ' ' , late , ' ' , ((socket attachment collect: [:b | b asString]) valueOr: 'none')) displayNl.
    self).
Room >> socketError: socket event: event = (
    ('error ' , Grain key , ' ' , event code , ' ' , ((socket attachment collect: [:b | b asString]) valueOr: 'none')) displayNl.
    self).
Room >> fill: request = (
    n := Room count: 0 accepting: request.
    HttpResponse ok: n printString , ' ' , (Room try: [Grain sockets accept: request])).
Room class >> count: n accepting: request =
    (TooManySockets try: [Grain sockets accept: request. true] onError: [:e | false])
        ifTrue: [Room count: n + 1 accepting: request]
        ifFalse: [n].
Room class >> try: blk = Error try: [blk value. 'ok'] onError: [:e | e class name].
rooms := Grain for: Room initial: (Room fields: { posts: 0 }) dir: '%(dir)s'
    options: (GrainOptions default with: { idle: %(idle)d }).
server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |
    req path = '/active' ifTrue: [HttpResponse ok: rooms active printString] ifFalse: [
        req path = '/full' ifTrue: [(rooms named: 'full') fill: req] ifFalse: [
        req path = '/plain'
            ifTrue: [
                InvalidUpgrade
                    try: [(rooms named: 'plain') join: req]
                    onError: [:e | HttpResponse ok: e class name]]
            ifFalse: [(rooms named: (req path copyFrom: 4 to: req path size)) join: req]]]].
server port printNl.
Actor self receive: { #never -> [] } after: %(life)d do: [].
"""


def program(directory, idle: int = 300, life: int = 600000) -> str:
    return PROGRAM % {"dir": directory, "idle": idle, "life": life}
