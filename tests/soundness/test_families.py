"""One checked program per soundness family of issue 10, run: none may fail with a run-time type error.

The last three needed run-time changes (asNumber answers a Float, a literal receive key matches
its own class only, user classes' control selectors are real sends); they check the output too.
"""
from __future__ import annotations

import pytest

from tests.soundness.runner import TYPE_ERRORS
from tests.interp.helpers import run_source
from tests.types.helpers import check_source


def checked_run(src, tmp_path):
    result, text = check_source(src, "prog.lp")
    assert not result.diagnostics, text
    status, out, err = run_source(src, tmp_path, domains=1, quiet=False)
    assert not TYPE_ERRORS.search(err), err
    return status, out, err


PASSING = {
    "float floor division": "(7.5 // 2) isNaN printNl.",
    "class-side printNl": "Object subclass: #P fields: (x).\n(P printNl) name size printNl.",
    "Object method on its one class": "Object subclass: #A.\nA >> foo = 1.\nObject >> bar = self foo.\n"
                                      "A new bar even printNl.",
    "Error subclass built with fields": "Error subclass: #E fields: (code).\n"
                                        "(E try: [(E fields: { message: 'x'. code: 4 }) raise] "
                                        "onError: [:e | e code]) even printNl.",
    "method on Number runs on Integer and Float": "Number >> inc = self + 1.\nNumber >> hello = 'hi'.\n"
                                                  "(3 inc) even printNl.\n(2.5 inc) isNaN printNl.\n"
                                                  "3 hello size printNl.\n2.5 hello size printNl.",
    "Object method sent to a class": "Object subclass: #Point fields: (x y).\n"
                                     "Object >> describe = self printString , '!'.\nPoint describe size printNl.",
    "field overriding a method of its type": "Object subclass: #Shape.\nShape >> name = 'shape'.\n"
                                             "Shape >> describe = self name , '!'.\n"
                                             "Shape subclass: #Named fields: (name).\n"
                                             "(Named fields: { name: 'c' }) describe size printNl.",
    "class-side new on Object": "Object class >> new = 3.\nObject subclass: #A.\n(A new + 1) printNl.",
    "class-side new: on Error": "Error class >> new: s = 3.\nError subclass: #E.\n((E new: 'x') + 1) printNl.",
    "class-side signal: on Error": "Error class >> signal: s = 'not raised'.\n(Error signal: 'x') size printNl.",
    "Block entry of one arity": "srv := Actor spawn: [:me | me receive: { Block -> [:b | (b value: 3) printNl] }].\n"
                                "srv ! [:x | x + 1].\nActor sleep: 50.",
}


@pytest.mark.parametrize("name", sorted(PASSING))
def test_family_runs_without_type_errors(name, tmp_path):
    status, out, err = checked_run(PASSING[name], tmp_path)
    assert status == 0, err


def test_as_number_answers_a_float(tmp_path):
    status, out, err = checked_run("('3' asNumber) isNaN printNl.\n'3' asNumber printNl.\n"
                                   "'-2.5' asNumber printNl.", tmp_path)
    assert (status, out) == (0, "false\n3.0\n-2.5\n"), err


def test_integer_literal_entry_does_not_take_a_float(tmp_path):
    status, out, err = checked_run("srv := Actor spawn: [:me | 2 timesRepeat: [me receive: { 1 -> [:n | (n bitAnd: 1) printNl]. "
                "Float -> [:f | f isNaN printNl] } after: 500 do: [nil]]].\nsrv ! 1.0.\nsrv ! 2.5.\n"
                "Actor sleep: 100.", tmp_path)
    assert out == "false\nfalse\n"


def test_user_class_control_selectors_are_real_sends(tmp_path):
    status, out, err = checked_run("Object subclass: #T.\nT >> ifTrue: a ifFalse: b = 42.\nT >> and: blk = 'and'.\n"
                "T >> to: x do: blk = 'loop'.\n((T new) ifTrue: [1] ifFalse: [2]) even printNl.\n"
                "((T new) and: [true]) size printNl.\n((T new) to: 3 do: [:i | i]) size printNl.", tmp_path)
    assert out == "true\n3\n4\n"


def test_resolve_answers_the_value_it_gives(tmp_path):
    # the primitive answers the value, so its type is the value's (it was typed UndefinedObject)
    status, out, err = checked_run("p := Promise new.\n((p resolve: 8) + 1) printNl.\np future await printNl.", tmp_path)
    assert (status, out) == (0, "9\n8\n"), err


def test_string_new_is_the_empty_string(tmp_path):
    """`new` makes empty collections (docs/library.md), a String among them (hostile report 2, finding 27)."""
    status, out, err = checked_run("s := String new.\ns isEmpty printNl.\n(s , 'ab') printNl.", tmp_path)
    assert (status, out) == (0, "true\n'ab'\n"), err


def test_builtin_new_without_the_checker_is_an_lp_error(tmp_path):
    """Run unchecked, `Symbol new` is the error the checker gives, not an instance of Symbol with no value."""
    status, out, err = run_source("Symbol new printNl.", tmp_path, domains=1, quiet=False, check=False)
    assert status != 0 and "Symbol instances are not made with new" in err and "Traceback" not in err


def test_record_sends_in_a_cascade(tmp_path):
    """`fields:` / `with:` with a record are typed in a cascade as anywhere (hostile report 2, finding 28)."""
    status, out, err = checked_run("Object subclass: #P fields: (x).\n(P fields: { x: 1 }; yourself) printNl.\n"
                                   "((P fields: { x: 1 }) yourself; with: { x: 2 }) printNl.", tmp_path)
    assert (status, out) == (0, "P\nP(x: 2)\n"), err
