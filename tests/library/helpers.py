"""Run LP expressions in-process, many per program, and read back one answer per expression."""
from __future__ import annotations

import tempfile
from pathlib import Path

from lp.diagnostics import SourceMap, render_all
from lp.modules import Loader
from lp.types import check_program
from tests.interp.helpers import run_source

PYTHON_TERMS = ("Traceback", "None", "ValueError", "TypeError", "KeyError", "IndexError", "OverflowError",
                "MemoryError", "RecursionError", "UnicodeEncodeError", "AttributeError", "object at 0x",
                "internal error", "invalid literal", "maximum recursion")


SEP = "\x1e"  # between answers, which may contain newlines


def run(src: str):
    """(status, stdout, stderr) of running src without the checker."""
    with tempfile.TemporaryDirectory() as d:
        return run_source(src, Path(d), check=False)


def check(src: str) -> str:
    """The checker's diagnostics for src, rendered ('' when it is well typed)."""
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "prog.lp"
        f.write_text(src)
        sources = SourceMap()
        main, imports = Loader(sources).load_main(str(f))
        result = check_program(main, imports)
        return render_all(result.diagnostics, sources) if result.diagnostics else ""


def answers(exprs: list[str], prelude: str = "") -> list[str]:
    """The printString of each expression, or `error: <message>` when it raises an Error."""
    lines = [prelude]
    for e in exprs:
        lines.append(f"Transcript show: (Error try: [({e}) printString] onError: [:e | 'error: ' , e messageText]); "
                     f"show: '{SEP}'.")
    status, out, err = run("\n".join(lines) + "\n")
    assert (status, err) == (0, ""), err
    got = out.split(SEP)[:-1]
    assert len(got) == len(exprs), out
    return got


def no_python_terms(text: str) -> bool:
    return not any(t in text for t in PYTHON_TERMS)
