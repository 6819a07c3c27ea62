"""The `not a tail call` warning (docs/language.md, "Tail calls"): a method whose call of itself ends
a one-branch form, which answers nil and so keeps a frame per round."""
from __future__ import annotations

from tests.types.helpers import check_source

HEAD = "Object subclass: #L fields: (n).\nObject subclass: #K.\n"


def warnings(src):
    result, text = check_source(HEAD + src)
    assert not result.errors, text
    return [(d.title, d.span.line, d.span.col) for d in result.warnings], text


def test_a_call_of_itself_ending_a_one_branch_form_is_warned_about():
    found, text = warnings("L >> go: k = k > 0 ifTrue: [self go: k - 1].\n"
                           "K class >> wait: me = me receive: { #a -> [:m | m = #a ifFalse: [K wait: me]] }.\n")
    assert found == [("warning: not a tail call", 3, 34), ("warning: not a tail call", 4, 68)]
    assert "`ifTrue:` answers nil whichever way it goes, so this call of `go:` is not a tail call" in text
    assert "`... ifFalse: [...] ifTrue: [nil]`" in text


def test_tail_calls_and_other_sends_are_not():
    found, text = warnings(
        "L >> go: k = k > 0 ifTrue: [self go: k - 1] ifFalse: [nil].\n"
        "L >> up: k = k > 0 ifTrue: [(self up: k - 1) + 1] ifFalse: [0].\n"
        "L >> other: k = k > 0 ifTrue: [self go: k].\n"
        "L >> mid: k = (k > 0 ifTrue: [self mid: k - 1]. k).\n"
        "K class >> wait: me = me receive: { #a -> [:m | K wait: me] } after: 10 do: [K wait: me].\n")
    assert found == [], text
