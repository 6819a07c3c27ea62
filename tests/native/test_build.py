"""`lp build` itself: options, diagnostics for what it cannot compile, toolchain failures,
run-time flags of the binary, memory behaviour and the sanitizers."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.native.harness import LP, build, interpret, native, run

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first

DEEP = """Object subclass: #R.
R class >> down: n = n = 0 ifTrue: [0] ifFalse: [(R down: n - 1) + 1].
(R down: 50) printNl.
(R down: 5000) printNl.
"""

CHURN = """Object subclass: #P fields: (x s).
Object subclass: #Loop.
Loop class >> run: n acc: a = n = 0 ifTrue: [a] ifFalse: [
    p := P fields: { x: n. s: 'item ' , n printString }.
    Loop run: n - 1 acc: a + p s size + (#(1 2 3) with: p x) size ].
(Loop run: COUNT acc: 0) printNl.
"""


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_options_output_emit_llvm_and_optimisation_levels(tmp_path):
    src = _write(tmp_path, "hello.lp", "'hi' displayNl.\n")
    for level in ("-O0", "-O3"):
        out = tmp_path / f"hello{level}"
        b = build(src, out, level, "--emit-llvm")
        assert b.status == 0, b.stderr
        assert native(out, tmp_path).stdout == b"hi\n"
        assert "define" in (tmp_path / f"hello{level}.ll").read_text()
    default = run([*LP, "build", "hello.lp"], cwd=tmp_path)
    assert default.status == 0 and (tmp_path / "hello").is_file()


TAIL_INTO_MORE_ARGUMENTS = """"Interval >> inject:into: tail-calls Array >> inject:into: which tail-calls
inject:into:from:, whose third argument goes on the stack."
((1 to: 5) inject: 0 into: [:s :x | s + x]) printNl.
((1 to: 10) inject: 0 into: [:s :x | s + 1]) printNl.
"""


def test_tail_calls_into_methods_with_more_arguments_at_every_level(tmp_path):
    """LLVM 22 miscompiled these as `musttail` calls at -O0 (a crash); they are `tail` calls under tailcc."""
    src = _write(tmp_path, "tails.lp", TAIL_INTO_MORE_ARGUMENTS)
    want = interpret(src)
    for level in ("-O0", "-O2"):
        out = tmp_path / f"tails{level}"
        assert build(src, out, level).status == 0
        got = native(out, tmp_path)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)


def test_binary_needs_no_python_and_is_small(tmp_path):
    src = _write(tmp_path, "hello.lp", "'hi' displayNl.\n")
    out = tmp_path / "hello"
    assert build(src, out).status == 0
    r = subprocess.run([str(out)], capture_output=True, env={"PATH": "/nonexistent"})
    assert r.stdout == b"hi\n" and r.returncode == 0
    assert out.stat().st_size < 1_000_000


def test_unsupported_construct_is_a_diagnostic_with_a_caret(tmp_path):
    """`with:` of more than 64 fields on a receiver whose class the compiler does not know."""
    names = [f"f{i}" for i in range(65)]
    rec = "{ " + ". ".join(f"{n}: 1" for n in names) + " }"
    src = _write(tmp_path, "wide.lp", f"Object subclass: #Wide fields: ({' '.join(names)}).\n"
                                      f"Object subclass: #U.\nU class >> set: w = w with: {rec}.\n"
                                      f"(U set: (Wide fields: {rec})) f64 printNl.\n")
    b = build(src, tmp_path / "wide")
    err = b.stderr.decode()
    assert b.status == 1
    assert "The native compiler does not support" in err and "wide.lp:3:" in err and "^" in err
    assert "Traceback" not in err and not (tmp_path / "wide").exists()


def test_type_errors_stop_the_build(tmp_path):
    src = _write(tmp_path, "bad.lp", "(1 + 'a') printNl.\n")
    b = build(src, tmp_path / "bad")
    assert b.status == 1 and b"bad.lp:1:" in b.stderr and not (tmp_path / "bad").exists()


def test_missing_c_compiler_is_one_line_and_exit_2(tmp_path):
    src = _write(tmp_path, "hello.lp", "'hi' displayNl.\n")
    r = subprocess.run([*LP, "build", "hello.lp", "-o", "h"], cwd=tmp_path, capture_output=True,
                       env={**os.environ, "CC": "/nonexistent/cc"})
    assert r.returncode == 2
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "no C compiler" in lines[0]


def test_stack_limit_flag_matches_the_interpreter_at_the_boundary(tmp_path):
    src = _write(tmp_path, "deep.lp", DEEP)
    out = tmp_path / "deep"
    assert build(src, out).status == 0
    for limit in ("1000", "5001", "5002"):
        want = interpret(src, "--stack-limit", limit)
        got = native(out, tmp_path, "--stack-limit", limit)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
    bad = native(out, tmp_path, "--stack-limit", "zero")
    assert bad.status == 2 and b"--stack-limit" in bad.stderr


# Recursions through a block that a primitive calls in tail position: the block's frame replaces
# the sender's, as in the interpreter, so each level is one frame.
BLOCK_FRAMES = """Object subclass: #Deep.
Deep >> viaMaybe: n =
    n = 0 ifTrue: [0] ifFalse: [(Maybe some: n - 1) ifPresent: [:m | (self viaMaybe: m) + 1] ifAbsent: [0]].
Deep >> zero = [0].
Deep >> more: n = [(self viaBranch: n - 1) + 1].
Deep >> viaBranch: n = n = 0 ifTrue: self zero ifFalse: (self more: n).
Deep >> viaAbsent: n =
    n = 0 ifTrue: [0] ifFalse: [Dictionary new at: n ifAbsent: [(self viaAbsent: n - 1) + 1]].
Deep >> andMore: n = [(self viaAnd: n - 1) and: [true]].
Deep >> viaAnd: n = n = 0 ifTrue: [true] ifFalse: [true and: (self andMore: n)].
(Deep new viaMaybe: 900) printNl.
(Deep new viaBranch: 900) printNl.
(Deep new viaAbsent: 900) printNl.
(Deep new viaAnd: 900) printNl.
"""


def test_blocks_called_in_tail_position_count_frames_as_the_interpreter(tmp_path):
    src = _write(tmp_path, "frames.lp", BLOCK_FRAMES)
    out = tmp_path / "frames"
    assert build(src, out).status == 0
    for limit in ("1000", "901", "900"):   # 900 levels and main fit in 901 frames, not in 900
        want = interpret(src, "--stack-limit", limit)
        got = native(out, tmp_path, "--stack-limit", limit)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)


def test_out_of_range_run_time_flags_are_usage_errors(tmp_path):
    """As `lp run` words them; a huge --stack-limit once crashed the binary reserving its stack."""
    out = tmp_path / "hello"
    assert build(_write(tmp_path, "hello.lp", "'hi' displayNl.\n"), out).status == 0
    for flag, value, want in (("--stack-limit", "9223372036854775807", b"must be from 1 to 1,000,000,000"),
                              ("--stack-limit", "99999999999999999999", b"must be from 1 to 1,000,000,000"),
                              ("--stack-limit", "0", b"must be from 1 to 1,000,000,000"),
                              ("--domains", "99999999999", b"must be from 1 to 1,024")):
        r = native(out, tmp_path, flag, value)
        assert r.status == 2 and want in r.stderr and r.stdout == b"", (flag, value, r.stderr)
    assert native(out, tmp_path, "--stack-limit", "1000000000").stdout == b"hi\n"


def test_a_loop_that_builds_and_drops_values_runs_in_constant_memory(tmp_path):
    small, large = tmp_path / "small", tmp_path / "large"
    assert build(_write(tmp_path, "small.lp", CHURN.replace("COUNT", "1000")), small).status == 0
    assert build(_write(tmp_path, "large.lp", CHURN.replace("COUNT", "10000000")), large).status == 0
    # ru_maxrss of children is a running maximum: measure the large run in a fresh process
    probe = [sys.executable, "-c", "import resource,subprocess,sys; subprocess.run(sys.argv[1:], check=True, "
             "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"]
    rss_small = int(subprocess.run([*probe, str(small)], capture_output=True, text=True).stdout)
    rss_large = int(subprocess.run([*probe, str(large)], capture_output=True, text=True).stdout)
    assert rss_large < rss_small + 4096, (rss_small, rss_large)


PROGRAMS = sorted((__import__("pathlib").Path(__file__).parent / "programs").glob("*.lp"))


# All programs under the sanitizers when CI asks for them (LP_SANITIZERS=1, as for the runtime's C tests);
# one always.
SANITIZED = PROGRAMS if os.environ.get("LP_SANITIZERS") else [p for p in PROGRAMS if p.stem == "collections"]


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler with AddressSanitizer")
@pytest.mark.parametrize("program", SANITIZED, ids=lambda p: p.name)
def test_programs_are_clean_under_address_and_leak_sanitizer(program, tmp_path):
    out = tmp_path / program.stem
    r = subprocess.run([*LP, "build", program.name, "-o", str(out)], cwd=program.parent, capture_output=True,
                       env={**os.environ, "LP_SANITIZE": "address"})
    assert r.returncode == 0, r.stderr.decode()
    got = subprocess.run([str(out)], cwd=program.parent, capture_output=True,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0"})
    assert b"Sanitizer" not in got.stderr, got.stderr.decode()[-2000:]
    assert got.stdout == interpret(program).stdout
