"""Method groups join only the methods a send may run (lp/types/method_graph.py, issue 10).

Methods of one group are typed monomorphically together, so unrelated classes sharing a selector
must not be joined: a recursion through `serve` in one class once grouped every `serve` of the
standard library, and a generic helper used at two types there was refused. A send whose
receiver's class the syntax does not tell still reaches every method of that name.
"""
from __future__ import annotations

from lp.syntax.parser import parse_text
from lp.types.check import Checker, assemble
from tests.interp.helpers import run_source
from tests.types.helpers import check_source

# `Loop >> keep:` is generic; `Other >> keep:` shares its selector and calls `Loop >> run`, which
# uses `keep:` at two types. By selector name alone the three methods were one group.
SHARED_SELECTOR = """Object subclass: #Loop fields: (n).
Object subclass: #Other fields: (s).
Loop >> keep: x = self n > 3 ifTrue: [x] ifFalse: [(Loop fields: { n: self n + 1 }) keep: x].
Loop >> run = (self keep: 1) + (self keep: 'abc') size.
Other >> keep: x = (((Loop fields: { n: 0 }) run) printNl. x).
(Other fields: { s: 'a' }) keep: 2.
"""

# The shape of stdlib/sqlite_grain_store.lp's lease loop: a unary `serve` recursing through what
# methods of its class answer (a `with:` copy, a branch), next to another class's `serve` that
# uses a generic method at two types.
SERVE_LOOP = """Object subclass: #Beat fields: (n).
Object subclass: #Conn fields: (k).
Beat >> bump = self with: { n: self n + 1 }.
Beat >> renewed = self n > 5 ifTrue: [self] ifFalse: [self bump].
Beat >> serve = self n > 3 ifTrue: [self n] ifFalse: [self renewed serve].
Conn >> wrap: x = ((Beat fields: { n: 0 }) serve printNl. x).
Conn >> serve = (self wrap: 1) + (self wrap: 'ab') size.
(Conn fields: { k: 2 }) serve printNl.
"""


def groups_of(src):
    ck = Checker(assemble())
    items = list(parse_text(src, "test.lp").items)
    ck.declare(items)
    return [sorted(f"{m.cls.name}{' class' if m.class_side else ''}>>{m.decl.selector}" for m in g)
            for g in ck.method_groups()]


def joined(src, a, b):
    return any(a in g and b in g for g in groups_of(src))


def test_a_shared_selector_does_not_join_unrelated_classes(tmp_path):
    assert not joined(SHARED_SELECTOR, "Loop>>keep:", "Other>>keep:")
    result, text = check_source(SHARED_SELECTOR)
    assert result.diagnostics == [], text
    assert run_source(SHARED_SELECTOR, tmp_path, domains=1) == (0, "4\n", "")


def test_a_loop_through_answers_of_its_own_class(tmp_path):
    assert not joined(SERVE_LOOP, "Beat>>serve", "Conn>>serve")
    result, text = check_source(SERVE_LOOP)
    assert result.diagnostics == [], text
    assert run_source(SERVE_LOOP, tmp_path, domains=1) == (0, "4\n4\n3\n", "")


def test_an_error_in_the_narrowed_group_is_still_reported():
    src = SHARED_SELECTOR.replace("(self keep: 'abc') size", "(self keep: 'abc')")
    result, text = check_source(src)
    assert [d.title for d in result.errors] == ["type mismatch"], text
    assert "The argument of `+` is `String`, but `+` on `Integer` needs a number" in text


def test_a_receiver_the_syntax_does_not_tell_reaches_every_method_of_the_name():
    assert not joined(SHARED_SELECTOR, "Loop>>run", "Other>>keep:")
    src = SHARED_SELECTOR.replace("Loop >> run = (self keep: 1)", "Loop >> run = (self poke: self) + (self keep: 1)")
    src += "Loop >> poke: y = y keep: 0.\n"
    assert joined(src, "Loop>>run", "Other>>keep:")   # y may be an Other, whose keep: calls run


def test_a_class_reaches_its_hierarchy_and_super_the_superclass_chain():
    src = """Object subclass: #A fields: (n).
A subclass: #B.
Object subclass: #C fields: (a).
A >> go = self n > 0 ifTrue: [(A fields: { n: self n - 1 }) go] ifFalse: [(C fields: { a: self }) go].
B >> go = super go.
C >> go = self a n.
"""
    gs = groups_of(src)
    assert ["A>>go", "B>>go"] in gs   # an A may be a B (its override runs); B's super runs A's
    assert ["C>>go"] in gs            # C's go sends no go
    src2 = src.replace("B >> go = super go.", "B >> go = 5.")
    assert ["B>>go"] in groups_of(src2)


def test_class_side_sends_reach_the_class_side_and_object():
    src = """Object subclass: #M.
Object subclass: #N.
M class >> make = N make.
N class >> make = M new.
N >> make = 3.
(M make) printNl.
"""
    gs = groups_of(src)
    assert not any("N>>make" in g and len(g) > 1 for g in gs)
