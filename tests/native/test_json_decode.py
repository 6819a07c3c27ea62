"""`JSON decode:` in native code (runtime/native/json.c) against the interpreter's json.loads:
the same Dynamic values and the same error messages, byte for byte, on hand-picked texts
and on deterministic mutations of them (cut, duplicated, deleted and replaced characters)."""
from __future__ import annotations

import random

from tests.native.harness import build, interpret, native

CASES = [
    '{"a": [1, 2]}', '[]', '{}', ' [ ] ', '1', '-0', '-0.0', '0.5', '1e3', '1E-3', '1e400', '-1e400', '1.5e+2',
    '9223372036854775807', '-9223372036854775808', '9223372036854775808', '-9223372036854775809',
    '123456789012345678901234567890123', '0000', '01', '-', '-a', '1.', '.5', '1e', '1e+', '2.x',
    'true', 'false', 'null', 'tru', 'nul', 'NaN', 'Infinity', '-Infinity', '[NaN]', 'nan',
    '"abc"', '"a\\"b"', '"\\\\"', '"\\/"', '"\\b\\f\\n\\r\\t"', '"\\u00e9"', '"\\u00E9x"', '"\\ud83d\\ude00"',
    '"\\ud800"', '"\\ud800x"', '"\\udc00\\ud800"', '"\\ud83d\\u0041"', '"\\u12"', '"\\u12g4"', '"\\u1234',
    '"\\x"', '"abc', '"', '"tab\there"', '"new\nline"', 'é', '"é"', '["é", "ü", 3]',
    '{"a":1,"a":2,"b":3}', '{"b":1,"a":2}', '{"a" 1}', '{"a":}', '{"a":1,}', '{"a":1 "b":2}', '{1:2}', '{',
    '[1,]', '[1 2]', '[1,,2]', '[', ']', '[1', '{"a":[1,{"b":null}],"c":true}', '[1] x', '  ', '',
    '\n\n  [1,\n  oops]', '[1.25, -3, "x", [], {}, false]', '{"k": {"k": {"k": [[]]}}}',
    '[1e22, 1e-7, 123.456, 1e16, 2.5e-300]', '"\\', '"\\u"', '[true false]', 'truex', '1 2',
    '\ufeff[1]', '[' * 30 + ']' * 30,
]


def _lp_literal(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _mutations(seed_texts, n, rng):
    out = []
    alphabet = list('{}[]":,0123456789-.eE+ \n\\utrfalsn') + ["é"]
    for _ in range(n):
        s = rng.choice(seed_texts)
        op = rng.randrange(4)
        i = rng.randrange(len(s) + 1)
        if op == 0:
            s = s[:i]
        elif op == 1 and s:
            s = s[:i] + s[i + 1:]
        elif op == 2:
            s = s[:i] + rng.choice(alphabet) + s[i:]
        else:
            s = s[:i] + s[i:i + 3] * 2 + s[i + 3:]
        out.append(s)
    return out


def _program(texts):
    lines = ['"JSON decode: on many texts: the value, its JSON, or the error message."']
    for t in texts:
        lines.append(f"(Error try: [v := JSON decode: {_lp_literal(t)}. v printString , ' ' , (JSON encode: v)] "
                     f"onError: [:e | e message]) displayNl.")
    lines.append("(JSON decode: '{\"a\": [1, 2]}') printNl.")
    lines.append("((JSON decode: '[1, 2, 3]') at: 2) printNl.")
    lines.append("((JSON decode: '{\"k\": \"v\"}') at: 'k') displayNl.")
    return "\n".join(lines) + "\n"


def _compare(tmp_path, texts):
    src = tmp_path / "json_decode.lp"
    src.write_text(_program(texts), encoding="utf-8")
    expected = interpret(src)
    assert expected.status == 0, expected.stderr.decode()
    b = build(src, tmp_path / "json_decode")
    assert b.status == 0, b.stderr.decode()
    got = native(tmp_path / "json_decode", tmp_path)
    assert (got.status, got.stdout.decode(), got.stderr.decode()) == \
        (expected.status, expected.stdout.decode(), expected.stderr.decode())


def test_decode_matches_the_interpreter(tmp_path):
    _compare(tmp_path, CASES)


def test_decode_mutations_match_the_interpreter(tmp_path):
    rng = random.Random(11)
    _compare(tmp_path, _mutations([c for c in CASES if c], 300, rng))


def test_decode_nesting_limit(tmp_path):
    """The depth where the interpreter runs out of Python recursion, decoding at a program's top level."""
    texts = ["[" * 9998 + "]" * 9998, "[" * 9999 + "]" * 9999, '{"a":' * 20000]
    src = tmp_path / "deep.lp"
    src.write_text("\n".join(f"(Error try: [(JSON decode: {_lp_literal(t)}) size] onError: [:e | e message]) printNl."
                             for t in texts) + "\n")
    expected = interpret(src)
    b = build(src, tmp_path / "deep")
    assert b.status == 0, b.stderr.decode()
    got = native(tmp_path / "deep", tmp_path)
    assert got.stdout == expected.stdout and got.status == expected.status


def test_deep_json_in_a_spawned_actor_goes_as_deep_as_on_the_main_actor(tmp_path):
    """A spawned actor decodes and encodes as deeply as the main actor, on its deep stack once its
    256 KiB one is full (docs/native.md "Stacks"); past 9,998 levels `JSON decode:` raises in both
    modes. A RemoteServer's handler decodes what a client sends, so a deep body must not kill the
    server."""
    src = tmp_path / "deep_spawned.lp"
    src.write_text("""
deep := [:n | ((1 to: n) inject: '' into: [:a :i | a , '[']) , ((1 to: n) inject: '' into: [:a :i | a , ']'])].
main := Actor self.
Actor spawn: [:me |
    (Error try: [(JSON encode: (JSON decode: (deep value: 9998))) size printString] onError: [:e | e message]) displayNl.
    (Error try: [JSON decode: (deep value: 9999). 'decoded 9999'] onError: [:e | e message]) displayNl.
    main ! #done].
Actor self receive: { #done -> [:m | nil] }.
(JSON decode: (deep value: 5000)) size printNl.
""")
    assert build(src, tmp_path / "deep").status == 0
    want = (0, b"19996\ninvalid JSON: the value is nested too deeply\n1\n", b"")
    for domains in ("1", "2"):
        got = native(tmp_path / "deep", tmp_path, "--domains", domains)
        assert (got.status, got.stdout, got.stderr) == want
    got = interpret(src)
    assert (got.status, got.stdout, got.stderr) == want
