"""LP's tokenizer: one master regular expression, made contextual by the parser.

The parser passes the set of terminals its current LALR state accepts, and a
few spellings are classified by it, exactly as Lark's contextual lexer would:
`=` is the method-definition EQUAL, `>>` DEFINE and `|` a block's BAR only where
those can appear (elsewhere they are binary operators); `subclass:` and
`fields:` are declaration keywords only after a class name at the top level;
`-` directly before a digit starts a negative literal only where an operand is
expected and no binary operator could be.
"""
from __future__ import annotations

import re

IDENT_RE = r"[A-Za-z_][A-Za-z0-9_]*"
_NUMBER_BODY = r"[0-9]+(?:r[0-9A-Za-z]*|(?:\.[0-9]+)?(?:e-?[0-9]+)?)"
_MASTER = re.compile(r"[ \t\f\r\n]*(?:" + "|".join([
    r'(?P<COMMENT>"[^"]*")',
    r"(?P<STRING>'[^']*+(?:''[^']*+)*+')",   # possessive: no backtracking state per character
    r"(?P<CHAR>\$[\s\S])",
    r"(?P<HASHPAR>\#\()",
    rf"(?P<SYMBOL>\#(?:(?:{IDENT_RE}:)+|{IDENT_RE}|[+*/\\<>=~@%|&?,!-]+|'[^']*+(?:''[^']*+)*+'))",
    rf"(?P<NUMBER>{_NUMBER_BODY})",
    rf"(?P<KW>{IDENT_RE}:(?!=)(?:{IDENT_RE}:(?!=))*)",
    rf"(?P<IDENT>{IDENT_RE})",
    rf"(?P<BLOCK_PARAM>:{IDENT_RE})",
    r"(?P<ASSIGN>:=)",
    r"(?P<OP>(?:[+*/\\<>=~@%|&?,!]|-(?![0-9]))+|-)",
    r"(?P<CARET>\^)", r"(?P<SEMI>;)", r"(?P<DOT>\.)",
    r"(?P<LPAR>\()", r"(?P<RPAR>\))", r"(?P<LBRACK>\[)", r"(?P<RBRACK>\])",
    r"(?P<LBRACE>\{)", r"(?P<RBRACE>\})",
]) + ")")
_NUMBER = re.compile(_NUMBER_BODY)
OPENERS = frozenset({"LPAR", "HASHPAR", "LBRACK", "LBRACE"})
CLOSERS = frozenset({"RPAR", "RBRACK", "RBRACE"})
_OP_AS = {"=": "EQUAL", ">>": "DEFINE", "|": "BAR"}
_MULTILINE = frozenset({"STRING", "CHAR"})
_KW_AS = {"subclass:": "SUBCLASS", "fields:": "FIELDS"}


class Tok(str):
    """A token: its text, with its terminal name and position (1-based line and column)."""
    __slots__ = ("type", "line", "column", "end_line", "end_column", "start_pos")

    def __new__(cls, type_, value, line, column, end_line, end_column, start_pos):
        t = str.__new__(cls, value)
        t.type = type_
        t.line = line
        t.column = column
        t.end_line = end_line
        t.end_column = end_column
        t.start_pos = start_pos
        return t


class BadCharacter(Exception):
    """No token can start at this position."""

    def __init__(self, char: str, line: int, column: int, pos: int):
        super().__init__(f"unexpected character {char!r}")
        self.char, self.line, self.column, self.pos_in_stream = char, line, column, pos


class Lexer:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.comments: list[Tok] = []
        self.depth = 0
        self.max_depth = 0

    def _make(self, type_: str, start: int, end: int) -> Tok:
        value = self.text[start:end]
        line, col = self.line, start - self.line_start + 1
        nl = value.count("\n")
        if nl:
            self.line += nl
            self.line_start = start + value.rfind("\n") + 1
            return Tok(type_, value, line, col, self.line, end - self.line_start + 1, start)
        return Tok(type_, value, line, col, line, col + (end - start), start)

    def next(self, accepts) -> Tok | None:
        """The next token (None at the end), classified for a parser state accepting `accepts`."""
        text = self.text
        while True:
            m = _MASTER.match(text, self.pos)
            if m is None:
                rest = len(text) - len(text[self.pos:].lstrip(" \t\f\r\n"))
                nl = text.count("\n", self.pos, rest)
                if nl:
                    self.line += nl
                    self.line_start = text.rfind("\n", self.pos, rest) + 1
                self.pos = rest
                if rest >= len(text):
                    return None
                raise BadCharacter(text[rest], self.line, rest - self.line_start + 1, rest)
            kind = m.lastgroup
            start = m.start(kind)
            end = m.end()
            if start > self.pos:
                nl = text.count("\n", self.pos, start)
                if nl:
                    self.line += nl
                    self.line_start = text.rfind("\n", self.pos, start) + 1
            if kind == "COMMENT":
                self.comments.append(self._make("COMMENT", start, end))
                self.pos = end
                continue
            if kind == "OP":
                op = text[start:end]
                if op == "-" and end < len(text) and text[end].isdigit() and "BINOP" not in accepts:
                    kind = "NUMBER"
                    end = _NUMBER.match(text, end).end()
                else:
                    alt = _OP_AS.get(op)
                    kind = alt if alt is not None and alt in accepts else "BINOP"
            elif kind == "KW":
                if text.count(":", start, end) > 1:
                    kind = "KEYWORD_SEQ"
                else:
                    alt = _KW_AS.get(text[start:end])
                    kind = alt if alt is not None and alt in accepts else "KEYWORD"
            elif kind in OPENERS:
                self.depth += 1
                if self.depth > self.max_depth:
                    self.max_depth = self.depth
            elif kind in CLOSERS:
                self.depth -= 1
            self.pos = end
            if kind in _MULTILINE:
                return self._make(kind, start, end)
            col = start - self.line_start + 1
            return Tok(kind, text[start:end], self.line, col, self.line, col + end - start, start)
