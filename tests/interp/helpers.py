"""Run LP source in-process on the interpreter and the C runtime, capturing its output."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from lp.diagnostics import LPError, SourceMap, render_all
from lp.interp import type_oracle
from lp.interp.interp import Interpreter
from lp.modules import Loader
from lp.types import check_program


# Seeds for tests whose outcome depends on timing on the real scheduler (a sleep meant to let
# another actor get somewhere, a timeout that must not pass first): in deterministic mode
# (`lp run --seed N`, docs/testing.md) virtual time makes them exact, and each seed is one
# interleaving, the same on every run.
SEEDS = [pytest.param(s, id=f"seed{s}") for s in (1, 2, 3, 4)]


def run_source(src: str, tmp_path: Path, domains: int = 2, quiet: bool = False, stack_limit: int = 200_000,
               check: bool = True, seed: int | None = None, oracle: bool = False, time_limit: float | None = None):
    """(exit status, stdout, stderr) of running `src` as a program file, type-checked first as
    `lp run` does (check=False is `lp run --no-check`, for run-time checks the checker would refuse);
    with a seed, in deterministic mode as `lp run --seed` (domains is then 1); with the oracle, every
    send the checker typed with a class is checked to answer one (lp/interp/type_oracle.py); with a
    time_limit (seconds), the main actor is killed then (the status answered is the run's)."""
    f = tmp_path / "prog.lp"
    f.write_text(src)
    sources = SourceMap()
    out, err = io.StringIO(), io.StringIO()
    try:
        main, imports = Loader(sources).load_main(str(f))
        if check:
            result = check_program(main, imports)
            if any(d.severity == "error" for d in result.diagnostics):
                raise LPError(*result.diagnostics)
            if result.diagnostics and not quiet:
                err.write(render_all(result.diagnostics, sources) + "\n")
        interp = Interpreter(sources, out=out, err=err, quiet=quiet, stack_limit=stack_limit)
        if oracle:
            type_oracle.install(interp, result.types, result.discarded)
        interp.load(imports + [main])
        status = interp.run_main(main, domains, seed=seed, time_limit=time_limit)
    except LPError as e:
        return 1, out.getvalue(), render_all(e.diagnostics, sources)
    return status, out.getvalue(), err.getvalue()
