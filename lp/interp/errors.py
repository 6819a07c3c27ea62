"""LP run-time errors: the Python exception that carries an LP error value, and their construction."""
from __future__ import annotations

from lp.interp.values import Instance


class LPRaise(Exception):
    """An LP error value being raised (unwinds LP frames, not Python ones)."""

    def __init__(self, error):
        super().__init__("LP error")
        self.error = error


class ActorExit(BaseException):
    """Ends the running actor: `Actor exit: reason` (unwind: its `ensure:` and `ifCurtailed:`
    blocks run first) or an exit signal it sent itself (no cleanups, as for any signal).
    The machine records `where` (the LP stack at the send) when it catches it."""

    def __init__(self, kind, value, unwind: bool = True):
        super().__init__("actor exit")
        self.kind, self.value = kind, value
        self.unwind = unwind
        self.where = None


def said(what: str, text: str) -> str:
    """`what: text`, where a selector naming what failed ends in its own colon (`readLine: text`)."""
    return f"{what} {text}" if what.endswith(":") else f"{what}: {text}"


def make_error(interp, message: str, cls_name: str = "Error") -> Instance:
    cls = interp.classes[cls_name]
    values = [None] * len(cls.fields)
    values[cls.field_index["message"]] = message
    return Instance(cls, tuple(values))


def internal_error(interp, exc: Exception, ins) -> Instance:
    """A Python fault inside a primitive, reported as an LP error at the send that caused it."""
    sel = ins[3] if len(ins) > 3 and isinstance(ins[3], str) else "?"
    return make_error(interp, f"internal error in primitive `{sel}`: {type(exc).__name__}: {exc}")


def error_message(err) -> str:
    if isinstance(err, Instance) and "message" in err.cls.field_index:
        m = err.get("message")
        return m if isinstance(m, str) else str(m)
    return str(err)
