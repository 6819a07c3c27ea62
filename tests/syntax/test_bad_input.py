"""Bad input never produces a traceback or a hang: always a diagnostic and exit status 1 or 2."""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lp.diagnostics import LPError
from lp.syntax.parser import parse_text, read_source
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.long_first   # minutes long: tests/scheduling.py hands it out first


def assert_diagnosed(r, *expected: str):
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode in (1, 2), (r.returncode, err)
    assert "Traceback" not in err
    for e in expected:
        assert e in err, err


def test_empty_file(tmp_path, lp):
    f = tmp_path / "empty.lp"
    f.write_bytes(b"")
    assert_diagnosed(lp("check", str(f)), "EMPTY FILE", "This file has no code in it.")


def test_a_file_of_empty_statements_is_not_called_comments(tmp_path, lp):
    f = tmp_path / "dots.lp"
    f.write_text("...\n")
    assert_diagnosed(lp("check", str(f)), "EMPTY FILE", "This file has only empty statements in it, and no code.")


def test_not_utf8(tmp_path, lp):
    f = tmp_path / "latin1.lp"
    f.write_bytes(b"x := 'caf\xe9'.\n")
    assert_diagnosed(lp("run", str(f)), "NOT UTF-8", "byte 0xe9 at line 1, column 10")


def test_a_byte_order_mark_is_not_part_of_the_program(tmp_path, lp):
    f = tmp_path / "bom.lp"
    f.write_bytes(b"\xef\xbb\xbf1 printNl.\n")
    r = lp("run", str(f))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"1\n", b"")


def test_directory_and_missing_file(tmp_path, lp):
    assert_diagnosed(lp("check", str(tmp_path)), "is a directory")
    assert_diagnosed(lp("run", str(tmp_path / "nope.lp")), "There is no file at")


def test_usage_errors_exit_2(lp):
    assert lp().returncode == 2
    assert lp("frobnicate").returncode == 2
    assert lp("run").returncode == 2
    r = lp("fmt", "--write", "--check", "x.lp")
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    for flag, value in (("--domains", "99999999999999999999"), ("--domains", "1025"), ("--domains", "0"),
                        ("--stack-limit", "100000000000000000000")):
        r = lp("run", flag, value, "x.lp")
        assert r.returncode == 2 and b"must be from 1 to" in r.stderr, r.stderr


def test_version_and_help(lp):
    r = lp("--version")
    assert r.returncode == 0 and r.stdout.startswith(b"lp ")
    for cmd in ("run", "check", "fmt"):
        r = lp(cmd, "--help")
        assert r.returncode == 0 and b"usage: lp " + cmd.encode() in r.stdout


def test_ten_megabytes_of_random_bytes(tmp_path, lp):
    rng = random.Random(7)
    f = tmp_path / "noise.lp"
    f.write_bytes(bytes(rng.getrandbits(8) for _ in range(10 * 1024 * 1024)))
    assert_diagnosed(lp("check", str(f), timeout=60))


def test_ten_megabytes_of_random_ascii(tmp_path, lp):
    rng = random.Random(8)
    alphabet = "abcXYZ019 .:=[](){}#$'\"^|;+-*/<>!\n"
    f = tmp_path / "noise.lp"
    f.write_text("".join(rng.choice(alphabet) for _ in range(10 * 1024 * 1024)))
    assert_diagnosed(lp("check", str(f), timeout=60))


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("[", "]"), ("{", "}"), ("#(", ")")])
def test_ten_thousand_nested_brackets(tmp_path, lp, opener, closer):
    f = tmp_path / "deep.lp"
    f.write_text(opener * 10_000 + "1" + closer * 10_000 + ".")
    assert_diagnosed(lp("check", str(f)), "nested more than")
    f.write_text(opener * 10_000)
    r = lp("check", str(f))
    assert_diagnosed(r, "nested more than")
    assert max(len(line) for line in r.stderr.splitlines()) < 120


@pytest.mark.parametrize("nest", [lambda n: "{" * n + "1" + "}" * n, lambda n: "[" * n + "1" + "]" * n,
                                  lambda n: "(" * n + "1" + ")" * n, lambda n: " + ".join(["1"] * (n + 1)),
                                  lambda n: "1" + " abs" * n])
def test_the_nesting_limit_is_256_levels_exactly(nest):
    # docs/language.md: brackets nest at most 256 deep, an expression at most 256 levels
    parse_text(f"y := {nest(256)}.\n", "ok.lp")
    with pytest.raises(LPError) as info:
        parse_text(f"y := {nest(257)}.\n", "deep.lp")
    assert "more than 256 levels" in info.value.diagnostics[0].message


def test_very_long_operator_chain(tmp_path, lp):
    f = tmp_path / "chain.lp"
    f.write_text("x := " + " + ".join(["1"] * 100_000) + ".")
    assert_diagnosed(lp("check", str(f)), "nested more than")


@pytest.mark.parametrize("literal", ["1" + "0" * 4400, "1e" + "9" * 4301, "1.5e" + "9" * 5000,
                                     "2r" + "1" * 100_000, "10r" + "7" * 5000])
def test_a_literal_of_thousands_of_digits_is_a_short_syntax_error(tmp_path, lp, literal):
    f = tmp_path / "big.lp"
    f.write_text(literal + " printNl.\n")
    for command in ("check", "run", "fmt"):
        r = lp(command, str(f))
        assert_diagnosed(r, "SYNTAX ERROR", "`" + literal[:20] + "…")
        assert max(len(line) for line in r.stderr.splitlines()) < 120


def _example_texts():
    return [(p.name, p.read_text()) for p in sorted(EXAMPLES.glob("*.lp"))]


@pytest.mark.parametrize("name,text", _example_texts(), ids=lambda x: x if len(x) < 40 else "")
def test_every_truncation_of_every_example(name, text):
    for n in range(len(text)):
        try:
            parse_text(text[:n], name)
        except LPError as e:
            assert e.diagnostics and e.diagnostics[0].message


lp_alphabet = st.sampled_from(list("abXY09 .:=[](){}#$'\"^|;+-*/<>!\n\t") + ["subclass:", ">>", "fields:", ":=", "#("])


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lp_alphabet, max_size=80).map("".join))
def test_fuzzed_text_gets_a_result_or_a_diagnostic(text):
    try:
        parse_text(text, "fuzz.lp")
    except LPError as e:
        assert e.diagnostics[0].message


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fuzzed_bytes_get_a_result_or_a_diagnostic(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("fz") / "f.lp"
    f.write_bytes(data)
    try:
        parse_text(read_source(str(f)), str(f))
    except LPError as e:
        assert e.diagnostics[0].message
    finally:
        os.unlink(f)


def test_bad_option_values_are_usage_errors(lp):
    for args in (("--domains", "0"), ("--domains", "two"), ("--stack-limit", "-5")):
        r = lp("run", *args, "examples/hello.lp")
        assert r.returncode == 2 and b"Traceback" not in r.stderr, args


def test_a_megabyte_string_literal_costs_a_few_bytes_per_character():
    # the string pattern once kept backtracking state per character: 200 bytes each
    import tracemalloc
    body = "a''b" * 250_000
    text = f"s := '{body}'.\nt := #'{body}'.\n"
    tracemalloc.start()
    try:
        program = parse_text(text, "big.lp")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert program.items[0].value.value == "a'b" * 250_000
    assert peak < 12 * len(text), peak
