"""A Dynamic value (JSON decode:) where the checker trusts a static type, in a binary
(docs/native.md "Dynamic values"). Inside one function it stays dynamic and fails as in `lp run`
(tests/native/programs/dynamic_values.lp, compared byte for byte); where it leaves for code that
trusts its type (a parameter, a field, an array item, a captured variable, an answer) its class
is checked there: the binary raises an LP error at that send instead of reading the value as
the wrong class, while `lp run` fails later, at the send the value does not understand."""
from __future__ import annotations

from tests.native.harness import build, interpret, native

CASES = [
    # (statement, what lp run reports, what the binary reports)
    # A is generic in n (twice sends it * 2): an A of a Dynamic value, checked nowhere, fails alike
    ("(A fields: { n: x }) twice printNl", "the String 's' does not understand #*", "SAME"),
    ("([:k | k + 1] value: (true ifTrue: [x] ifFalse: [1])) printNl", "the String 's' does not understand #+",
     "CHECK"),
    ("((#(1 2) , { x }) inject: 0 into: [:s :e | s + e]) printNl", "#+ expects a number, not the String 's'",
     "CHECK"),
    ("((#(1 2) , (JSON decode: '[\"s\"]')) at: 3) + 1", "the String 's' does not understand #+", "CHECK"),
    ("(a get + 1) printNl", "the String 'r' does not understand #+",
     "the String 'r' (a Dynamic value) is used where an Integer is expected"),
    ("c := true ifTrue: [x] ifFalse: [4]. ([c + 1] value) printNl", "the String 's' does not understand #+", "CHECK"),
    ("((#(1 2) collect: [:i | true ifTrue: [x] ifFalse: [i]]) first + 1) printNl",
     "the String 's' does not understand #+", "CHECK"),
    ("(a addTo: x) printNl", "the String 's' does not understand #+", "SAME"),
    ("(a double: x) printNl", "the String 's' does not understand #twice",
     "the String 's' (a Dynamic value) is used where an A is expected"),
    ("y := true ifTrue: [x] ifFalse: [a]. (y with: { n: 3 }) printNl",
     "#with: copies an instance with a record of new field values, not a Record",
     "the String 's' (a Dynamic value) is used where an A is expected"),
    # the same in both: checked by the primitive, or the value stays dynamic
    ("(a add: x) printNl", "#+ expects a number, not the String 's'", "SAME"),
    ("d := Dictionary new at: 1 put: x. ((d at: 1) + 1) printNl", "the String 's' does not understand #+", "SAME"),
    ("((Maybe some: x) ifPresent: [:v | v + 1] ifAbsent: [0]) printNl", "the String 's' does not understand #+",
     "SAME"),
    ("(a add: (JSON decode: '5')) printNl", "7", "SAME"),
]
CHECK = "the String 's' (a Dynamic value) is used where an Integer is expected"

HEAD = """Object subclass: #A fields: (n).
A >> twice = self n * 2.
A >> add: k = self n + k.
A >> addTo: k = (k + 1) + self n.
A >> double: b = b twice.
A >> get = true ifTrue: [JSON decode: '"r"'] ifFalse: [3].
x := JSON decode: '"s"'.
a := A fields: { n: 2 }.
a twice printNl.
"""


def test_dynamic_values_are_checked_where_they_leave_a_function(tmp_path):
    lines = [f"[{s}. nil] on: Error do: [:e | e messageText displayNl. nil]." for s, _, _ in CASES]
    # the last one uncaught: the report's location is the array item
    src = tmp_path / "dyn.lp"
    src.write_text(HEAD + "\n".join(lines) + "\n(#(1 2) , { x }) printNl.\n", encoding="utf-8")
    want = interpret(src)
    b = build(src, tmp_path / "dyn")
    assert b.status == 0, b.stderr.decode()
    got = native(tmp_path / "dyn", tmp_path)
    run_lines = want.stdout.decode().splitlines()
    bin_lines = got.stdout.decode().splitlines()
    assert run_lines[0] == bin_lines[0] == "4"
    for (s, interpreted, compiled), r, n in zip(CASES, run_lines[1:-1], bin_lines[1:], strict=True):
        assert r == interpreted, s
        assert n == {"CHECK": CHECK, "SAME": interpreted}.get(compiled, compiled), s
    # lp run prints the array (#printNl understands it); the binary stops where the item is checked
    assert run_lines[-1] == "#(1 2 's')" and want.status == 0
    assert got.status == 1
    last = HEAD.count("\n") + len(CASES) + 1
    assert got.stderr.decode() == (
        f"dyn.lp:{last}:13: Error: {CHECK}\n   |\n{last} | (#(1 2) , {{ x }}) printNl.\n"
        f"   |             ^\nLP call stack (most recent call first):\n  main  (dyn.lp:{last}:13)\n")
