"""Problems are data, worded in one place: every kind has its renderer, and class declarations are
validated once (lp/classdecls.py) and worded alike by the checker and by `lp run --no-check`."""
from __future__ import annotations

import dataclasses

import pytest

from lp.types import problems as P
from lp.types.reports import RENDER
from tests.interp.helpers import run_source
from tests.types.helpers import check_source

KINDS = [c for c in vars(P).values()
         if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == P.__name__
         and c is not P.MethodName]   # a part of several kinds, not a kind


def test_every_problem_kind_is_rendered():
    assert KINDS and set(KINDS) == set(RENDER)


BAD_DECLS = {
    "Object subclass: #A fields: (x).\nA subclass: #B fields: (x).\n": "-- DUPLICATE FIELD --",
    "Object subclass: #A.\nObject subclass: #A.\n": "-- DUPLICATE CLASS --",
    "Object subclass: #Integer.\n": "-- DUPLICATE CLASS --",
    "Object subclass: #Record.\n": "-- DUPLICATE CLASS --",
    "Object subclass: #Reason.\n": "-- DUPLICATE CLASS --",
    "Record subclass: #A.\n": "-- CANNOT SUBCLASS --",
    "Nope subclass: #A.\n": "-- UNKNOWN CLASS --",
    "Integer subclass: #A.\n": "-- CANNOT SUBCLASS --",
    "A subclass: #B.\nB subclass: #A.\n": "-- INHERITANCE CYCLE --",
    "Object subclass: #A.\nQ >> m = 1.\n": "-- UNKNOWN CLASS --",
}


@pytest.mark.parametrize("src", sorted(BAD_DECLS))
def test_class_declarations_are_judged_alike_with_and_without_the_checker(src, tmp_path):
    result, text = check_source(src, "prog.lp")
    assert BAD_DECLS[src] in text
    status, out, err = run_source(src, tmp_path, check=False)
    assert status != 0 and BAD_DECLS[src] in err
    # the interpreter stops at the first problem, worded as the checker words it
    prose = [line for line in err.splitlines() if line and "prog.lp" not in line]
    assert prose and all(line in text.splitlines() for line in prose), (err, text)


def _calls(name):
    """(file, first argument) of every call to `name` or `P.name` in lp/types/ outside reports.py."""
    import ast
    import pathlib
    out = []
    for path in sorted(pathlib.Path("lp/types").glob("*.py")):
        if path.name == "reports.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if called == name:
                    out.append((path.name, node.args[0] if node.args else None))
    return out


def test_only_reports_words_diagnostics():
    """Inference says what went wrong as data; no other module of the checker builds a diagnostic or a note."""
    assert _calls("Diagnostic") == [] and _calls("Note") == []


def test_every_mismatch_names_a_subject_reports_words():
    import ast
    from lp.types.reports import CLASH_SUBJECTS
    used = set()
    for file, first in _calls("Mismatch"):
        assert isinstance(first, ast.Constant), file
        assert first.value in CLASH_SUBJECTS, (file, first.value)
        used.add(first.value)
    assert used == set(CLASH_SUBJECTS)


def test_every_one_sentence_kind_renders_its_fields():
    """The kinds worded by a table (reports.ONE_SENTENCE): every placeholder names a field."""
    from lp.syntax.ast import Span
    from lp.types.reports import ONE_SENTENCE, render
    for kind in ONE_SENTENCE:
        args = {f.name: Span("t.lp", 1, 1, 1, 2) if f.name == "span" else 2 if f.type == "int" else "Xyz"
                for f in dataclasses.fields(kind)}
        d = render(kind(**args))
        assert d.title and "{" not in d.message.replace("{ ", ""), (kind, d.message)
        if "near" in args:
            assert d.hint == "did you mean `Xyz`?", kind
