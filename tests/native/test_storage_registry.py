"""The process registry of the hosted sockets' hub (`Storage register:as:`, `registered:like:`,
`asDynamic:`; runtime/native/storage_registry.c) in both modes: tests/native/storage/registry.lp, run
as a main file at the path stdlib/grain_sockets.lp (the one file the checker lets send them), compared
byte for byte between `lp run` and its binary on 1 and 2 domains, including a lookup of the wrong
class and of a name nothing is registered as; then under AddressSanitizer with leak detection on 2
domains, twenty actors re-registering and reading one name (each re-registration releases the old value)."""
from __future__ import annotations

import shutil

import pytest

from tests.native.harness import LP, ROOT, run

PROGRAM = ROOT / "tests/native/storage/registry.lp"
AS_MODULE = "stdlib/grain_sockets.lp"
MISMATCH = b"the value registered as n is the Integer 4, not a String like the sample"


@pytest.fixture
def program_dir(tmp_path):
    (tmp_path / "stdlib").mkdir()
    shutil.copy(PROGRAM, tmp_path / AS_MODULE)
    return tmp_path


def test_registry_matches_interpreter_with_its_errors_on_1_and_2_domains(program_dir):
    b = run([*LP, "build", AS_MODULE, "-o", "registry"], cwd=program_dir)
    assert b.status == 0, b.stderr.decode()
    want = run([*LP, "run", AS_MODULE], cwd=program_dir)
    assert want.status == 1
    assert b"'nothing is registered as none'" in want.stdout
    assert b"'the value registered as small is a Box, not a BigBox like the sample'" in want.stdout
    assert want.stdout.endswith(b"nil\n2000\n")
    assert MISMATCH in want.stdout and b"grain_sockets.lp:37:2: Error: " + MISMATCH in want.stderr
    for d in ("1", "2"):
        got = run([str(program_dir / "registry"), "--domains", d], cwd=program_dir)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), d


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler with AddressSanitizer")
def test_registry_counts_are_right_under_address_and_leak_sanitizer(program_dir):
    b = run([*LP, "build", AS_MODULE, "-o", "registry"], cwd=program_dir, env={"LP_SANITIZE": "address"})
    assert b.status == 0, b.stderr.decode()
    for _ in range(3):
        got = run([str(program_dir / "registry"), "--domains", "2"], cwd=program_dir,
                  env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0"})
        assert b"Sanitizer" not in got.stderr, got.stderr.decode()[-2000:]
        assert got.status == 1 and got.stdout.endswith(b"nil\n2000\n")
