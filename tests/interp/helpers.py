"""Run LP source in-process on the interpreter and the C runtime, capturing its output."""
from __future__ import annotations

import io
from pathlib import Path

from lp.diagnostics import LPError, SourceMap, render_all
from lp.interp.interp import Interpreter
from lp.modules import Loader


def run_source(src: str, tmp_path: Path, domains: int = 2, quiet: bool = False, stack_limit: int = 200_000):
    """(exit status, stdout, stderr) of running `src` as a program file."""
    f = tmp_path / "prog.lp"
    f.write_text(src)
    sources = SourceMap()
    out, err = io.StringIO(), io.StringIO()
    try:
        main, imports = Loader(sources).load_main(str(f))
        interp = Interpreter(sources, out=out, err=err, quiet=quiet, stack_limit=stack_limit)
        interp.load(imports + [main])
        status = interp.run_main(main, domains)
    except LPError as e:
        return 1, out.getvalue(), render_all(e.diagnostics, sources)
    return status, out.getvalue(), err.getvalue()
