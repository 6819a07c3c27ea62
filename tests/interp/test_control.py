"""Non-local return, guards (ensure:, ifCurtailed:, try:onError:) and tail calls, on checked programs."""
from __future__ import annotations

import pytest

from tests.interp.helpers import run_source


def out_of(src, tmp_path, **kw):
    status, out, err = run_source(src, tmp_path, **kw)
    assert (status, err) == (0, ""), err
    return out


def test_return_from_a_block_whose_send_is_in_tail_position(tmp_path):
    src = """
    Object subclass: #F.
    F class >> firstBig: a = a detect: [:x | x > 10] ifNone: [^0].
    F class >> viaValue: n = [:k | k > 0 ifTrue: [^'positive']. 'not'] value: n.
    (F firstBig: #(1 20 30)) printNl.
    (F firstBig: #(1 2)) printNl.
    (F viaValue: 3) displayNl.
    (F viaValue: -3) displayNl.
    """
    assert out_of(src, tmp_path) == "20\n0\npositive\nnot\n"


def test_a_loop_that_makes_returning_blocks_runs_in_constant_stack(tmp_path):
    src = """
    Object subclass: #L.
    L class >> loop: n = (
        found := #(1 2 3) detect: [:x | x = 2] ifNone: [^0].
        n = 0 ifTrue: [found] ifFalse: [L loop: n - 1]).
    (L loop: 20000) printNl.
    """
    assert out_of(src, tmp_path, stack_limit=50) == "2\n"


def test_return_through_ensure_and_if_curtailed_runs_the_cleanups(tmp_path):
    src = """
    Object subclass: #F.
    F class >> find: x in: a = (
        [a do: [:e | e = x ifTrue: [^'found']]] ensure: ['ensure ran' displayNl].
        'missing').
    F class >> curtailed: x in: a = (
        [a do: [:e | e = x ifTrue: [^'found']]] ifCurtailed: ['curtailed' displayNl].
        'missing').
    (F find: 2 in: #(1 2 3)) displayNl.
    (F find: 9 in: #(1 2 3)) displayNl.
    (F curtailed: 2 in: #(1 2 3)) displayNl.
    (F curtailed: 9 in: #(1 2 3)) displayNl.
    (Error try: [[Error raise: 'boom'] ifCurtailed: ['curtailed by error' displayNl]] onError: [:e | e message])
        displayNl.
    """
    assert out_of(src, tmp_path) == (
        "ensure ran\nfound\nensure ran\nmissing\ncurtailed\nfound\nmissing\ncurtailed by error\nboom\n")


def test_super_sends_in_tail_position_do_not_grow_the_stack(tmp_path):
    src = """
    Object subclass: #A.
    A subclass: #B.
    A >> down: n = n = 0 ifTrue: ['done'] ifFalse: [self down: n - 1].
    B >> down: n = super down: n.
    (B new down: 100000) displayNl.
    """
    assert out_of(src, tmp_path, stack_limit=50) == "done\n"


def test_a_loop_inside_a_guard_runs_in_constant_stack(tmp_path):
    src = """
    Object subclass: #S.
    S class >> loop: n = n = 0 ifTrue: ['looped'] ifFalse: [S loop: n - 1].
    ([S loop: 100000] ensure: ['cleanup' displayNl]) displayNl.
    (Error try: [S loop: 100000] onError: [:e | e message]) displayNl.
    ([S loop: 100000] ifCurtailed: ['never' displayNl]) displayNl.
    ([[S loop: 100000] ensure: ['inner' displayNl]] ensure: ['outer' displayNl]) displayNl.
    """
    assert out_of(src, tmp_path, stack_limit=50) == "cleanup\nlooped\nlooped\nlooped\ninner\nouter\nlooped\n"


def test_a_loop_inside_an_ensure_block_runs_in_constant_stack(tmp_path):
    src = """
    Object subclass: #S.
    S class >> loop: n = n = 0 ifTrue: ['cleanup looped' displayNl] ifFalse: [S loop: n - 1].
    ([ 'body' ] ensure: [S loop: 100000]) displayNl.
    """
    assert out_of(src, tmp_path, stack_limit=50) == "cleanup looped\nbody\n"


def test_actor_exit_runs_ensure_blocks(tmp_path):
    src = """
    me := Actor self.
    w := Actor spawn: [:a | [Actor exit: #normal] ensure: [me ! #cleaned]].
    me receive: { #cleaned -> [:m | 'worker cleaned up' displayNl] }.
    [ 'main body' displayNl. Actor exit: #normal ] ensure: [ 'main cleanup' displayNl ].
    'not reached' displayNl.
    """
    assert out_of(src, tmp_path) == "worker cleaned up\nmain body\nmain cleanup\n"


def test_actor_exit_is_not_caught_by_try_on_error(tmp_path):
    src = """
    (Error try: [Actor exit: #normal] onError: [:e | 'caught' displayNl]) displayNl.
    'not reached' displayNl.
    """
    assert out_of(src, tmp_path) == ""


def test_a_return_or_an_error_in_a_cleanup_does_not_cancel_actor_exit(tmp_path):
    # docs/interpreter.md: Actor exit: runs the cleanups, then ends the actor with the reason
    src = """
    Object subclass: #A.
    A >> m = ([Actor exit: #normal] ensure: [^ 5]).
    A >> n = ([Actor exit: (Error new: 'fatal')] ifCurtailed: ['cleaned' displayNl. ^ 6]).
    me := Actor self.
    ws := { Actor spawn: [:x | me ! (Error try: [[Actor exit: #killed] ensure: [Error raise: 'in cleanup']] onError: [:e | 7])].
      Actor spawn: [:x | me ! A new m].
      Actor spawn: [:x | me ! A new n] }.
    ws do: [:w | me monitor: w].
    3 timesRepeat: [me receive: { Integer -> [:i | i printNl]. Down -> [:d | d reason isNormal printNl] }].
    A new m printNl.
    'after exit' displayNl.
    """
    status, out, err = run_source(src, tmp_path)   # stderr may note a worker died before its monitor
    assert (status, sorted(out.splitlines())) == (0, ["cleaned", "false", "false", "true"]), err


def test_return_from_a_block_run_by_another_actor_is_an_error_there(tmp_path):
    src = """
    Object subclass: #F.
    F class >> lend: me = (
        blk := [:x | ^x].
        Actor spawn: [:a | me ! (Error try: [blk value: 'escaped'. 'returned'] onError: [:e | e message])].
        me receive: { String -> [:s | s] }).
    (F lend: Actor self) displayNl.
    """
    assert out_of(src, tmp_path) == (
        "`^` in a block run by another actor: it can only return from a method of the actor that created the block\n")


USER_CONTROL = """
Object subclass: #Fuzzy fields: (p).
Fuzzy >> ifTrue: a ifFalse: b = self p > 0.5 ifTrue: [a value] ifFalse: [b value].
Fuzzy >> and: blk = self p > 0.5 and: blk.
Fuzzy >> to: n do: blk = (blk value: n. #fuzzyLoop).
Fuzzy >> timesRepeat: blk = (blk value. #fuzzyTimes).
Object subclass: #F.
F class >> pick: f = f ifTrue: [^'returned from the fallback block'] ifFalse: ['no'].
x := 7.
f := Fuzzy fields: { p: 0.9 }.
(f ifTrue: ['yes ', x printString] ifFalse: ['no']) displayNl.
((Fuzzy fields: { p: 0.1 }) ifTrue: ['yes'] ifFalse: ['no ', x printString]) displayNl.
(f and: [x > 3]) printNl.
(f to: 3 do: [:i | i printNl]) printNl.
(f timesRepeat: ['once' displayNl]) printNl.
(F pick: f) displayNl.
(1 to: 2 do: [:i | i printNl]) printNl.
"""


def test_control_messages_to_a_user_class_are_real_sends(tmp_path):
    # The interpreter inlines these selectors for Booleans and Integers; any other receiver gets
    # the real send; the checker types them as sends to the user class.
    assert out_of(USER_CONTROL, tmp_path) == (
        "yes 7\nno 7\ntrue\n3\n#fuzzyLoop\nonce\n#fuzzyTimes\nreturned from the fallback block\n1\n2\n1\n")


def test_a_control_message_to_a_value_without_it_does_not_understand(tmp_path):
    status, out, err = run_source("(3 ifTrue: ['x'] ifFalse: ['y']) displayNl.", tmp_path, check=False)
    assert status == 1 and "the Integer 3 does not understand #ifTrue:ifFalse:" in err, err
    status, out, err = run_source("('a' to: 3 do: [:i | i printNl]) printNl.", tmp_path, check=False)
    assert status == 1 and "does not understand #to:do:" in err, err
    status, out, err = run_source("(1 to: 'z' do: [:i | i printNl]) printNl.", tmp_path, check=False)
    assert status == 1 and "a loop bound must be an Integer, not the String 'z'" in err, err


def test_super_send_nobody_implements_names_where_it_looked(tmp_path):
    src = "Object subclass: #Animal.\nAnimal subclass: #Dog.\nDog >> speak = super speak.\nDog new speak.\n"
    status, out, err = run_source(src, tmp_path, check=False)
    assert status == 1
    assert ("a Dog does not understand #speak through super: Animal and its superclasses define no such method\n"
            in err), err
    assert "did you mean" not in err


def test_counting_loops_end_at_the_largest_integer_without_overflow(tmp_path):
    # the index after the last is never computed: a loop up to 2^63-1 ends normally
    src = """
    9223372036854775806 to: 9223372036854775807 do: [:i | i printNl].
    b := [:i | i printNl].
    9223372036854775806 to: 9223372036854775807 do: b.
    'done' displayNl.
    """
    assert run_source(src, tmp_path) == (0, "9223372036854775806\n9223372036854775807\n" * 2 + "done\n", "")


@pytest.mark.parametrize("domains", [1, 2])
def test_exit_signals_end_an_actor_without_cleanups_but_actor_exit_runs_them(tmp_path, domains):
    # docs/language.md: a signal ends the actor where it stands (Erlang); Actor exit: unwinds
    src = """
    me := Actor self.
    a := Actor spawn: [:x | [x exit: (Error new: 'self signal'). 'not reached' displayNl] ensure: ['a cleanup' displayNl]].
    b := Actor spawn: [:x | [me ! #inside. x receive: { #never -> [:s | s] }] ensure: ['b cleanup' displayNl]].
    c := Actor spawn: [:x | [Actor exit: #killed] ensure: ['c cleanup' displayNl]].
    { a. b. c } do: [:w | me monitor: w].
    me receive: { #inside -> [:s | nil] }.
    b exit: #killed.
    3 timesRepeat: [me receive: { Down -> [:d | d reason printNl] }].
    """
    status, out, err = run_source(src, tmp_path, domains=domains)
    assert status == 0, err
    assert sorted(out.splitlines()) == sorted(["Error(message: 'self signal')", "#killed", "c cleanup", "#killed"])
