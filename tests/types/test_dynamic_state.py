"""A type variable unified with `Dynamic` takes its type from the program's other uses, later ones
too (docs/types.md, "The dynamic escape"; hostile round 4, p095): a grain state built from JSON and
given a String by a later call is a `Box[String]` throughout."""
from __future__ import annotations

from tests.grains.helpers import check, run

BOX = """Import module: #Grain.
Object subclass: #Box fields: (contents).
Box >> put: v = self with: { contents: v }.
g := Grain for: Box initial: (Box fields: { contents: JSON decode: '1' }).
r := g id: 'x'.
(r contents + 1) printNl.
"""


def test_a_later_call_types_the_state_and_an_earlier_read(tmp_path):
    rc, err = check(BOX + "r put: 'str'.\n", tmp_path)
    assert rc == 1
    assert "prog.lp:6:13\n" in err and "`String` does not understand `+`." in err
    assert "prog.lp:7:8: It is `String` because of this:" in err


def test_without_it_the_dynamic_state_is_trusted(tmp_path):
    rc, err = check(BOX, tmp_path)
    assert (rc, err) == (0, "")
    status, out, err = run(BOX, tmp_path, domains=1)
    assert (status, out) == (0, "2\n"), err
