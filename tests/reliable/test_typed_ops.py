"""Typed ops (docs/reliable.md, "Typed ops"): the op and the result handler a reliable call names by
Symbol are checked against the callee's class (named by the literal address) and the calling
grain's class, each as the send it stands for; a typo is a check-time error with a caret and a
"did you mean", an op of another type a mismatch, a computed op an error. One `lp check` of
typos.lp, which holds one mistake per method."""
from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import run_lp

HERE = Path(__file__).parent


def diagnostics() -> dict[int, str]:
    r = run_lp("check", str(HERE / "typos.lp"))
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "Traceback" not in err
    blocks = re.split(r"^-- ", err, flags=re.M)[1:]
    return {int(re.search(r"typos\.lp:(\d+):", b).group(1)): b for b in blocks}


def test_typos_in_ops_and_handlers_are_check_time_errors_with_a_caret():
    d = diagnostics()
    assert sorted(d) == [5, 8, 10, 12, 16, 18, 20, 24, 26, 27, 28, 30, 33, 34]
    assert "UNKNOWN OP" in d[8] and "^^^^^" in d[8] and "`Stock` has no op `tak:`" in d[8] \
        and "did you mean `take:`?" in d[8]
    assert "`Stok`, which is no reliable grain class" in d[10] and "did you mean `Stock`?" in d[10]
    assert "`Shop` has no result handler `takn:`" in d[12] and "did you mean `taken:`?" in d[12]
    assert "`Run` does not understand `+`" in d[5]   # count: takes an Integer, the op gets a Run
    assert "What the op `peek:` answers is `Integer`, but a reliable call needs `Step`" in d[16]
    assert "OP NOT LITERAL" in d[18]
    assert "`Shop` has no op `ordr:`" in d[24] and "did you mean `order:`?" in d[24]


def test_an_op_sent_to_a_computed_address_is_typed_in_every_class_that_has_it():
    d = diagnostics()   # Stock's take: answers a Step, Till's a String
    assert "What the op `take:` answers is `String`, but a reliable call needs `Step`" in d[20]


def test_a_method_of_the_kernel_is_no_op_and_no_result_handler():
    d = diagnostics()
    assert "KERNEL METHOD" in d[26] and "`callsOf:` is a method of the reliable kernel" in d[26] \
        and "which is no op." in d[26]
    assert "`kernelDeliver:` is a method of the reliable kernel" in d[27] and "which is no result handler." in d[27]
    assert "`kernelX:` is a method of the reliable kernel" in d[30]   # Stock's own, named kernel...


def test_a_literal_address_without_a_slash_is_an_error():
    d = diagnostics()
    assert "BAD ADDRESS" in d[28] and "a reliable grain's address is `Class/id`" in d[28] and "^^^^^^^" in d[28]


def test_a_run_given_where_a_run_ref_is_due_is_an_error_in_the_program_not_the_library():
    d = diagnostics()   # order12: makes its call for: run (a Run), not run ref
    assert "`RunRef` does not understand `input`" in d[33]
    assert "is `Run`, but `Shop >> order12:` needs `RunRef`" in d[34]
    assert "stdlib/reliable.lp" not in d[33] + d[34]
