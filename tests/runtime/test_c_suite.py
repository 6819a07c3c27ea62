"""Builds and runs the runtime's C tests (runtime/tests/*.c) through its Makefile.
Set LP_SANITIZERS=1 to also run them under ThreadSanitizer and AddressSanitizer."""
import os
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first

RUNTIME = os.path.join(os.path.dirname(__file__), "..", "..", "runtime")

targets = ["test"]
if os.environ.get("LP_SANITIZERS") == "1":
    targets += ["test-tsan", "test-asan"]


@pytest.mark.skipif(not shutil.which("make") or not shutil.which("gcc"), reason="needs make and gcc")
@pytest.mark.parametrize("target", targets)
def test_c_runtime_suite(target):
    # the binaries compile in parallel; the tests themselves run one after another (one recipe)
    r = subprocess.run(["make", f"-j{os.cpu_count() or 1}", "-C", RUNTIME, target], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "all passed" in r.stdout
