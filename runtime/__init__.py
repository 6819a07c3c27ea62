"""lp.runtime — the LP actor runtime (C, in this folder) and its Python binding."""
from .binding import (  # noqa: F401
    ActorRef, Actor, Runtime, Message, Down, Exit, Receive, Sleep, TIMEOUT, Timeout,
    NORMAL, KILLED, ERROR, YIELD, BLOCK, DONE,
    WAKE_START, WAKE_YIELD, WAKE_MESSAGE, WAKE_TIMEOUT, WAKE_FD, WAKE_RESOLVED, WAKE_KILLED,
    READ, WRITE, now_ns, EDEADLOCK, DROP,
)
