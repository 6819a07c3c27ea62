"""A chain of dependent definitions checks in about linear work (hostile report 2, finding 37).

`U class >> m0: x = U m1: x + 1.` ... : each method's scheme carries the deferred sends of the
rest of the chain; copied at every call site they made checking quadratic (1,000 methods: 53 s).
Instantiation copies them lazily (constraints.Lazy). The assertion counts the constraint copies
checking makes (work, not time, so the machine's load cannot change it) for N and 10 N: linear
work gives about 10, quadratic 100; the bound is 30. A cycle of methods (one recursive group)
counts the level walks instead: binding each argument variable to the next walked every deferred
send gathered so far (5,000 methods: 165 s).
"""
from __future__ import annotations

import inspect

import pytest

from lp.syntax.parser import parse_text
from lp.types import check_program
from lp.types import constraints
from lp.types.unify import Unifier


def _methods(n: int) -> str:
    lines = ["Object subclass: #U."]
    lines += [f"U class >> m{i}: x = U m{i + 1}: x + 1." for i in range(n)]
    lines += [f"U class >> m{n}: x = x.", "(U m0: 0) printNl."]
    return "\n".join(lines) + "\n"


def _blocks(n: int) -> str:
    lines = ["b0 := [:x | x]."]
    lines += [f"b{i} := [:x | b{i - 1} value: x + 1]." for i in range(1, n)]
    lines.append(f"(b{n - 1} value: 0) printNl.")
    return "\n".join(lines) + "\n"


def _cycle(n: int) -> str:
    lines = ["Object subclass: #U."]
    lines += [f"U class >> m{i}: x = x > 0 ifTrue: [U m{(i + 1) % n}: x - 1] ifFalse: [x]." for i in range(n)]
    lines.append("(U m0: 10) printNl.")
    return "\n".join(lines) + "\n"


@pytest.fixture
def copies(monkeypatch):
    """Counts every copy of a deferred constraint (each class of lp/types/constraints.py with `copy`)."""
    count = [0]
    for _, cls in inspect.getmembers(constraints, inspect.isclass):
        if cls.__module__ == constraints.__name__ and "copy" in vars(cls):
            def counted(self, *a, _orig=vars(cls)["copy"], **k):
                count[0] += 1
                return _orig(self, *a, **k)
            monkeypatch.setattr(cls, "copy", counted)
    return count


def _work(src: str, copies) -> int:
    copies[0] = 0
    result = check_program(parse_text(src, "chain.lp"))
    assert not result.diagnostics, result.diagnostics[0].message
    return max(copies[0], 1)


def test_a_chain_of_methods_checks_in_about_linear_work(copies):
    small, big = _work(_methods(200), copies), _work(_methods(2000), copies)
    assert big < 30 * small, (small, big)


def test_a_chain_of_blocks_checks_in_about_linear_work(copies):
    small, big = _work(_blocks(200), copies), _work(_blocks(2000), copies)
    assert big < 30 * small, (small, big)


def test_a_type_error_at_the_end_of_a_chain_is_reported_where_it_was_before():
    src = _methods(300).replace("(U m0: 0) printNl.", "(U m0: 'a') printNl.")
    result = check_program(parse_text(src, "chain.lp"))
    assert [d.span.line for d in result.diagnostics] == [2], [d.message for d in result.diagnostics]


def test_a_cycle_of_methods_checks_in_about_linear_work(monkeypatch):
    walks = [0]
    adjust = Unifier.adjust

    def counted(self, *a, **k):
        walks[0] += 1
        return adjust(self, *a, **k)
    monkeypatch.setattr(Unifier, "adjust", counted)
    work = []
    for n in (200, 2000):
        walks[0] = 0
        result = check_program(parse_text(_cycle(n), "cycle.lp"))
        assert not result.diagnostics, result.diagnostics[0].message
        work.append(max(walks[0], 1))
    assert work[1] < 30 * work[0], work
