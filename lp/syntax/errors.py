"""Syntax errors in words: turns Lark's token-level failures into LP diagnostics.

Each message says what was found and what was expected in the reader's terms
("a name", "an expression", "']' to end the block started at 2:5"), never as a
list of terminal names.
"""
from __future__ import annotations

from lp.diagnostics import Diagnostic
from lp.syntax.ast import Span
from lp.syntax.lexer import BadCharacter


class UnexpectedToken(Exception):
    """The parser's state has no action for this token; `expected` are the terminals it had."""

    def __init__(self, token, expected: set[str]):
        super().__init__(f"unexpected {token.type}")
        self.token, self.expected = token, expected

WORDS = {
    "DOT": "'.'", "RBRACK": "']'", "RPAR": "')'", "RBRACE": "'}'", "SEMI": "';'",
    "BAR": "'|'", "ASSIGN": "':='", "CARET": "'^'", "EQUAL": "'='", "DEFINE": "'>>'",
    "LPAR": "'('", "LBRACK": "'['", "LBRACE": "'{'", "HASHPAR": "'#('",
    "IDENT": "a name", "KEYWORD": "a keyword like `at:`", "KEYWORD_SEQ": "a keyword selector",
    "BINOP": "a binary operator", "NUMBER": "a number", "STRING": "a string",
    "CHAR": "a character", "SYMBOL": "a symbol", "BLOCK_PARAM": "a block parameter like `:x`",
    "FIELDS": "`fields:`", "SUBCLASS": "`subclass:`", "$END": "the end of the file",
}
ORDER = list(WORDS)
EXPR_START = {"IDENT", "NUMBER", "STRING", "CHAR", "SYMBOL", "HASHPAR", "LBRACK", "LPAR", "LBRACE"}
MESSAGE_START = {"IDENT", "BINOP", "KEYWORD"}
HIDDEN = {"DEFINE", "SUBCLASS", "FIELDS", "ASSIGN"}
CLOSER_TERM = {"(": "RPAR", "#(": "RPAR", "[": "RBRACK", "{": "RBRACE"}
CLOSER_CHAR = {"(": ")", "#(": ")", "[": "]", "{": "}"}
KIND = {"(": "parenthesis", "#(": "literal array", "[": "block", "{": "brace"}


def _join(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def describe_expected(expected: set[str]) -> str:
    exp = set(expected) - HIDDEN
    words = []
    if "EQUAL" in exp:
        return "'=' and then the method's body" if "KEYWORD" not in exp else \
            "another keyword part, or '=' and then the method's body"
    if len(EXPR_START & exp) >= 5:
        words.append("an expression")
        exp -= EXPR_START
    if MESSAGE_START <= exp:
        words.append("a message")
        exp -= MESSAGE_START
    words += [WORDS.get(t, t) for t in sorted(exp, key=lambda t: ORDER.index(t) if t in ORDER else 99)]
    return _join(words) if words else "something else"


def describe_token(tok) -> str:
    t, v = tok.type, str(tok)
    if t == "$END":
        return "the end of the file"
    if t == "IDENT":
        return f"the name `{v}`"
    if t in ("KEYWORD", "KEYWORD_SEQ", "SUBCLASS", "FIELDS"):
        return f"the keyword `{v}`"
    if t == "NUMBER":
        return f"the number `{v}`"
    if t == "STRING":
        return "a string"
    if t == "CHAR":
        return f"the character `{v}`"
    if t == "SYMBOL":
        return f"the symbol `{v}`"
    if t == "BLOCK_PARAM":
        return f"the block parameter `{v}`"
    if t == "BINOP":
        return f"the operator `{v}`"
    return f"'{v}'"


def open_brackets(text: str, upto: int) -> list[tuple[str, int, int, int]]:
    """Brackets still open at offset `upto`: (opener, line, col, offset), outermost first."""
    stack: list[tuple[str, int, int, int]] = []
    i, line, col = 0, 1, 1
    n = min(upto, len(text))
    while i < n:
        c = text[i]
        if c in "'\"":
            j = i + 1
            while j < len(text):
                if text[j] == c:
                    if c == "'" and j + 1 < len(text) and text[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            seg = text[i:j + 1]
            nl = seg.count("\n")
            if nl:
                line += nl
                col = len(seg) - seg.rfind("\n")
            else:
                col += len(seg)
            i = j + 1
            continue
        if c == "$":
            step = 2 if i + 1 < len(text) else 1
            if step == 2 and text[i + 1] == "\n":
                line, col = line + 1, 1
            else:
                col += step
            i += step
            continue
        if c == "#" and i + 1 < len(text) and text[i + 1] == "(":
            stack.append(("#(", line, col, i))
            i, col = i + 2, col + 2
            continue
        if c in "([{":
            stack.append((c, line, col, i))
        elif c in ")]}" and stack:
            stack.pop()
        if c == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    return stack


def _unexpected_characters(e: BadCharacter, text: str, file: str) -> Diagnostic:
    line, col, ch = e.line, e.column, e.char
    at = Span(file, line, col, line, col + 1)
    if ch == "'":
        eol = text.find("\n", e.pos_in_stream)
        eol = len(text) if eol < 0 else eol
        return Diagnostic("syntax error", "This string is never closed: it needs a closing `'`.",
                          Span(file, line, col, line, col + (eol - e.pos_in_stream)),
                          hint="a quote inside a string is written twice: 'it''s'",
                          label="the string starts here")
    if ch == '"':
        return Diagnostic("syntax error", 'This comment is never closed: it needs a closing `"`.', at,
                          label="the comment starts here")
    if ch == "$":
        return Diagnostic("syntax error", "A `$` must be followed by the character it stands for, as in `$a`.", at)
    if ch == "#" and text.startswith("#'", e.pos_in_stream):
        eol = text.find("\n", e.pos_in_stream)
        eol = len(text) if eol < 0 else eol
        return Diagnostic("syntax error", "This quoted symbol is never closed: it needs a closing `'`.",
                          Span(file, line, col, line, col + (eol - e.pos_in_stream)),
                          hint="a quote inside a quoted symbol is written twice: #'it''s'",
                          label="the symbol starts here")
    if ch == "#":
        return Diagnostic("syntax error",
                          "A `#` must be followed by a symbol name (`#ping`, `#at:put:`, `#+`) "
                          "or by `(` to start a literal array.", at)
    if ch == ":" and e.pos_in_stream > 0 and (text[e.pos_in_stream - 1].isalnum() or text[e.pos_in_stream - 1] == "_"):
        start = e.pos_in_stream
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        word = text[start:e.pos_in_stream + 1]
        return Diagnostic("syntax error",
                          f"The keyword `{word}` has no receiver: a keyword message is sent to an object, "
                          f"as in `handler {word} x`.",
                          Span(file, line, col - (e.pos_in_stream - start), line, col + 1),
                          label="no receiver before this keyword")
    if ch == ":":
        return Diagnostic("syntax error",
                          "A `:` on its own means nothing in LP. It belongs to keywords (`at:`), "
                          "block parameters (`[:x | x]`) and bindings (`x := 1`).", at)
    code = f"U+{ord(ch):04X}"
    shown = ch if ch.isprintable() else repr(ch)[1:-1]
    return Diagnostic("syntax error", f"The character `{shown}` ({code}) cannot appear in LP code outside "
                      "a string or a comment.", at)


def syntax_error(e: UnexpectedToken | BadCharacter, text: str, file: str) -> Diagnostic:
    if isinstance(e, BadCharacter):
        return _unexpected_characters(e, text, file)
    expected = e.expected
    tok = e.token
    if tok.type == "$END":
        return _unexpected_end(expected, text, file)
    span = Span(file, tok.line, tok.column, tok.end_line, tok.end_column)
    if tok.type == "KEYWORD" and "KEYWORD" not in expected and "IDENT" in expected:
        return Diagnostic("syntax error",
                          f"The keyword `{tok}` has no receiver: a keyword message is sent to an object, "
                          f"as in `handler {tok} x`.", span, label="no receiver before this keyword")
    stack = open_brackets(text, tok.start_pos)
    inner = stack[-1] if stack else None
    found = describe_token(tok)
    if tok.type in ("RPAR", "RBRACK", "RBRACE"):
        if inner is None:
            return Diagnostic("syntax error", f"This {found} closes nothing: there is no open bracket for it.",
                              span, label="unmatched")
        if CLOSER_TERM[inner[0]] != tok.type:
            opened = Span(file, inner[1], inner[2], inner[1], inner[2] + len(inner[0]))
            return Diagnostic("syntax error",
                              f"This {found} does not match the {KIND[inner[0]]} started at "
                              f"{inner[1]}:{inner[2]}, which needs '{CLOSER_CHAR[inner[0]]}'.",
                              span, label="mismatched").with_note(f"the {KIND[inner[0]]} starts here", opened)
    if inner is not None and CLOSER_TERM[inner[0]] in expected:
        alts = [WORDS[t] for t in ("DOT", CLOSER_TERM[inner[0]]) if t in expected]
        msg = f"expected {_join(alts)} to end the {KIND[inner[0]]} started at {inner[1]}:{inner[2]}"
    else:
        msg = f"expected {describe_expected(expected)}"
    return Diagnostic("syntax error", f"I found {found} here, but {msg}.", span, label="not expected here")


def _unexpected_end(expected: set[str], text: str, file: str) -> Diagnostic:
    stack = open_brackets(text, len(text))
    if stack:
        op, line, col, _ = stack[-1]
        alts = [WORDS[t] for t in ("DOT", CLOSER_TERM[op]) if t in expected] or [f"'{CLOSER_CHAR[op]}'"]
        return Diagnostic("syntax error",
                          f"The file ends before this {KIND[op]} is closed: expected {_join(alts)} "
                          f"to end the {KIND[op]} started at {line}:{col}.",
                          Span(file, line, col, line, col + len(op)), label=f"this {KIND[op]} is never closed")
    lines = text.split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    line, col = len(lines), len(lines[-1]) + 1
    return Diagnostic("syntax error", f"The file ends too early: expected {describe_expected(expected)}.",
                      Span(file, line, col, line, col + 1), label="the file ends here")


def too_deep(node, limit: int) -> Diagnostic:
    return Diagnostic("too deeply nested",
                      f"This expression is nested more than {limit} levels deep, which is more than LP allows.",
                      node.span, hint="bind inner parts to names with := to flatten it")
