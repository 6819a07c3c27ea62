"""The shape text the checker hands the run time for each grain's state type (lp/types/grain_shapes.py,
docs/grains.md "What a stored state is checked for"): nominal classes defined once with their subclasses
(so recursive ones are finite), generic instances written inline with their parameters, open parts `*`."""
from __future__ import annotations

from lp.cli import _load_program
from lp.diagnostics import SourceMap


def shapes(src: str, tmp_path) -> list[str]:
    f = tmp_path / "prog.lp"
    f.write_text("Import module: #Grain.\n" + src)
    main, imports = _load_program(str(f), SourceMap())
    from lp.types import check_program
    result = check_program(main, imports)
    assert result.ok, result.errors
    return [text for node, text in sorted(result.grain_shapes.values(), key=lambda e: e[0].span.line)]


def test_nominal_recursive_and_subclassed_states(tmp_path):
    assert shapes("""
Object subclass: #Node fields: (next val).
Node >> grow = Node fields: { next: Maybe some: self. val: self val + 1 }.
Object subclass: #Acct fields: (bal log).
Acct subclass: #Frozen fields: (why).
Acct >> deposit: k = self with: { bal: self bal + k. log: self log copyWith: #deposit }.
Acct >> freeze = Frozen fields: { bal: self bal. log: self log. why: 'asked' }.
Grain for: Node initial: (Node fields: { next: Maybe none. val: 0 }).
Grain for: Acct initial: (Acct fields: { bal: 0.0. log: #() }).
""", tmp_path) == ["<Node>;Node=m<Node>i", "<Acct>;Acct=fay;Frozen=fays"]
    # Node is generic in val (grow sends it + 1); next holds a Node of the same val (a field naming its
    # own class holds it with the instance's parameters), so a Node of Integers is written nominally once
    assert shapes("""
Object subclass: #Node fields: (next val).
Node >> grow = Node fields: { next: Maybe some: self. val: self val + 1 }.
Grain for: Node initial: (Node fields: { next: Maybe none. val: 'a' }).
""", tmp_path) == ["<Node>;Node=m<Node>s"]


def test_generic_states_carry_their_parameters(tmp_path):
    assert shapes("""
Object subclass: #Box fields: (contents).
Box >> put: v = self with: { contents: v }.
Object subclass: #Pair fields: (left right).
Grain for: Box initial: (Box fields: { contents: Dictionary new at: 'a' put: 1 }).
Grain for: Box initial: (Box fields: { contents: #a -> (Maybe some: $c) }).
Grain for: Pair initial: (Pair fields: { left: 1 asNumber. right: JSON decode: '1' }).
""", tmp_path) == ["(Box:dsi)", "(Box:pymc)", "(Pair:n*)"]
