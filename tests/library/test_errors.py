"""Faults inside primitives are reported in LP's words: no Python term reaches the user."""
from __future__ import annotations

import pytest

from tests.library.helpers import answers, no_python_terms, run

CASES = {
    "'abc' asInteger": "error: 'abc' is not an integer",
    "'1_000' asInteger": "error: '1_000' is not an integer",
    "'99999999999999999999999' asInteger": "error: '99999999999999999999999' does not fit in 64 bits",
    "'nan' asNumber": "error: 'nan' is not a number",
    "1 bitShift: 10000000000": "error: integer overflow: 1 bitShift: 10000000000 does not fit in 64 bits",
    "1 bitShift: -10000000000": "0",
    "2 raisedTo: 10000000000": "error: integer overflow: 2 raisedTo: 10000000000 does not fit in 64 bits",
    "2 raisedTo: -1": "error: 2 raisedTo: -1: an Integer power needs an exponent >= 0 (use asFloat for a fraction)",
    "2.0 raisedTo: 2000.0": "error: float overflow: 2.0 raisedTo: 2000.0 is too large",
    "Array new: 10000000000 withAll: 0":
        "error: #new:withAll: would build a collection of 10000000000 elements, more than the limit of 268435456",
    "JSON decode: ('' join: (Array new: 100000 withAll: '['))": "error: invalid JSON: the value is nested too deeply",
    "JSON decode: '\"\\ud800\"'": "'\ufffd'",
    "JSON decode: 'NaN'": "error: invalid JSON: NaN is not JSON",
    "JSON decode: '{\"a\": '": "error: invalid JSON at line 1 column 7: expecting value",
    "55296 asCharacter": "error: 55296 is not a Unicode character code (0 to 16r10FFFF, without the surrogates "
                         "16rD800 to 16rDFFF)",
    "1.0e300 / 1.0e-300": "error: float overflow: 1.0e300 / 1.0e-300 is too large",
    "1.0e300 * 1.0e300": "error: float overflow: 1.0e300 * 1.0e300 is too large",
    "'' asSymbol numArgs": "0",
    "(Error new: (JSON decode: 'null')) messageText": "'nil'",
    "'abc' copyFrom: (JSON decode: 'null') to: 2": "error: copyFrom: nil to: 2 is out of bounds for size 3",
    "#(1 2) copyFrom: 2 to: (JSON decode: '3.5')": "error: copyFrom: 2 to: 3.5 is out of bounds for size 2",
    "'abc' copyReplaceAll: '' with: 'x'": "error: #copyReplaceAll:with: needs a non-empty String to replace",
    "1.0e20 asInteger": "error: integer overflow: 1.0e20 as Integer does not fit in 64 bits",
    "(JSON decode: '1e400') rounded": "error: invalid JSON: the number 1e400 is too large for a Float",
    "'1e400' asNumber": "error: '1e400' is too large for a Float",
    "JSON decode: '123456789012345678901234567890'":
        "error: invalid JSON: the number 123456789012345678901234567890 does not fit in a 64-bit Integer",
    "' 12 ' asInteger": "error: ' 12 ' is not an integer",
    "' 12' asNumber": "error: ' 12' is not a number",
    "-1 factorial": "error: factorial is not defined for -1",
    "(0 to: 9223372036854775807) size":
        "error: integer overflow: the size of (0 to: 9223372036854775807) does not fit in 64 bits",
    "0.49999999999999994 rounded": "0",
    "4503599627370497.0 rounded": "4503599627370497",
    "-2.5 rounded": "-2",
    "$ß digitValue": "-1",
    "$² digitValue": "-1",
    "$Z digitValue": "35",
    "#(1 2 3) with: #(4 5) collect: [:a :b | a + b]": "error: with:collect: needs Arrays of one size, not 3 and 2",
    "JSON decode: '9223372036854775807'": "9223372036854775807",
    "(1.0e308 * 10.0) roundTo: 0.5": "error: float overflow: 1.0e308 * 10.0 is too large",
    "-9223372036854775808 gcd: 0": "error: integer overflow: -9223372036854775808 gcd: 0 does not fit in 64 bits",
}


def test_primitive_faults_answer_lp_errors():
    exprs = list(CASES)
    got = answers(exprs)
    assert dict(zip(exprs, got)) == CASES
    assert all(no_python_terms(g) for g in got)


def test_printing_a_decoded_lone_surrogate():
    status, out, err = run("(JSON decode: '\"a\\ud800b\"') printNl. (JSON decode: '\"a\\ud800b\"') displayNl.\n")
    assert (status, out, err) == (0, "'a\ufffdb'\na\ufffdb\n", "")


@pytest.mark.parametrize("src", [
    "(1 bitShift: 10000000000) printNl.",
    "'abc' asInteger printNl.",
    "(JSON decode: ('' join: (Array new: 100000 withAll: '['))) printNl.",
    "(Array new: 10000000000 withAll: 0) printNl.",
])
def test_uncaught_primitive_fault_report(src):
    status, out, err = run(src + "\n")
    assert status == 1 and "prog.lp:1:" in err and no_python_terms(err), err
