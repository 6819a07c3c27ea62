"""Holes a hostile round found in the checker (hostile12), each closed at its root: rejected when
wrong, with the diagnostic a user sees, and accepted (and run) when right."""
from __future__ import annotations

from tests.soundness.test_families import checked_run
from tests.types.helpers import check_source


def test_a_subclass_reader_of_a_generic_reply_field_must_answer_the_field():
    """`Sub >> reply = 7` would be the address a server replies to: `7 ! 42` at run time."""
    src = """Object subclass: #Req fields: (reply).
Req subclass: #Sub.
Sub >> reply = 7.
srv := Actor spawn: [:me | me receive: { Req -> [:r | r reply ! 42] }].
f := srv ask: Sub new.
"""
    result, text = check_source(src)
    assert [d.title for d in result.diagnostics] == ["override less general"], text
    assert "`Sub >> reply` overrides the reader of the field `reply` of `Req`" in text
    assert "it answers `Integer` whatever the instance holds" in text


def test_a_reader_of_a_field_of_one_type_may_answer_it(tmp_path):
    src = """Object subclass: #Req fields: (n).
Req subclass: #Sub.
Sub >> n = 7.
(Req fields: { n: 1 }) n printNl.
(Sub fields: { n: 2 }) n printNl.
"""
    assert checked_run(src, tmp_path)[:2] == (0, "1\n7\n")


def test_an_error_subclass_message_must_answer_a_string(tmp_path):
    src = """Error subclass: #AppError.
AppError >> message = 3.
(Error try: [AppError raise: 'x'] onError: [:e | e message , '!']) displayNl.
"""
    result, text = check_source(src)
    assert [d.title for d in result.diagnostics] == ["incompatible override"], text
    assert "`AppError >> message` redefines a library method, and its answer is `Integer`" in text
    ok = src.replace("AppError >> message = 3.", "AppError >> message = 'app'.")
    assert checked_run(ok, tmp_path)[:2] == (0, "app!\n")


def test_a_block_given_to_a_program_method_named_like_a_loop_keeps_its_value():
    """`do:`, `ifTrue:ifFalse:` and the like throw their blocks' values away in the library, so the
    checker lets a block's last statement answer anything there; a method of the program with that
    selector may use the value."""
    for src in ["Object subclass: #Coll.\nColl >> do: b = (b value: 1) , '!'.\n((Coll new) do: [:x | x]) displayNl.\n",
                "Object subclass: #Tri.\nTri >> ifTrue: a ifFalse: b = (a value , b value) displayNl.\n"
                "(Tri new) ifTrue: [1] ifFalse: ['s'].\n",
                "Object subclass: #Pool.\nPool class >> spawn: b = b value: 7.\n"
                "(Pool spawn: [:x | x > 5 ifTrue: [1] ifFalse: ['s']]) printNl.\n"]:
        result, text = check_source(src)
        assert result.errors, src


def test_library_loops_still_throw_their_blocks_values_away(tmp_path):
    src = """Object subclass: #Coll.
Coll >> do: b = (b value: 1) , '!'.
((Coll new) do: [:x | x printString]) displayNl.
(#(1 -2) do: [:x | x > 0 ifTrue: [1] ifFalse: ['neg']]) printNl.
"""
    assert checked_run(src, tmp_path)[:2] == (0, "1!\n#(1 -2)\n")
    # a receiver not known yet may be a Coll, whose do: uses the value: the arms must agree
    result, text = check_source(src + "Object subclass: #U.\nU class >> each: c = c do: [:x | x > 0 ifTrue: [1] ifFalse: ['neg']].\n")
    assert "The branches of this `ifTrue:ifFalse:` answer different types" in text


def test_a_class_side_self_answered_by_yourself_or_printnl_may_be_a_subclass():
    for src in ["Error subclass: #AppError fields: (code).\nError class >> boom: s = (self yourself new: s) signal.\n"
                "(AppError try: [AppError boom: 'bad'] onError: [:e | e code + 1]) printNl.\n",
                "Object subclass: #A.\nA subclass: #B fields: (x).\nA class >> me = self printNl.\no := B me new.\n"]:
        result, text = check_source(src)
        assert [d.title for d in result.diagnostics] == ["inherited constructor"], text


def test_on_do_needs_a_block_of_no_arguments(tmp_path):
    result, text = check_source("([:x | x + 1] on: Error do: [:e | 0]) printNl.\n")
    assert "The receiver of `on:do:` is `Block[b -> c]`, but `on:do:` needs `Block[a]`." in text
    assert checked_run("([1 + 1] on: Error do: [:e | 0]) printNl.\n", tmp_path)[:2] == (0, "2\n")
