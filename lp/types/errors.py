"""How the checker words its diagnostics: one per root cause, each with the note that explains it."""
from __future__ import annotations

import difflib

from lp.diagnostics import Diagnostic, Note
from lp.types.terms import Namer, TCon, prune, show


def did_you_mean(word: str, candidates) -> str | None:
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.7)
    return close[0] if close else None


def encloses(outer, inner) -> bool:
    if inner is None or outer.file != inner.file:
        return False
    return (outer.line, outer.col) <= (inner.line, inner.col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def ordinal(i: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(i, f"{i}th")


def a_an(type_text: str) -> str:
    return f"`{type_text}`"


class Reporter:
    def __init__(self):
        self.diagnostics: list[Diagnostic] = []
        self._reported: set = set()

    def warn(self, title, message, span, notes=(), hint=None):
        """A diagnostic that does not stop the program: its title says it is a warning."""
        self.diagnostics.append(Diagnostic(f"warning: {title}", message, span, severity="warning",
                                           notes=tuple(notes), hint=hint))

    def error(self, title, message, span, notes=(), hint=None, label=""):
        key = (span.file, span.line, span.col, span.end_line, span.end_col) \
            if span is not None and span.line > 0 else None
        if key is not None and key in self._reported:
            return
        if key is not None:
            self._reported.add(key)
        self.diagnostics.append(Diagnostic(title, message, span, notes=tuple(notes), hint=hint, label=label))

    def clash_error(self, clash, span, subject, need, whole_expected=None, whole_actual=None,
                    notes=(), hint=None, title="type mismatch"):
        """`subject` is what was found ("The 2nd argument of `at:put:`"), `need` says who wanted what
        ("`at:put:` needs")."""
        namer = Namer()
        e, a = prune(clash.expected), prune(clash.actual)
        if clash.kind == "occurs":
            msg = (f"{subject} would need a type that contains itself: `{show(e, namer)}` "
                   f"and `{show(a, namer)}` can only be equal if the type is infinite.")
            self.error("infinite type", msg, span, notes, hint)
            return
        we = show(whole_expected, namer) if whole_expected is not None else None
        wa = show(whole_actual, namer) if whole_actual is not None else None
        le, la = show(e, namer), show(a, namer)
        if we is not None and wa is not None and (we, wa) != (le, la):
            msg = f"{subject} is `{wa}`, but {need} `{we}`."
            if clash.kind == "arity":
                msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                       f"is not one taking {len(e.args) - 1}."
            elif le != la:
                msg += f" `{la}` is not `{le}`."
        else:
            msg = f"{subject} is `{la}`, but {need} `{le}`."
            if clash.kind == "arity":
                msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                       f"is not one taking {len(e.args) - 1}."
        notes = list(notes)
        why = e.why if isinstance(e, TCon) else None
        if why is not None and why.line > 0 and not encloses(why, span):
            notes.append(Note(f"`{le}` is expected because of this:", why))
        self.error(title, msg, span, notes, hint)
