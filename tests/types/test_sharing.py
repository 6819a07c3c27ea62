"""Types are DAGs and the checker must treat them so (hostile report 3.6).

`f_k := [:x | f_{k-1} value: (f_{k-1} value: x)]` over `Association key: x value: x` has a
type of 2^k nested Associations that shares every level: k nodes. A pass that copies or walks
it as a tree (instantiate, generalise, level adjustment, occurs check) takes 2^k steps.
The assertion counts calls into the checker (time-independent): it must grow about linearly.
"""
from __future__ import annotations

import sys

from tests.types.helpers import check_source


def _program(n: int, methods: bool = False) -> str:
    if methods:
        lines = ["Object subclass: #U.", "U class >> f0: x = Association key: x value: x."]
        lines += [f"U class >> f{k}: x = U f{k - 1}: (U f{k - 1}: x)." for k in range(1, n)]
        lines.append(f"(U f{n - 1}: 1) key. 'ok' displayNl.")
    else:
        lines = ["f0 := [:x | Association key: x value: x]."]
        lines += [f"f{k} := [:x | f{k - 1} value: (f{k - 1} value: x)]." for k in range(1, n)]
        lines.append(f"(f{n - 1} value: 1) key. 'ok' displayNl.")
    return "\n".join(lines) + "\n"


def _checker_calls(src: str) -> int:
    calls = 0

    def prof(frame, event, arg):
        nonlocal calls
        if event == "call" and "/lp/types/" in frame.f_code.co_filename:
            calls += 1

    sys.setprofile(prof)
    try:
        result, text = check_source(src)
    finally:
        sys.setprofile(None)
    assert not result.diagnostics, text
    return calls


def test_doubling_blocks_check_in_linear_work():
    small, big = _checker_calls(_program(3)), _checker_calls(_program(5))
    # exponential sharing-blind passes made this ratio > 3; linear work keeps it near 1 (checking core.lp dominates)
    assert big < 2 * small, (small, big)


def test_doubling_class_methods_check_in_linear_work():
    small, big = _checker_calls(_program(3, True)), _checker_calls(_program(5, True))
    assert big < 2 * small, (small, big)


def test_report_program_with_six_levels_checks():
    # hostile-programs/b48_exptype_6.lp: more than a minute before types were shared
    _checker_calls(_program(6))
