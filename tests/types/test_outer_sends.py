"""A method's own variables meeting a field's type through a send stay generic (constraints.OuterSend).

`P >> add: y = self x + y` waits on the field `x`'s type. The send's argument and answer used to be
pulled down to the field's level, so the first call fixed `y` for the whole program and `p add: 2.5`
after `p add: 3` was refused. Each call now types its own copy of the send."""
from __future__ import annotations

from tests.interp.helpers import run_source
from tests.types.helpers import check_source

ADD = """Object subclass: #P fields: (x).
P >> add: y = self x + y.
p := P fields: { x: 3 }.
"""


def test_integer_and_float_arguments_each_get_their_answer(tmp_path):
    src = ADD + "(p add: 3) printNl.\n(p add: 2.5) printNl.\n(p add: 2.5) class printNl.\n"
    result, text = check_source(src)
    assert not result.diagnostics, text
    status, out, err = run_source(src, tmp_path)
    assert (status, out) == (0, "6\n5.5\nFloat\n"), err


def test_through_another_method_a_block_and_recursion(tmp_path):
    src = ADD + """P >> add2: y = self add: y.
P >> count: n acc: a = n = 0 ifTrue: [a] ifFalse: [self count: n - 1 acc: a + self x].
(p add2: 1) printNl.
(p add2: 0.5) printNl.
(#(1.5 2.5) collect: [:k | p add2: k]) printNl.
(p count: 2 acc: 0) printNl.
(p count: 2 acc: 0.5) printNl.
"""
    result, text = check_source(src)
    assert not result.diagnostics, text
    assert run_source(src, tmp_path)[:2] == (0, "4\n3.5\n#(4.5 5.5)\n6\n6.5\n")


def test_an_argument_the_send_cannot_take_is_refused_at_the_call():
    _, text = check_source(ADD + "(p add: 'z') printNl.\n")
    assert "The argument of `+` is `String`, but `+` on `Integer` needs a number" in text
    assert "4 | (p add: 'z') printNl." in text


def test_a_string_field_still_fixes_its_method_argument():
    src = """Object subclass: #S fields: (s).
S >> join: y = self s , y.
q := S fields: { s: 'a' }.
(q join: 'b') printNl.
(q join: 3) printNl.
"""
    _, text = check_source(src)
    assert "The 1st argument of `join:` is `Integer`, but `S >> join:` needs `String`." in text


def test_a_method_nobody_calls_is_still_checked_against_a_field_another_method_fixes():
    """`hi` builds an S with a String: the field is one type per program, String, and `bad:` is
    checked against it, called or not."""
    src = """Object subclass: #S fields: (s).
S >> bad: y = self s + y.
S class >> hi = S fields: { s: 'hi' }.
q := S fields: { s: 'a' }.
q s printNl.
"""
    _, text = check_source(src)
    assert "`String` does not understand `+`." in text


def test_a_field_only_outer_sends_use_is_a_type_parameter():
    """A field whose methods only send it messages with their own arguments (`self s + y`,
    `self v , x`) is left open by them: the class is generic in it, each instance has its own type,
    and a method is checked where it is called on an instance its sends do not fit."""
    src = """Object subclass: #S fields: (s).
S >> bad: y = self s + y.
q := S fields: { s: 'a' }.
q s printNl.
"""
    assert check_source(src)[1] == ""
    _, text = check_source(src + "(q bad: 1) printNl.\n")
    assert "`String` does not understand `+`." in text and "3 | q := S fields: { s: 'a' }." in text
    box = """Object subclass: #Box fields: (v).
Box >> put: x = self with: { v: self v , x }.
a := (Box fields: { v: #(1) }) put: #(2).
b := (Box fields: { v: 'a' }) put: 'b'.
(a v at: 2) printNl.
(b v , 'c') printNl.
"""
    assert check_source(box)[1] == ""
    _, text = check_source(box + "((Box fields: { v: 'a' }) put: #(1)) printNl.\n")
    assert "The 1st argument of `put:` is `Array[Integer]`, but `Box >> put:` needs `String`." in text


def test_a_method_an_override_is_compared_with_keeps_one_type():
    """An override is checked against the method it overrides, so that method's type stays the one
    the field gives it (`-> String`, not `-> a`)."""
    src = """Object subclass: #Shape fields: (name n).
Shape subclass: #Rect fields: (w).
Shape >> describe = self name , ' of area'.
Shape >> grow: k = self n + k.
Rect >> describe = 'rect: ' , super describe.
Rect >> grow: k = 3.
(Rect fields: { name: 'r'. n: 1. w: 2 }) describe displayNl.
((Rect fields: { name: 'r'. n: 1. w: 2 }) grow: 1) printNl.
"""
    result, text = check_source(src)
    assert not result.diagnostics, text
