"""Selectors a Smalltalk or Python user expects: Interval, and the additions to String, Array, Dictionary."""
from __future__ import annotations

from tests.library.helpers import answers, check

CASES = {
    "1 to: 4": "(1 to: 4)",
    "(1 to: 4) collect: [:i | i * i]": "#(1 4 9 16)",
    "(1 to: 10 by: 3) select: [:i | i odd]": "#(1 7)",
    "(1 to: 10 by: 3) reject: [:i | i odd]": "#(4 10)",
    "(1 to: 4) inject: 0 into: [:a :b | a + b]": "10",
    "(1 to: 0) asArray": "#()",
    "(10 to: 1 by: -3) asArray": "#(10 7 4 1)",
    "(1 to: 100) sum": "5050",
    "(1 to: 10) includes: 7": "true",
    "(1 to: 10 by: 2) includes: 4": "false",
    "(10 to: 1 by: -2) reversed": "(2 to: 10 by: 2)",
    "(1 to: 5) size": "5",
    "(1 to: 5) first": "1",
    "(1 to: 10 by: 4) last": "9",
    "(1 to: 0) first": "error: #first of an empty Interval",
    "1 to: 5 by: 0": "error: an Interval's step must not be 0",
    "(1 to: 3) = (1 to: 3)": "true",
    "(1 to: 5) anySatisfy: [:i | i > 4]": "true",
    "(1 to: 5) allSatisfy: [:i | i > 4]": "false",
    "(1 to: 5) count: [:i | i even]": "2",
    "(1 to: 5) detect: [:i | i > 2] ifNone: [0]": "3",
    "4 lcm: 6": "12",
    "'a,b;;c' substrings: ',;'": "#('a' 'b' 'c')",
    "'  a b  ' substrings": "#('a' 'b')",
    "'banana' occurrencesOf: $a": "3",
    "'hello' first: 2": "'he'",
    "'hello' last: 3": "'llo'",
    "'hello' first: 9": "error: #first: expects a count from 0 to 5, not the Integer 9",
    "'hello' allButFirst": "'ello'",
    "'hello' allButLast": "'hell'",
    "'hello' inject: 0 into: [:n :c | n + c value]": "532",
    "'hello' allSatisfy: [:c | c isLetter]": "true",
    "'hello' anySatisfy: [:c | c isUppercase]": "false",
    "'hello' count: [:c | c isVowel]": "2",
    "'hello' detect: [:c | c isVowel] ifNone: [$x]": "$e",
    "', ' join: #('a' 'b' 'c')": "'a, b, c'",
    "'' join: #()": "''",
    "'Hello' asUppercase": "'HELLO'",
    "'hello' startsWith: 'he'": "true",
    "'hello' endsWith: 'lo'": "true",
    "'hello' reverse": "'olleh'",
    "'hello' indexOf: $l": "3",
    "'hello' copyReplaceAll: 'l' with: 'L'": "'heLLo'",
    "#(1 2 3 2) occurrencesOf: 2": "2",
    "#(1 2 3 2) copyWithout: 2": "#(1 3)",
    "#(1 2 3) first: 2": "#(1 2)",
    "#(1 2 3) last: 2": "#(2 3)",
    "#('aa' 'b' 'cccc') detectMax: [:s | s size]": "'cccc'",
    "#('aa' 'b' 'cccc') detectMin: [:s | s size]": "'b'",
    "#(1 2 3) collectWithIndex: [:x :i | x * i]": "#(1 4 9)",
    "#(1 2 3) flatCollect: [:x | Array new: x withAll: x]": "#(1 2 2 3 3 3)",
    "#(3 1 2) reversed": "#(2 1 3)",
    "#(1 2 3) allSatisfy: [:x | x > 0]": "true",
    "(Dictionary new at: #a put: 1) includes: 1": "true",
    "(Dictionary new at: #a put: 1) keyAtValue: 1": "Maybe some: #a",
    "(Dictionary new at: #a put: 1) keyAtValue: 2": "Maybe none",
    "((Dictionary new at: #a put: 1) at: #b put: 2) inject: 0 into: [:a :b | a + b]": "3",
    "((Dictionary new at: #a put: 1) at: #b put: 2) reject: [:v | v > 1]": "Dictionary(#a -> 1)",
    "((Dictionary new at: #a put: 1) at: #b put: 2) removeKey: #a": "Dictionary(#b -> 2)",
    "((Dictionary new at: #a put: 1) at: #b put: 2) keys": "#(#a #b)",
    "((Dictionary new at: #a put: 1) at: #b put: 2) values": "#(1 2)",
    "(Dictionary new at: #a put: 1) includesKey: #a": "true",
    "((Dictionary new at: 'b' put: 1) at: 'a' put: 2) keysSortedBy: [:a :b | a <= b]": "#('a' 'b')",
    "1 to: 10 by: 4 do: [:i | i]": "1",
}


def test_selectors_answer_as_documented():
    exprs = list(CASES)
    assert dict(zip(exprs, answers(exprs))) == CASES


def test_the_checker_types_the_new_selectors():
    src = "\n".join(f"x{i} := {e}." for i, e in enumerate(CASES)) + "\n"
    assert check(src) == ""


def test_equality_of_containers_is_lp_equality():
    got = answers(["(Dictionary new at: 1 put: true) = (Dictionary new at: 1 put: 1)",
                   "(Dictionary new at: 1 put: 1) = (Dictionary new at: 1.0 put: 1.0)",
                   "(1 -> true) = (1 -> 1)", "(Maybe some: true) = (Maybe some: 1)", "(Maybe some: 1) = (Maybe some: 1.0)",
                   "JSON encode: (1 to: 3)"])
    assert got == ["false", "true", "false", "false", "true", "'[1,2,3]'"]
