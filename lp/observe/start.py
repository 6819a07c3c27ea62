"""`lp run --observe HOST:PORT`: check the address can be served, set up the Watch, and answer
the statements the main actor runs first to start the server (stdlib/observer.lp)."""
from __future__ import annotations

import socket
import sys

from lp.observe.watch import Watch
from lp.syntax.parser import parse_text


def observe(interp, sources, host: str, port: int):
    """The prelude statements, or None (after a one-line message) when host:port cannot be served."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except (OSError, OverflowError) as e:
        sys.stderr.write(f"lp: --observe: cannot serve on {host}:{port}: {e.strerror or e}\n")
        return None
    interp.observer = Watch(host, port)
    interp.observer.class_name = lambda value: _class_name(interp, value)
    return prelude(sources)


# What the main actor runs first under --observe, in `lp run` and in an observable binary
# (`lp build --observable`): start the server on the flag's address and say where it is.
PRELUDE = ("RuntimeView observing ifTrue: [\n"
           "    RuntimeView announce: (Observer startHost: RuntimeView host port: RuntimeView port)\n"
           "].\n")


def prelude(sources) -> list:
    sources.add("<observe>", PRELUDE)
    return list(parse_text(PRELUDE, "<observe>").statements)


def _class_name(interp, value) -> str:
    """The LP class of a waiting message; the interpreter's own envelopes (an ask: reply, say)
    are named by what they carry for the program."""
    try:
        return interp.class_of(value).name
    except (KeyError, AttributeError, TypeError):
        return {"FutureReady": "a reply (ask:)"}.get(type(value).__name__, type(value).__name__)
