"""The fuzzer's runs stop: a generated program that loops for ever is killed after the runner's
time limit instead of holding a test worker (and its memory) until CI's timeout."""
from __future__ import annotations

import time

from tests.interp.helpers import run_source


def test_a_run_that_never_ends_is_stopped_at_its_time_limit(tmp_path):
    t = time.monotonic()
    status, out, err = run_source("n := 0. [n < 1] whileTrue: [nil]. 'after' printNl.", tmp_path,
                                  domains=1, quiet=True, time_limit=1)
    assert time.monotonic() - t < 15
    assert "after" not in out
