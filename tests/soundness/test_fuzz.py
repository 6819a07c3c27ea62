"""The soundness fuzzer: random programs that `lp check` accepts must not fail at run time with a type error.

CI runs a fixed budget (LP_FUZZ_EXAMPLES, default 150) with a printed seed
(LP_FUZZ_SEED to replay one); bench/soundness_fuzz.py runs longer.
"""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.soundness.gen import Gen
from tests.soundness.runner import outcome

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first

SEED = int(os.environ.get("LP_FUZZ_SEED") or random.randrange(1 << 32))
EXAMPLES = int(os.environ.get("LP_FUZZ_EXAMPLES", "150"))
print(f"soundness fuzzer: seed {SEED} (LP_FUZZ_SEED={SEED} replays it), {EXAMPLES} programs")


@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_checked_programs_do_not_fail_with_type_errors(data):
    src = Gen(lambda options: data.draw(st.sampled_from(list(options)))).program()
    kind, detail = outcome(src)
    assert kind != "unsound", f"(seed {SEED}) lp check accepted this program, which then failed:\n{src}\n{detail}"
