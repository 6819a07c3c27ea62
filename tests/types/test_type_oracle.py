"""The type oracle (lp/interp/type_oracle.py): sends the checker typed with a class answer one."""
from __future__ import annotations

import io

from lp.diagnostics import SourceMap, render_all
from lp.interp import type_oracle
from lp.interp.interp import Interpreter
from lp.modules import Loader
from lp.syntax import ast as A
from lp.types import check_program
from lp.types.terms import TCon
from tests.conftest import run_lp

PROGRAM = """Object subclass: #Cell fields: (v).
c := Cell fields: { v: 'text' }.
(c v , '!') printNl.
(#(1 2) collect: [:x | x * 1.5]) printNl.
(3 max: 4) printNl.
Cell printNl.
"""


def test_a_checked_program_runs_as_without_the_oracle(tmp_path, monkeypatch):
    f = tmp_path / "prog.lp"
    f.write_text(PROGRAM)
    plain = run_lp("run", str(f))
    monkeypatch.setenv("LP_TYPE_ORACLE", "1")
    watched = run_lp("run", str(f))
    assert (watched.returncode, watched.stdout, watched.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert plain.stdout == b"'text!'\n#(1.5 3.0)\n4\nCell\n"


def test_a_send_typed_wrong_is_an_error_at_the_send(tmp_path):
    """A checker mistake, made by hand: the field read `c v` is recorded as an Integer."""
    f = tmp_path / "prog.lp"
    f.write_text(PROGRAM)
    sources = SourceMap()
    main, imports = Loader(sources).load_main(str(f))
    result = check_program(main, imports)
    read = next(n for s in main.statements for n in A.walk(s)
                if type(n) is A.Send and n.selector == "v" and n.span.line == 3)
    result.types[id(read)] = (read, TCon("Integer"))
    out, err = io.StringIO(), io.StringIO()
    interp = Interpreter(sources, out=out, err=err, quiet=True)
    type_oracle.install(interp, result.types)
    interp.load(imports + [main])
    status = interp.run_main(main, 1)
    assert status != 0
    assert "type oracle: the checker typed this send `Integer`, but it answered the String 'text'" in err.getvalue()
    assert "3 | (c v , '!') printNl." in err.getvalue()
    assert out.getvalue() == ""
