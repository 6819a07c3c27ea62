"""The block-taking methods of stdlib/core.lp: right answers and no mutable accumulator."""
from __future__ import annotations

from tests.library.helpers import answers, check


def test_sort_sorts_both_halves():
    got = answers(["#(4 3 2 1) sort: [:a :b | a <= b]", "#(5 1 4 2 3 9 0 7) sort: [:a :b | a >= b]",
                   "#() sort: [:a :b | a <= b]", "#(1) sort: [:a :b | a <= b]",
                   "#(3 1 2) asSortedCollection: [:a :b | a <= b]"])
    assert got == ["#(1 2 3 4)", "#(9 7 5 4 3 2 1 0)", "#()", "#(1)", "#(1 2 3)"]


def test_sort_is_stable():
    got = answers(["(#((2 1) (1 2) (2 3) (1 4)) sort: [:a :b | a first <= b first]) collect: [:p | p last]"])
    assert got == ["#(2 4 1 3)"]


def test_building_methods():
    got = answers(["#(1 2 3) collect: [:x | x * 10]", "#(1 2 3 4) select: [:x | x even]",
                   "#(1 2 3 4) reject: [:x | x even]", "1 to: 4 collect: [:i | i * i]", "3 to: 1 collect: [:i | i]",
                   "#(1 2) with: #(10 20) collect: [:a :b | a + b]", "'hello' collect: [:c | c asUppercase]",
                   "'hello' select: [:c | c isVowel]", "#() collect: [:x | x]"])
    assert got == ["#(10 20 30)", "#(2 4)", "#(1 3)", "#(1 4 9 16)", "#()", "#(11 22)", "'HELLO'", "'eo'", "#()"]


def test_array_builder_is_not_a_class_users_can_reach():
    assert "ArrayBuilder" in check("x := ArrayBuilder new.\n")
    assert check("x := #(1 2) collect: [:i | i].\n") == ""


def test_lp_check_rejects_array_builder(tmp_path):
    from tests.conftest import run_lp
    f = tmp_path / "builder.lp"
    f.write_text("b := ArrayBuilder new.\n")
    r = run_lp("check", str(f))
    assert r.returncode != 0 and b"ArrayBuilder" in r.stderr
