"""The typed IR: the contract between the type checker and the back ends (see nodes.py)."""
from lp.ir.build import build_program
from lp.ir.printer import format_program

__all__ = ["build_program", "format_program"]
