"""Storage and SqlResult in native binaries (runtime/native/storage.c): one program exercising results,
every error class and message, the limits, the grain binding's file names, `with:` on a receiver of a
class the compiler does not know and twenty actors writing one store, built once and compared byte for
byte with `lp run` on 1 and on 2 domains, each run in a fresh directory (the store starts empty)."""
from __future__ import annotations

import shutil

from tests.native.harness import ROOT, build, interpret, native

PROGRAM = ROOT / "tests/native/storage/storage.lp"


def test_storage_program_matches_interpreter_on_1_and_2_domains(tmp_path):
    src = tmp_path / "interp" / PROGRAM.name
    src.parent.mkdir()
    shutil.copy(PROGRAM, src)
    b = build(src, tmp_path / "storage")
    assert b.status == 0, b.stderr.decode()
    want = interpret(src)
    assert want.status == 0 and b"StorageFull: " in want.stdout and b"(statement 2)" in want.stdout
    for d in ("1", "2"):
        cwd = tmp_path / f"native{d}"
        cwd.mkdir()
        got = native(tmp_path / "storage", cwd, "--domains", d)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), d
