"""LP's static type checker: `check_program(program, imports) -> CheckResult`.

See docs/types.md for the design. The checker never raises: an internal
failure becomes a diagnostic titled "internal checker error".
"""
from __future__ import annotations

from lp.types.check import CheckResult, check_program

__all__ = ["CheckResult", "check_program"]
