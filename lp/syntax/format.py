"""`lp fmt`: the canonical layout of an LP program.

The output depends only on the AST and the comments, so formatting is
idempotent and re-parsing the output gives the same AST. Comments are kept:
each is printed before the first statement (at any depth) that starts after it,
a comment on the same line after a top-level item stays at that line's end,
blocks and sequences of several statements take one line per statement,
and comments after the last statement close the file.
"""
from __future__ import annotations

import math
import re

from lp.syntax import ast as A
from lp.syntax.doc import HARD, LINE, SOFT, _flat_width, cat, group, join, layout, nest, text

INDENT = 4
WIDTH = 80
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*:)+\Z")
_BINARY = re.compile(r"[+*/\\<>=~@%|&?,!-]+\Z")

HEAD_WIDTH = 50  # a keyword send whose last argument is a block keeps its other parts on one line up to this
_TRAILING_BODY = (A.Block, A.DispatchTable, A.Record, A.BraceArray)

# Precedence levels: what may appear unparenthesised where.
PRIMARY, UNARY, BINARY, KEYWORD, CASCADE = range(5)


def symbol_text(name: str) -> str:
    if _IDENT.match(name) or _KEYWORDS.match(name) or _BINARY.match(name):
        return "#" + name
    return "#'" + name.replace("'", "''") + "'"


def float_text(v: float) -> str:
    r = repr(v)
    if "e" in r:
        mant, exp = r.split("e")
        if "." not in mant:
            mant += ".0"
        return f"{mant}e{int(exp)}"
    return r


def string_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


class Formatter:
    def __init__(self, comments: tuple[A.Comment, ...] = ()):
        self.comments = sorted(comments, key=lambda c: (c.span.line, c.span.col))
        self.next_comment = 0

    # -- comments
    def comments_before(self, span: A.Span):
        docs = []
        while self.next_comment < len(self.comments):
            c = self.comments[self.next_comment]
            if (c.span.line, c.span.col) >= (span.line, span.col):
                break
            docs.append(c)
            self.next_comment += 1
        return docs

    def trailing_comment(self, end_line: int, limit: A.Span | None):
        if self.next_comment < len(self.comments):
            c = self.comments[self.next_comment]
            if c.span.line == end_line and (limit is None or (c.span.line, c.span.col) < (limit.line, limit.col)):
                self.next_comment += 1
                return c
        return None

    @staticmethod
    def comment_text(c: A.Comment) -> str:
        return '"' + c.text + '"'

    # -- program
    def program(self, p: A.Program) -> str:
        parts = []
        prev = None
        for i, item in enumerate(p.items):
            lead = self.comments_before(item.span)
            first_line = lead[0].span.line if lead else item.span.line
            if prev is not None and (_blank_between(prev, item) or first_line > prev.span.end_line + 1):
                parts.append("")
            for j, c in enumerate(lead):
                parts.append(self.comment_text(c))
                following = lead[j + 1].span.line if j + 1 < len(lead) else item.span.line
                if following > c.span.end_line + 1:
                    parts.append("")
            body = layout(self.item(item), WIDTH) + "."
            nxt = p.items[i + 1].span if i + 1 < len(p.items) else None
            tc = self.trailing_comment(item.span.end_line, nxt)
            if tc is not None:
                body += " " + self.comment_text(tc)
            parts.append(body)
            prev = item
        last_line = p.items[-1].span.end_line
        for c in self.comments[self.next_comment:]:
            if c.span.line > last_line + 1:
                parts.append("")
            parts.append(self.comment_text(c))
            last_line = c.span.end_line
        return "\n".join(parts) + "\n"

    def item(self, item):
        if isinstance(item, A.ClassDecl):
            s = f"{item.superclass} subclass: #{item.name}"
            if item.has_field_list or item.fields:
                s += " fields: (" + " ".join(item.fields) + ")"
            return text(s)
        if isinstance(item, A.MethodDecl):
            head = item.class_name + (" class" if item.class_side else "") + " >> " + _pattern(item)
            if isinstance(item.body, A.Sequence):
                return cat(text(head + " = "), self.expr(item.body, CASCADE))
            return group(cat(text(head + " ="), nest(INDENT, cat(LINE, self.expr(item.body, CASCADE)))))
        if isinstance(item, A.Import):
            return text(f"Import module: {symbol_text(item.module)}")
        return self.statement(item)

    # -- statements
    def statement(self, s):
        if isinstance(s, A.Assign):
            return cat(text(s.name + " := "), self.expr(s.value, CASCADE))
        if isinstance(s, A.Return):
            return cat(text("^"), self.expr(s.value, CASCADE))
        return self.expr(s, CASCADE)

    def statements(self, body):
        docs = []
        for i, s in enumerate(body):
            lead = [text(self.comment_text(c) + " ") for c in self.comments_before(s.span)]
            stmt = self.statement(s)
            docs.append(cat(*lead, stmt, text(".") if i < len(body) - 1 else None))
        return join(HARD if len(body) > 1 else LINE, docs)

    # -- expressions
    def expr(self, e, allowed: int):
        level = _level(e)
        doc = self._expr(e)
        if level > allowed:
            return cat(text("("), doc, text(")"))
        return doc

    def _expr(self, e):
        if isinstance(e, A.IntLit):
            return text(str(e.value))
        if isinstance(e, A.FloatLit):
            return text(float_text(e.value))
        if isinstance(e, A.StrLit):
            return text(string_text(e.value))
        if isinstance(e, A.CharLit):
            return text("$" + e.value)
        if isinstance(e, A.SymLit):
            return text(symbol_text(e.name))
        if isinstance(e, A.Name):
            return text(e.name)
        if isinstance(e, A.LitArray):
            return text(_lit_array(e))
        if isinstance(e, A.Block):
            return self.block(e)
        if isinstance(e, A.Send):
            return self.send(e)
        if isinstance(e, A.Cascade):
            return self.cascade(e)
        if isinstance(e, A.BraceArray):
            return self.braces([self.expr(x, CASCADE) for x in e.items])
        if isinstance(e, A.DispatchTable):
            return self.braces([cat(self.expr(t.key, UNARY), text(" -> "), self.expr(t.handler, UNARY))
                                for t in e.entries])
        if isinstance(e, A.Record):
            return self.braces([cat(text(f.name + ": "), self.expr(f.value, CASCADE)) for f in e.fields])
        if isinstance(e, A.Sequence):
            return group(cat(text("("), nest(INDENT, cat(SOFT, self.statements(e.body))), SOFT, text(")")))
        if isinstance(e, (A.Assign, A.Return)):
            return cat(text("("), self.statement(e), text(")"))
        raise TypeError(f"cannot format {type(e).__name__}")

    def braces(self, items):
        if not items:
            return text("{}")
        body = join(cat(text("."), LINE), items)
        return group(cat(text("{"), nest(INDENT, cat(LINE, body)), LINE, text("}")))

    def block(self, b: A.Block):
        head = "[" + "".join(f":{p.name} " for p in b.params) + ("| " if b.params else "")
        if not b.body:
            return text(head.rstrip() + "]") if b.params else text("[]")
        return group(cat(text(head.rstrip() if b.params else "["),
                         nest(INDENT, cat(LINE if b.params else SOFT, self.statements(b.body))),
                         SOFT, text("]")))

    def message(self, selector, args):
        kind = A.selector_kind(selector)
        if kind == "unary":
            return text(selector), False
        if kind == "binary":
            return cat(text(selector + " "), self.expr(args[0], UNARY)), False
        parts = [cat(text(k + " "), self.expr(a, BINARY)) for k, a in zip(A.keyword_parts(selector), args)]
        return parts, True

    def send(self, s: A.Send):
        kind = s.kind
        if kind == "unary":
            return cat(self.expr(s.receiver, UNARY), text(" " + s.selector))
        if kind == "binary":
            return cat(self.expr(s.receiver, BINARY), text(" " + s.selector + " "), self.expr(s.args[0], UNARY))
        recv = self.expr(s.receiver, BINARY)
        parts, _ = self.message(s.selector, s.args)
        if len(parts) == 1:
            return cat(recv, text(" "), parts[0])
        if isinstance(s.args[-1], _TRAILING_BODY):
            head = cat(recv, text(" "), join(text(" "), parts[:-1]))
            if _flat_width(head, HEAD_WIDTH) is not None:
                return cat(head, text(" "), parts[-1])
        return group(cat(recv, nest(INDENT, cat(LINE, join(LINE, parts)))))

    def cascade(self, c: A.Cascade):
        chains = []
        for chain in c.parts:
            docs = []
            for m in chain:
                d, is_kw = self.message(m.selector, m.args)
                docs.append(join(text(" "), d) if is_kw else d)
            chains.append(join(text(" "), docs))
        return group(cat(self.expr(c.receiver, UNARY),
                         nest(INDENT, cat(LINE, join(cat(text(";"), LINE), chains)))))


def _level(e) -> int:
    if isinstance(e, A.Send):
        return {"unary": UNARY, "binary": BINARY, "keyword": KEYWORD}[e.kind]
    if isinstance(e, A.Cascade):
        return CASCADE
    if isinstance(e, (A.Assign, A.Return)):
        return CASCADE + 1
    return PRIMARY


def _pattern(m: A.MethodDecl) -> str:
    if m.kind == "unary":
        return m.selector
    if m.kind == "binary":
        return f"{m.selector} {m.params[0].name}"
    return " ".join(f"{k} {p.name}" for k, p in zip(A.keyword_parts(m.selector), m.params))


def _lit_array(e: A.LitArray) -> str:
    out = []
    for x in e.items:
        if isinstance(x, A.LitArray):
            out.append(_lit_array(x))
        elif isinstance(x, A.IntLit):
            out.append(str(x.value))
        elif isinstance(x, A.FloatLit):
            out.append(float_text(x.value))
        elif isinstance(x, A.StrLit):
            out.append(string_text(x.value))
        elif isinstance(x, A.CharLit):
            out.append("$" + x.value)
        elif isinstance(x, A.SymLit):
            out.append(symbol_text(x.name))
        elif isinstance(x, A.Name):
            out.append(x.name)
    return "#(" + " ".join(out) + ")"


def _blank_between(prev, item) -> bool:
    kinds = (type(prev), type(item))
    if A.MethodDecl in kinds:
        return True
    return _group_of(prev) != _group_of(item)


def _group_of(item) -> str:
    if isinstance(item, A.Import):
        return "import"
    if isinstance(item, A.ClassDecl):
        return "class"
    if isinstance(item, A.MethodDecl):
        return "method"
    return "statement"


def format_program(program: A.Program) -> str:
    return Formatter(program.comments).program(program)
