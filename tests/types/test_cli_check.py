"""`lp check` reports every type error and exits 1; `lp run` refuses ill-typed programs unless --no-check."""
from __future__ import annotations

from tests.conftest import run_lp

BAD = """Object subclass: #Point fields: (x y).
'start' displayNl.
p := Point fields: { x: 1 }.
q := 3 + 'four'.
"""


def test_check_prints_all_diagnostics(tmp_path):
    f = tmp_path / "bad.lp"
    f.write_text(BAD)
    r = run_lp("check", str(f))
    err = r.stderr.decode()
    assert r.returncode == 1 and r.stdout == b""
    assert err.count("-- ") >= 2, err
    assert "bad.lp:3:" in err and "bad.lp:4:" in err
    assert "Traceback" not in err


def test_run_refuses_ill_typed_programs_unless_no_check(tmp_path):
    f = tmp_path / "bad.lp"
    f.write_text("'start' displayNl.\nx := 3 + 'four'.\n")
    r = run_lp("run", str(f))
    assert r.returncode == 1 and r.stdout == b""
    r = run_lp("run", "--no-check", str(f))
    assert r.stdout == b"start\n" and r.returncode == 1
    assert b"#+ expects a number, not the String 'four'" in r.stderr


def test_check_accepts_a_good_program(tmp_path):
    f = tmp_path / "good.lp"
    f.write_text("'fine' displayNl.\n")
    r = run_lp("check", str(f))
    assert (r.returncode, r.stdout) == (0, f"{f}: no errors found\n".encode())


WARNED = "d := Dictionary new.\nd at: 1 put: 2.\nd size printNl.\n"


def test_warnings_are_shown_and_do_not_fail(tmp_path):
    f = tmp_path / "warned.lp"
    f.write_text(WARNED)
    r = run_lp("check", str(f))
    assert r.returncode == 0 and b"WARNING: UNUSED RESULT" in r.stderr
    r = run_lp("run", str(f))
    assert r.returncode == 0 and r.stdout == b"0\n" and b"WARNING: UNUSED RESULT" in r.stderr
    r = run_lp("run", "--quiet", str(f))
    assert r.returncode == 0 and r.stdout == b"0\n" and r.stderr == b""
