"""The core language on the interpreter: values, classes, blocks, errors, tail calls and the stack."""
from __future__ import annotations

import pytest

from tests.interp.helpers import run_source


def out_of(src, tmp_path, **kw):
    status, out, err = run_source(src, tmp_path, **kw)
    assert (status, err) == (0, ""), err
    return out


def test_arithmetic_and_overflow(tmp_path):
    src = """
    (7 // 2) printNl. (-7 // 2) printNl. (7 \\\\ 2) printNl. (-7 \\\\ 2) printNl. (7 / 2) printNl.
    (1 + 2.5) printNl.
    """
    assert out_of(src, tmp_path) == "3\n-4\n1\n1\n3.5\n3.5\n"
    status, out, err = run_source("(9223372036854775807 + 1) printNl.", tmp_path)
    assert status == 1 and "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits" in err
    status, out, err = run_source("(-9223372036854775807 - 2) printNl.", tmp_path)
    assert status == 1 and "integer overflow" in err
    status, out, err = run_source("(4611686018427387904 * 2) printNl.", tmp_path)
    assert status == 1 and "integer overflow" in err
    assert out_of("(9223372036854775806 + 1) printNl.", tmp_path) == "9223372036854775807\n"


def test_printing(tmp_path):
    src = """
    'it''s' printNl. 'it''s' displayNl. #ping printNl. #at:put: printNl. $a printNl. 3.0 printNl.
    #(1 $a #b 'c' (1 2)) printNl. nil printNl. true printNl.
    Object subclass: #Point fields: (x y).
    (Point fields: { x: 1. y: 2 }) printNl.
    (Maybe some: 3) printNl. Maybe none printNl. (1 -> 2) printNl.
    ((Dictionary new at: #a put: 1) at: #b put: 2) printNl.
    """
    # unchecked: a literal array mixing element types is ill-typed; this checks the printer alone
    assert out_of(src, tmp_path, check=False) == (
        "'it''s'\nit's\n#ping\n#at:put:\n$a\n3.0\n#(1 $a #b 'c' #(1 2))\nnil\ntrue\nPoint(x: 1, y: 2)\n"
        "Maybe some: 3\nMaybe none\n1 -> 2\nDictionary(#a -> 1, #b -> 2)\n")
    # `$` and a NUL byte is not LP source (a file holding a NUL is refused)
    assert out_of("0 asCharacter printNl. 0 asCharacter displayString size printNl.", tmp_path) == \
        "(0 asCharacter)\n1\n"


def test_classes_inheritance_super_and_structural_equality(tmp_path):
    src = """
    Object subclass: #Shape fields: (name).
    Shape subclass: #Circle fields: (r).
    Shape >> describe = 'a shape called ' , self name.
    Circle >> describe = super describe , ' with radius ' , self r printString.
    Circle class >> unit = Circle fields: { name: 'unit'. r: 1 }.
    Circle unit describe displayNl.
    (Circle unit = Circle unit) printNl.
    (Circle unit == Circle unit) printNl.
    ((Circle unit with: { r: 2 }) r) printNl.
    (Circle unit isKindOf: Shape) printNl.
    """
    assert out_of(src, tmp_path) == "a shape called unit with radius 1\ntrue\nfalse\n2\ntrue\n"


def test_bindings_shadow_and_blocks_capture_values(tmp_path):
    src = """
    x := 1.
    b := [x].
    x := 2.
    b value printNl.
    x printNl.
    adder := [:a | [:b | a + b]].
    ((adder value: 10) value: 5) printNl.
    """
    assert out_of(src, tmp_path) == "1\n2\n15\n"


def test_collections(tmp_path):
    src = """
    a := #(3 1 2).
    (a collect: [:x | x * 10]) printNl.
    (a select: [:x | x > 1]) printNl.
    (a inject: 0 into: [:s :x | s + x]) printNl.
    (a detect: [:x | x > 5] ifNone: ['none']) printNl.
    (a with: 4) printNl. a printNl.
    ('a,b,c' splitOn: ',') printNl. '  hi  ' trim printNl. ('abc' includesSubstring: 'bc') printNl.
    'x' asSymbol printNl. '42' asInteger printNl. ('one
    two' lines) size printNl.
    d := Dictionary new at: #k put: 1.
    (d at: #k) printNl. (d at: #z ifAbsent: [0]) printNl. (d at: #k put: 2) printNl. d printNl.
    ((Maybe some: 3) valueOr: 0) printNl. (Maybe none valueOr: 0) printNl.
    (JSON encode: #(1 'a' true nil)) displayNl.
    ((JSON decode: '{"a": [1, 2.5]}') at: 'a') printNl.
    """
    # unchecked: mixes element types on purpose to check run-time behaviour
    assert out_of(src, tmp_path, check=False) == (
        "#(30 10 20)\n#(3 2)\n6\n'none'\n#(3 1 2 4)\n#(3 1 2)\n#('a' 'b' 'c')\n'hi'\ntrue\n#x\n42\n2\n"
        "1\n0\nDictionary(#k -> 2)\nDictionary(#k -> 1)\n3\n0\n[1,\"a\",true,null]\n#(1 2.5)\n")


def test_errors_try_ensure_and_classes(tmp_path):
    src = """
    Error subclass: #TooSlow.
    (Error try: [1 / 0] onError: [:e | e message]) displayNl.
    (Error try: [TooSlow raise: 't'] onError: [:e | e class name]) displayNl.
    (Error try: [TooSlow try: [Error raise: 'plain'] onError: [:e | 'wrong']] onError: [:e | 'outer ' , e message])
        displayNl.
    ([ 'body' ] ensure: [ 'ensure ran' displayNl ]) displayNl.
    (Error try: [[Error raise: 'x'] ensure: ['cleanup' displayNl]] onError: [:e | 'caught ' , e message]) displayNl.
    """
    # unchecked: `1 / 0` answers a Float where the handler answers a String: run-time check
    assert out_of(src, tmp_path, check=False) == (
        "division by zero\nTooSlow\nouter plain\nensure ran\nbody\ncleanup\ncaught x\n")


def test_non_local_return(tmp_path):
    src = """
    Object subclass: #F.
    F class >> find: x in: a = (a do: [:e | e = x ifTrue: [^'found']]. 'missing').
    (F find: 2 in: #(1 2 3)) displayNl.
    (F find: 9 in: #(1 2 3)) displayNl.
    F class >> escaper = [:v | ^v].
    (Error try: [F escaper value: 3] onError: [:e | e message]) displayNl.
    """
    # unchecked: `escaper` is ill-typed (its ^ makes the method's type infinite): checks the run-time error
    assert out_of(src, tmp_path, check=False) == "found\nmissing\n`^` returns from a method that has already returned\n"


def test_tail_calls_do_not_grow_the_stack(tmp_path):
    src = """
    Object subclass: #L.
    L class >> count: n to: m = n >= m ifTrue: [n] ifFalse: [L count: n + 1 to: m].
    L class >> viaBlock: n = n = 0 ifTrue: ['block loop done'] ifFalse: [[:k | L viaBlock: k] value: n - 1].
    L class >> viaCascade: n = n = 0 ifTrue: [0] ifFalse: [L yourself; viaCascade: n - 1].
    (L count: 0 to: 300000) printNl.
    (L viaBlock: 100000) displayNl.
    (L viaCascade: 100000) printNl.
    """
    assert out_of(src, tmp_path, stack_limit=50) == "300000\nblock loop done\n0\n"


def test_deep_recursion_and_stack_overflow(tmp_path):
    src = """
    Object subclass: #R.
    R class >> sum: n = n = 0 ifTrue: [0] ifFalse: [n + (R sum: n - 1)].
    (R sum: 100000) printNl.
    (R sum: 300000) printNl.
    """
    status, out, err = run_source(src, tmp_path)
    assert status == 1
    assert out == "5000050000\n"
    assert "prog.lp:3:58: Error: stack overflow: more than 200000 nested calls" in err
    assert "R class >> sum:" in err and "[199999 times]" in err
    assert len(err.splitlines()) < 15


def test_uncaught_error_reports_location_and_stack(tmp_path):
    src = "Object subclass: #F.\nF class >> boom: x = x frobnicate.\n'before' displayNl.\nF boom: 3.\n'after' displayNl.\n"
    # unchecked: sends an unknown selector on purpose
    status, out, err = run_source(src, tmp_path, check=False)
    assert status == 1 and out == "before\n"
    lines = err.splitlines()
    assert lines[0].endswith("prog.lp:2:22: Error: the Integer 3 does not understand #frobnicate")
    assert "2 | F class >> boom: x = x frobnicate." in err
    assert any("F class >> boom:" in x for x in lines) and any(x.strip().startswith("main") for x in lines)


@pytest.mark.parametrize("rep", range(6))
def test_ctrl_c_stops_a_running_program(tmp_path, rep):
    # the signal comes as soon as the program prints, while the runtime's threads are busy:
    # it was once lost (a hang) or the runtime outlived the interpreter (a crash at exit)
    import os
    import signal
    import subprocess
    import sys
    from tests.conftest import ROOT
    prog = tmp_path / "wait.lp"
    prog.write_text("'waiting' displayNl.\nActor sleep: 600000.\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "lp", "run", str(prog)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    assert p.stdout.readline() == b"waiting\n"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 130
    assert b"lp: interrupted" in err and b"Traceback" not in err


def test_main_actor_ended_by_a_link_or_exit_reports_and_fails(tmp_path):
    src = ("c := Actor spawn: [:me | me receive. Error raise: 'child failed'].\n"
           "Actor self linkTo: c.\nc ! 1.\nActor self receive.\n'not reached' displayNl.\n")
    status, out, err = run_source(src, tmp_path)
    assert (status, out) == (1, "")
    assert err == f"lp: the main actor ended abnormally (Error: child failed) at {tmp_path / 'prog.lp'}:1:38\n"
    status, out, err = run_source("'a' displayNl.\nActor exit: (Error new: 'bye').\n'b' displayNl.\n", tmp_path)
    assert (status, out) == (1, "a\n")
    assert err.startswith("lp: the main actor ended abnormally (Error: bye) at ")
    assert run_source("'a' displayNl.\nActor exit: #normal.\n'b' displayNl.\n", tmp_path) == (0, "a\n", "")
