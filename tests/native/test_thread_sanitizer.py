"""Binaries whose actors share values across domains, built with ThreadSanitizer (LP_SANITIZE=thread):
no data race is reported (runtime/native/value.c: a shared count is only read atomically; print.c:
output under the stream's lock), and the output is `lp run`'s."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.native.harness import LP, ROOT, interpret

PROGRAMS = [ROOT / "tests/native/actor_programs/shared_values.lp", ROOT / "tests/native/actor_programs/actor_values.lp"]


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler with ThreadSanitizer")
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_shared_values_race_free_under_thread_sanitizer(program, tmp_path):
    out = tmp_path / program.stem
    r = subprocess.run([*LP, "build", program.name, "-o", str(out)], cwd=program.parent, capture_output=True,
                       env={**os.environ, "LP_SANITIZE": "thread"}, timeout=600)
    assert r.returncode == 0, r.stderr.decode()
    got = subprocess.run([str(out), "--domains", "2"], cwd=program.parent, capture_output=True, timeout=300,
                         env={**os.environ, "TSAN_OPTIONS": "halt_on_error=0"})
    assert b"ThreadSanitizer" not in got.stderr, got.stderr.decode()[-3000:]
    assert got.stdout == interpret(program, "--domains", "2").stdout
