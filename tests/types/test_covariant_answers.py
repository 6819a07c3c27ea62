"""An override may answer a subclass of what the overridden method answers (hostile round 4, p099,
p104): a `B` is an `A`, so a send typed against `A`'s method may run `B`'s. Anything else the
override answers is still an incompatible override."""
from __future__ import annotations

from tests.interp.helpers import run_source
from tests.types.helpers import check_source

COPY = """Object subclass: #A.
A subclass: #B.
A >> copyMe = self.
B >> copyMe = B new.
Object subclass: #U.
U class >> show: a = a copyMe printNl.
B new copyMe printNl.
A new copyMe printNl.
U show: B new.
"""

MAKE = """Object subclass: #A fields: (n).
A subclass: #B.
A >> low = self n bitAnd: 1.
A class >> make: k = A fields: { n: k }.
B class >> make: k = B fields: { n: k * 2 }.
Object subclass: #U.
U class >> build: cls = (cls make: 3) low.
(B make: 3) low printNl.
(A make: 3) low printNl.
(U build: B) printNl.
"""


def test_an_override_answering_a_subclass_checks_and_runs(tmp_path):
    result, text = check_source(COPY)
    assert result.diagnostics == [], text
    assert run_source(COPY, tmp_path, domains=1) == (0, "B()\nA()\nB()\n", "")


def test_class_side_constructors_of_a_hierarchy_check_and_run(tmp_path):
    result, text = check_source(MAKE)
    assert result.diagnostics == [], text
    assert run_source(MAKE, tmp_path, domains=1) == (0, "0\n1\n0\n", "")


def test_a_send_to_the_subclass_sees_the_subclass():
    result, text = check_source(COPY + "B >> onlyB = 1.\nB new copyMe onlyB printNl.\n")
    assert result.diagnostics == [], text


def test_a_send_through_the_superclass_sees_the_superclass():
    # `me` answers an `A` (here a `B`): its copy is typed by `A >> copyMe`
    src = COPY + "B >> onlyB = 1.\nA >> me = self.\n(B new me copyMe) onlyB printNl.\n"
    result, text = check_source(src)
    assert [d.title for d in result.errors] == ["unknown selector"], text
    assert "`A` does not understand `onlyB`" in text


def test_answering_the_superclass_or_an_unrelated_class_is_still_refused():
    for answer, found in (("A new", "`A`"), ("C new", "`C`")):
        src = ("Object subclass: #A.\nA subclass: #B.\nObject subclass: #C.\n"
               f"A >> copyMe = B new.\nB >> copyMe = {answer}.\nB new copyMe printNl.\n")
        result, text = check_source(src)
        assert [d.title for d in result.errors] == ["incompatible override"], text
        assert f"so what it answers is {found}, but the overridden method answers `B`" in text
