"""The compile-time diagnostic for LP the native compiler cannot translate yet."""
from __future__ import annotations

from lp.diagnostics import Diagnostic, LPError


class Unsupported(LPError):
    def __init__(self, what: str, span, hint: str | None = None):
        super().__init__(Diagnostic(
            "not supported natively",
            f"The native compiler does not support {what} yet.", span,
            hint=hint or "run the program with `lp run` instead"))
