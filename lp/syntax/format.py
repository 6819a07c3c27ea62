"""`lp fmt`: the canonical layout of an LP program.

The output depends only on the AST, the literals' spellings and the comments,
so formatting is idempotent and re-parsing the output gives the same AST.
Literals are printed as written (`16rFF`, `1e6`, `#'sym'`). Every comment stays
between the same two tokens of code, up to one keyword or operator: it is
printed before the first node that starts after it (at any depth), a comment
before a closing bracket stays inside it, and one on a statement's last line
after its period stays at that line's end. At the top level, blank lines between
items and comments are kept, and comments after the last item close the file.
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


def literal_text(lit) -> str:
    """A number as its author wrote it, or in canonical form for a node built without source."""
    if lit.text is not None:
        return lit.text
    return str(lit.value) if isinstance(lit, A.IntLit) else float_text(lit.value)


def string_text(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


class Formatter:
    def __init__(self, comments: tuple[A.Comment, ...] = ()):
        self.comments = sorted(comments, key=lambda c: (c.span.line, c.span.col))
        self.next_comment = 0

    # -- comments
    def _take(self, line: int, col: int) -> list[A.Comment]:
        """The comments not printed yet that start before (line, col)."""
        out = []
        while self.next_comment < len(self.comments):
            c = self.comments[self.next_comment]
            if (c.span.line, c.span.col) >= (line, col):
                break
            out.append(c)
            self.next_comment += 1
        return out

    def comments_before(self, span: A.Span) -> list[A.Comment]:
        return self._take(span.line, span.col)

    def comments_within(self, span: A.Span) -> list[A.Comment]:
        return self._take(span.end_line, span.end_col)

    def lead(self, span: A.Span) -> str:
        """The comments before `span`, as text to print just before it."""
        return "".join(self.comment_text(c) + " " for c in self.comments_before(span))

    def closing(self, span: A.Span) -> str:
        """The comments left before the end of `span`, as text to print before its closing bracket."""
        return " ".join(self.comment_text(c) for c in self.comments_within(span))

    def trailing_comments(self, end_line: int, limit: tuple[int, int] | None) -> list[A.Comment]:
        """The comments that follow code ending on `end_line` on that same line (each further one
        starting on the line where the previous one ends), before the position `limit`."""
        out = []
        while self.next_comment < len(self.comments):
            c = self.comments[self.next_comment]
            if c.span.line != end_line or (limit is not None and (c.span.line, c.span.col) >= limit):
                break
            out.append(c)
            self.next_comment += 1
            end_line = c.span.end_line
        return out

    @staticmethod
    def comment_text(c: A.Comment) -> str:
        return '"' + c.text + '"'

    # -- program
    def program(self, p: A.Program) -> str:
        parts = []
        prev = None
        prev_end = 0   # the last source line of the previous item and the comments printed after it
        for i, item in enumerate(p.items):
            lead = self.comments_before(item.span)
            first_line = lead[0].span.line if lead else item.span.line
            if prev is not None and (_blank_between(prev, item) or first_line > prev_end + 1):
                parts.append("")
            for j, c in enumerate(lead):
                parts.append(self.comment_text(c))
                following = lead[j + 1].span.line if j + 1 < len(lead) else item.span.line
                if following > c.span.end_line + 1:
                    parts.append("")
            body = layout(self.item(item), WIDTH) + "."
            after = self.comments_within(item.span)   # left inside a class declaration or an import
            nxt = p.items[i + 1].span if i + 1 < len(p.items) else None
            after += self.trailing_comments(item.span.end_line, nxt and (nxt.line, nxt.col))
            body += "".join(" " + self.comment_text(c) for c in after)
            parts.append(body)
            prev = item
            prev_end = max([item.span.end_line] + [c.span.end_line for c in after])
        last_line = prev_end
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
            head = item.class_name + (" class" if item.class_side else "") + " >> " + self.pattern(item)
            if isinstance(item.body, A.Sequence):
                return cat(text(head + " = "), self.expr(item.body, CASCADE))
            return group(cat(text(head + " ="), nest(INDENT, cat(LINE, self.expr(item.body, CASCADE)))))
        if isinstance(item, A.Import):
            return text(f"Import module: {symbol_text(item.module)}")
        return self.statement(item)

    # -- statements
    def statement(self, s):
        lead = self.lead(s.span)
        if isinstance(s, A.Assign):
            return cat(text(lead + s.name + " := "), self.expr(s.value, CASCADE))
        if isinstance(s, A.Return):
            return cat(text(lead + "^"), self.expr(s.value, CASCADE))
        return cat(text(lead), self.expr(s, CASCADE))

    def statements(self, body, container: A.Span):
        """One doc per statement, then the comments before the container's closing bracket."""
        docs = []
        for i, s in enumerate(body):
            stmt = self.statement(s)
            last = i == len(body) - 1
            nxt = (container.end_line, container.end_col) if last else (body[i + 1].span.line, body[i + 1].span.col)
            trail = self.comments_within(s.span) + self.trailing_comments(s.span.end_line, nxt)
            docs.append(cat(stmt, text(("" if last else ".") + "".join(" " + self.comment_text(c) for c in trail))))
        closing = self.closing(container)
        if closing:
            docs.append(text(closing))
        return join(HARD if len(body) > 1 else LINE, docs)

    # -- expressions
    def expr(self, e, allowed: int):
        lead = self.lead(e.span)
        doc = self._expr(e)
        if _level(e) > allowed:
            doc = cat(text("("), doc, text(")"))
        return cat(text(lead), doc) if lead else doc

    def _expr(self, e):
        if isinstance(e, (A.IntLit, A.FloatLit)):
            return text(literal_text(e))
        if isinstance(e, A.StrLit):
            return text(string_text(e.value))
        if isinstance(e, A.CharLit):
            return text("$" + e.value)
        if isinstance(e, A.SymLit):
            return text(e.text or symbol_text(e.name))
        if isinstance(e, A.Name):
            return text(e.name)
        if isinstance(e, A.LitArray):
            return text(self.lit_array(e))
        if isinstance(e, A.Block):
            return self.block(e)
        if isinstance(e, A.Send):
            return self.send(e)
        if isinstance(e, A.Cascade):
            return self.cascade(e)
        if isinstance(e, A.BraceArray):
            return self.braces([self.expr(x, CASCADE) for x in e.items], e.span)
        if isinstance(e, A.DispatchTable):
            return self.braces([cat(self.expr(t.key, UNARY), text(" -> "), self.expr(t.handler, UNARY))
                                for t in e.entries], e.span)
        if isinstance(e, A.Record):
            return self.braces([cat(text(self.lead(f.span) + f.name + ": "), self.expr(f.value, CASCADE))
                                for f in e.fields], e.span)
        if isinstance(e, A.Sequence):
            return group(cat(text("("), nest(INDENT, cat(SOFT, self.statements(e.body, e.span))), SOFT, text(")")))
        if isinstance(e, (A.Assign, A.Return)):
            return cat(text("("), self.statement(e), text(")"))
        raise TypeError(f"cannot format {type(e).__name__}")

    def braces(self, items, span: A.Span):
        closing = self.closing(span)
        if not items:
            return text("{ " + closing + " }") if closing else text("{}")
        if closing:
            items[-1] = cat(items[-1], text(" " + closing))
        body = join(cat(text("."), LINE), items)
        return group(cat(text("{"), nest(INDENT, cat(LINE, body)), LINE, text("}")))

    def block(self, b: A.Block):
        head = "[" + "".join(f"{self.lead(p.span)}:{p.name} " for p in b.params) + ("| " if b.params else "")
        if not b.body:
            closing = self.closing(b.span)
            if closing:
                return text(head + closing + "]")
            return text(head.rstrip() + "]") if b.params else text("[]")
        return group(cat(text(head.rstrip() if b.params else "["),
                         nest(INDENT, cat(LINE if b.params else SOFT, self.statements(b.body, b.span))),
                         SOFT, text("]")))

    def lit_array(self, e: A.LitArray) -> str:
        out = []
        for x in e.items:
            lead = self.lead(x.span)
            if isinstance(x, A.LitArray):
                out.append(lead + self.lit_array(x))
            elif isinstance(x, (A.IntLit, A.FloatLit)):
                out.append(lead + literal_text(x))
            elif isinstance(x, A.StrLit):
                out.append(lead + string_text(x.value))
            elif isinstance(x, A.CharLit):
                out.append(lead + "$" + x.value)
            elif isinstance(x, A.SymLit):
                out.append(lead + (x.text or symbol_text(x.name)))
            elif isinstance(x, A.Name):
                out.append(lead + x.name)
        closing = self.closing(e.span)
        if closing:
            out.append(closing)
        return e.opener + " ".join(out) + ")"

    def pattern(self, m: A.MethodDecl) -> str:
        if m.kind == "unary":
            return m.selector
        if m.kind == "binary":
            return f"{m.selector} {self.lead(m.params[0].span)}{m.params[0].name}"
        return " ".join(f"{k} {self.lead(p.span)}{p.name}" for k, p in zip(A.keyword_parts(m.selector), m.params))

    def message(self, selector, args, selector_span: A.Span = A.NO_SPAN):
        """The doc of a message (keyword messages: one doc per part). Comments between the
        receiver (or a previous argument) and an operator or keyword stay before it."""
        kind = A.selector_kind(selector)
        lead = self.lead(selector_span)
        if kind == "unary":
            return text(lead + selector), False
        if kind == "binary":
            return cat(text(lead + selector + " "), self.expr(args[0], UNARY)), False
        parts = []
        for i, (k, a) in enumerate(zip(A.keyword_parts(selector), args)):
            if i:
                lead = self.lead(a.span)
            parts.append(cat(text(lead + k + " "), self.expr(a, BINARY)))
        return parts, True

    def send(self, s: A.Send):
        kind = s.kind
        recv = self.expr(s.receiver, {"unary": UNARY, "binary": BINARY, "keyword": BINARY}[kind])
        parts, _ = self.message(s.selector, s.args, s.selector_span)
        if kind != "keyword":
            return cat(recv, text(" "), parts)
        if len(parts) == 1:
            return cat(recv, text(" "), parts[0])
        if isinstance(s.args[-1], _TRAILING_BODY):
            head = cat(recv, text(" "), join(text(" "), parts[:-1]))
            if _flat_width(head, HEAD_WIDTH) is not None:
                return cat(head, text(" "), parts[-1])
        return group(cat(recv, nest(INDENT, cat(LINE, join(LINE, parts)))))

    def cascade(self, c: A.Cascade):
        receiver = self.expr(c.receiver, UNARY)
        chains = []
        for chain in c.parts:
            docs = []
            for m in chain:
                d, is_kw = self.message(m.selector, m.args, m.span)
                docs.append(join(text(" "), d) if is_kw else d)
            chains.append(join(text(" "), docs))
        return group(cat(receiver, nest(INDENT, cat(LINE, join(cat(text(";"), LINE), chains)))))


def _level(e) -> int:
    if isinstance(e, A.Send):
        return {"unary": UNARY, "binary": BINARY, "keyword": KEYWORD}[e.kind]
    if isinstance(e, A.Cascade):
        return CASCADE
    if isinstance(e, (A.Assign, A.Return)):
        return CASCADE + 1
    return PRIMARY


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
