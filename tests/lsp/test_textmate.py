"""editors/lp.tmLanguage.json on every example and stdlib module: each kind of token gets its scope.

Where a token is and what it is comes from LP's own parser (the AST's
literals, names, keyword selectors and the program's comments), so the
grammar is checked against the language, not against itself.
"""
from __future__ import annotations

from collections import Counter

import pytest

from lp.syntax import ast as A
from lp.syntax.parser import parse_text
from tests.conftest import EXAMPLES, ROOT
from tests.lsp.textmate import scope_at, tokenize

GRAMMAR = ROOT / "editors" / "lp.tmLanguage.json"
FILES = sorted(EXAMPLES.glob("*.lp")) + sorted((ROOT / "stdlib").glob("*.lp"))


def expected(program: A.Program, lines: list[str]):
    """(line, col, scope prefix) for every token whose class the grammar must recognise."""
    for c in program.comments:
        yield c.span.line, c.span.col, "comment"
    for item in program.items:
        for n in A.walk(item):
            s = getattr(n, "span", None)
            if isinstance(n, A.StrLit):
                yield s.line, s.col, "string"
            elif isinstance(n, A.SymLit) and lines[s.line - 1][s.col - 1] == "#":
                yield s.line, s.col, "constant.other.symbol"
            elif isinstance(n, (A.IntLit, A.FloatLit)):
                text = lines[s.line - 1]
                col = s.col + 1 if text[s.col - 1] == "-" else s.col
                yield s.line, col, "constant.numeric"
            elif isinstance(n, A.CharLit):
                yield s.line, s.col, "constant.character"
            elif isinstance(n, A.Send) and n.kind == "keyword":
                yield n.selector_span.line, n.selector_span.col, "entity.name.function.selector.keyword"
            elif isinstance(n, A.Name) and n.name[:1].isupper():
                yield s.line, s.col, "entity.name.type.class"
            elif isinstance(n, A.Name) and n.name in ("self", "super"):
                yield s.line, s.col, "variable.language"
            elif isinstance(n, A.ClassDecl):
                yield s.line, s.col, "entity.name.type.class"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_token_gets_its_scope(path):
    text = path.read_text(encoding="utf-8")
    tokens = tokenize(GRAMMAR, text)
    wrong = []
    for line, col, scope in expected(parse_text(text, str(path)), text.split("\n")):
        got = scope_at(tokens, line, col)
        if got is None or not got.startswith(scope):
            wrong.append(f"{path.name}:{line}:{col}: expected {scope}, got {got}")
    assert not wrong, "\n".join(wrong[:20])


def test_each_token_class_occurs_in_the_examples():
    seen = Counter()
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        seen.update(scope for _, _, scope in expected(parse_text(text, str(path)), text.split("\n")))
    assert {"comment", "string", "constant.other.symbol", "constant.numeric",
            "entity.name.function.selector.keyword", "entity.name.type.class"} <= set(seen)


def test_multi_line_comments_and_escaped_quotes():
    tokens = tokenize(GRAMMAR, "\"one\ntwo\" x := 'it''s'. $' printNl")
    assert scope_at(tokens, 2, 1).startswith("comment")
    assert scope_at(tokens, 2, 6) == "variable.other.lp"
    assert scope_at(tokens, 2, 16).startswith("string")
    assert scope_at(tokens, 2, 20) == "constant.character.lp"
