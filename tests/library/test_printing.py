"""A user's printString (or displayString) shows wherever the value is printed."""
from __future__ import annotations

from tests.library.helpers import run

PRELUDE = """
Object subclass: #Money fields: (cents).
Money >> printString = '$' , (self cents // 100) printString.
Object subclass: #Tag fields: (name).
Tag >> printString = '<' , super printString , '>'.
Tag >> displayString = self name.
m := Money fields: { cents: 1234 }.
t := Tag fields: { name: 'x' }.
"""


def lines(body: str) -> list[str]:
    status, out, err = run(PRELUDE + body)
    assert (status, err) == (0, ""), err
    return out.split("\n")[:-1]


def test_print_and_display_use_the_override():
    assert lines("m printNl. m displayNl. m displayString displayNl. m printString displayNl.") == ["$12"] * 4


def test_collections_print_elements_with_the_override():
    got = lines("{ m. m } printNl. (Dictionary new at: #a put: m) printNl. (Maybe some: m) printNl. "
                "(m -> 3) printNl. (Point2 fields: { p: m }) printNl. { t } displayNl.\n"
                "Object subclass: #Point2 fields: (p).")
    assert got == ["#($12 $12)", "Dictionary(#a -> $12)", "Maybe some: $12", "$12 -> 3", "Point2(p: $12)",
                   "#(<Tag(name: 'x')>)"]


def test_transcript_uses_the_override():
    assert lines("Transcript display: m; cr; print: m; cr; display: t; cr.") == ["$12", "$12", "x"]


def test_super_print_string_and_display_string_override():
    assert lines("t printNl. t displayNl. t displayString displayNl.") == ["<Tag(name: 'x')>", "x", "x"]


def test_an_override_that_raises_is_an_lp_error():
    status, out, err = run("Object subclass: #Bad.\nBad >> printString = Error raise: 'no printing'.\n"
                           "{ Bad new } printNl.\n")
    assert status == 1 and "Error: no printing" in err and "Traceback" not in err
