"""A class is generic in a field its methods send messages to (docs/types.md "Generic classes").

The sends are typed per instance, as a method argument's are: a Stack whose `topPlus` sends its top
element `+ 1` holds Integers, Floats and Strings in one program, and `topPlus` on the Strings is the
error. An override of an inherited selector keeps its class's fields one type per program (the
override check compares on that type). The fallback to one type per field when the generic reading
finds errors in a class's own methods is what lets stdlib/reliable.lp check clean
(tests/types/test_seeds_and_examples.py::test_stdlib_module_checks)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.interp.helpers import run_source
from tests.types.helpers import check_source

PROGRAM = Path(__file__).parents[1] / "native" / "programs" / "generic_sends.lp"


def test_one_stack_class_holds_several_element_types(tmp_path):
    src = PROGRAM.read_text()
    result, text = check_source(src)
    assert not result.diagnostics, text
    status, out, err = run_source(src, tmp_path)
    assert (status, out) == (0, "3\n2.5\n3\n#('A' 'B')\nb!\n3\n1.25\n"), err


STACK = """Object subclass: #Stack fields: (items).
Stack >> topPlus = self items last + 1.
Stack >> top = self items last.
ints := Stack fields: { items: #(1 2) }.
words := Stack fields: { items: #('a') }.
(ints topPlus + words top size) printNl.
"""


def test_a_send_an_instance_does_not_fit_is_the_error_at_the_send_pointing_at_the_instance():
    assert check_source(STACK)[1] == ""
    result, text = check_source(STACK + "words topPlus printNl.\n")
    assert len(result.diagnostics) == 1, text
    assert "`String` does not understand `+`." in text
    assert "2 | Stack >> topPlus = self items last + 1." in text
    assert "5 | words := Stack fields: { items: #('a') }." in text


def test_a_field_a_method_builds_with_one_type_is_not_a_parameter():
    src = """Object subclass: #Counter fields: (n).
Counter class >> zero = Counter fields: { n: 0 }.
Counter >> inc = self with: { n: self n + 1 }.
a := Counter zero inc.
b := Counter fields: { n: 2.5 }.
"""
    _, text = check_source(src)
    assert "`Counter`'s field `n` holds `Integer`" in text


def test_an_override_keeps_the_fields_its_answer_reads_one_type():
    """Generic in v, `A >> tag` would answer an Integer for an A of Integers where `Object >> tag`,
    which `shout` calls, answers a String: `self tag , '!'` would fail at run time."""
    src = """Object subclass: #A fields: (v).
Object >> tag = 'obj'.
Object >> shout = self tag , '!'.
A >> tag = self v first.
(A fields: { v: #(1 2) }) shout displayNl.
"""
    _, text = check_source(src)
    assert "This expression is `Integer`, but the way its value is used needs `String`." in text


def test_a_block_field_two_methods_call_with_two_arities(tmp_path):
    """One type per field, `run2:` and `run1:` clash in the first pass; generic, each instance has
    its own block type (hostile12 finding 11)."""
    src = """Object subclass: #Handler fields: (fn).
Handler >> run2: x = self fn value: x value: x.
Handler >> run1: x = self fn value: x.
h := Handler fields: { fn: [:a :b | a + b] }.
(h run2: 3) printNl.
k := h with: { fn: [:a | a * 10] }.
(k run1: 3) printNl.
"""
    result, text = check_source(src)
    assert not result.diagnostics, text
    assert run_source(src, tmp_path)[:2] == (0, "6\n30\n")
    result, text = check_source(src + "(k run2: 3) printNl.\n")
    assert "`Handler >> run2:` only works on `Handler[Block[a, a -> b]]`, but this receiver is " \
        "`Handler[Block[Integer -> Integer]]`." in text, text


LIST = (Path(__file__).parents[1] / "native" / "programs" / "generic_lists.lp").read_text()


def test_a_field_holding_its_own_class_holds_it_with_the_instance_parameters(tmp_path):
    """`Node`'s tail is a `Maybe[Node[a]]` of a `Node[a]` (hostile12 finding 8: `length` worked on one
    element type per program, since the tail held Nodes of one type)."""
    result, text = check_source(LIST)
    assert not result.diagnostics, text
    assert run_source(LIST, tmp_path)[:2] == (0, "5\n#(3 2 1)\n#('b!' 'a!')\n#('3' '2' '1')\n5.0\n")
    result, text = check_source(LIST + "((Node of: 1) push: 'x') length printNl.\n")
    assert len(result.diagnostics) == 1 and "`String`" in text and "`Integer`" in text, text


RECURSING = {
    # a tree whose kids a class method shows to hold Trees: each copy of `values`'s send to the kids
    # called `values` again, whose instance copied the send again (lp check ran out of memory)
    "tree": ("""Object subclass: #Tree fields: (v kids).
Tree class >> leaf: x = Tree fields: { v: x. kids: #() }.
Tree >> map: b = Tree fields: { v: (b value: self v). kids: (self kids collect: [:k | k map: b]) }.
Tree >> values = self kids inject: { self v } into: [:all :k | all , k values].
((Tree leaf: 1) map: [:x | x printString]) values printNl.
""", []),
    # hostile12b: a trie (kids in a Dictionary), a list summed with a String inside, two classes holding
    # each other with an error elsewhere
    "trie": ("""Object subclass: #T fields: (v kids).
T >> map: b = T fields: { v: (b value: self v). kids: (self kids associations inject: Dictionary new into: [:d :a | d at: a key put: (a value map: b)]) }.
T >> size = self kids associations inject: 1 into: [:n :a | n + a value size].
t := T fields: { v: 1. kids: Dictionary new at: 'a' put: (T fields: { v: 2. kids: Dictionary new }) }.
t size printNl.
""", []),
    "sum": ("""Object subclass: #Node fields: (head tail).
Node >> sum = self tail ifPresent: [:t | self head + t sum] ifAbsent: [self head].
n := Node fields: { head: 1. tail: Maybe some: (Node fields: { head: 'x'. tail: Maybe none }) }.
n sum printNl.
""", ["`String` does not understand `+`."]),
    "mutual": ("""Object subclass: #A fields: (x b).
Object subclass: #B fields: (a).
A >> depth = self b ifPresent: [:bb | bb depth] ifAbsent: [0].
B >> depth = self a ifPresent: [:aa | aa depth] ifAbsent: [0].
A >> sx = self x , '!'.
t := A fields: { x: 'a'. b: Maybe some: (B fields: { a: Maybe some: (A fields: { x: 'c'. b: Maybe none }) }) }.
t depth printNl.
(A fields: { x: 3. b: Maybe none }) sx displayNl.
""", ["`Integer` does not understand `,`."]),
}


@pytest.mark.parametrize("name", sorted(RECURSING))
def test_a_method_recursing_through_a_field_of_its_own_class_checks_in_bounded_work(name, monkeypatch):
    """Counted in instantiations, not time, so the machine's load cannot change it; without a bound
    (each of these ran lp check out of memory, on main before this change too) the count stops it."""
    from lp.types.infer import Checker
    made = []
    real = Checker.instantiate

    def counted(ck, t):
        made.append(t)
        if len(made) > 20000:   # without an end: stop it (the checker reports an internal error)
            raise RuntimeError("instances made without an end")
        return real(ck, t)
    monkeypatch.setattr(Checker, "instantiate", counted)
    src, expected = RECURSING[name]
    result, text = check_source(src)
    assert all(d.title != "internal checker error" for d in result.diagnostics), text
    assert all(e in text for e in expected) and bool(result.errors) == bool(expected), text


def test_a_pass_without_parameters_checks_the_statements_once_per_checker():
    """The readings check.py compares may each end with no generic class: the first pass's checker
    goes on to the statements only once; a second such pass is a checker of its own (else its
    statements' diagnostics would be reported twice)."""
    import importlib
    from lp.syntax.parser import parse_text
    from lp.types.infer import Checker
    from lp.types.parts import assemble
    check = importlib.import_module("lp.types.check")
    program = parse_text("x := 1 + 'a'.\n", "test.lp")
    first = Checker(assemble())
    first.guard(program, first.declare, program.items)
    first.guard(program, first.infer_methods)
    one, _ = check._pass(first, {}, {}, program, program.items, [program])
    two, _ = check._pass(first, {}, {}, program, program.items, [program])
    assert one is first and two is not first
    assert len(one.diagnostics) == len(two.diagnostics) == 1
