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


BY_DESIGN = """3 class printNl.
Object new printNl.
x := 5.
x > 3 ifTrue: ['big' displayNl] ifFalse: [0].
"""


def _oracle_run(tmp_path, text, keep_discarded=True):
    f = tmp_path / "prog.lp"
    f.write_text(text)
    sources = SourceMap()
    main, imports = Loader(sources).load_main(str(f))
    result = check_program(main, imports)
    out, err = io.StringIO(), io.StringIO()
    interp = Interpreter(sources, out=out, err=err, quiet=True)
    type_oracle.install(interp, result.types, result.discarded if keep_discarded else ())
    interp.load(imports + [main])
    return interp.run_main(main, 1), out.getvalue(), err.getvalue()


def test_a_value_a_statement_throws_away_is_not_checked(tmp_path):
    """A conditional whose value a statement throws away is typed nil whatever its arms answer
    (here the String 'big'): nothing sees that value, and the oracle does not check it. Every
    other send typed nil is checked, as are `Class` (`3 class`) and `Object`."""
    assert _oracle_run(tmp_path, BY_DESIGN) == (0, "Integer\nObject()\nbig\n", "")
    status, _, err = _oracle_run(tmp_path, BY_DESIGN, keep_discarded=False)
    assert status != 0 and "typed this send `UndefinedObject`, but it answered the String 'big'" in err
    used = BY_DESIGN.replace("x > 3 ifTrue: ['big' displayNl] ifFalse: [0].", "(x > 3 ifTrue: ['big']) printNl.")
    assert _oracle_run(tmp_path, used) == (0, "Integer\nObject()\nnil\n", "")
