"""Check a generated program, run it if the checker accepts it, and classify what went wrong.

A run-time failure the checker promised away (an unknown selector, an argument
of the wrong class, a block given the wrong number of arguments) is a soundness
bug; other run-time errors (an index out of bounds, division by zero) are not. Programs run with the
type oracle (lp/interp/type_oracle.py): a send answering a value of another class than the checker
said is a soundness bug too, even where `lp run` would go on (a binary trusts those types).
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from tests.interp.helpers import run_source
from tests.types.helpers import check_source

# Run-time messages (lp/interp) that a checked program must never produce. Value errors a type does
# not promise to avoid (`'ab' last: 31`: "expects a count from 0 to 2") are not among them.
TYPE_ERRORS = re.compile(
    r"does not understand #|#\S+ expects an? (?!count from |size |base from )|expects a (?:number|String|Character|Boolean)|"
    r"this block takes \d+ arguments? but was given|a condition must be a Boolean|"
    r"can only order numbers and strings|cannot be a Dictionary key|spawn: needs a block|ask: needs an instance|"
    r"internal error in primitive|has no field `|fields: is missing|"
    r"only an actor can receive|Actor spawn: takes a block|expects a table of|type oracle: ")


RUN_SECONDS = 20


def outcome(src: str) -> tuple[str, str]:
    """('rejected' | 'ok' | 'unsound', detail)."""
    result, text = check_source(src, "prog.lp")
    if result.diagnostics:
        return "rejected", text
    with tempfile.TemporaryDirectory() as d:
        # a generated program may loop for ever (a whileTrue: whose condition never changes): the
        # run is stopped, and whatever it printed until then is classified as any other run's
        status, out, err = run_source(src, Path(d), domains=1, quiet=True, stack_limit=2000, oracle=True,
                                      time_limit=RUN_SECONDS)
    m = TYPE_ERRORS.search(err)
    if m:
        return "unsound", err
    return "ok", err
