"""Source text to AST: the Lark LALR parser, its tree-to-AST callbacks, and source loading.

The callbacks run inside the LALR parser as each rule is reduced, so no parse
tree is built and nothing here recurses on the depth of the input.
"""
from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

from lark import Lark, Transformer
from lark.parsers.lalr_analysis import Shift

from lp.diagnostics import Diagnostic, LPError
from lp.syntax import ast as A
from lp.syntax.errors import UnexpectedToken, syntax_error, too_deep
from lp.syntax.lexer import OPENERS, BadCharacter, Lexer, Tok

MAX_NESTING = 256
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
GRAMMAR = Path(__file__).with_name("grammar.lark")


def _tok_span(file: str, t: Tok) -> A.Span:
    return A.Span(file, t.line, t.column, t.end_line, t.end_column)


class _SyntaxProblem(Exception):
    """Raised inside a callback; converted to a diagnostic by `parse_text`."""

    def __init__(self, message: str, span: A.Span, hint: str | None = None, label: str = ""):
        message = message[0].upper() + message[1:]
        if not message.endswith((".", "?")):
            message += "."
        super().__init__(message)
        self.diagnostic = Diagnostic("syntax error", message, span, hint=hint, label=label)


class _ToAst(Transformer):
    """Builds AST nodes as the parser reduces rules. `file` is set per parse."""

    def __init__(self):
        super().__init__(visit_tokens=False)
        self.file = "<input>"
        self.max_chain = 0   # longest chain of sends nested without brackets in this parse

    # -- helpers
    def sp(self, x) -> A.Span:
        if isinstance(x, Tok):
            return _tok_span(self.file, x)
        return x.span

    def between(self, a, b) -> A.Span:
        return self.sp(a).to(self.sp(b))

    def problem(self, message, at, hint=None, label=""):
        raise _SyntaxProblem(message, self.sp(at) if not isinstance(at, A.Span) else at, hint, label)

    # -- top level
    def start(self, items):
        out = []
        for it in items:
            if it is None or isinstance(it, Tok):
                continue
            if isinstance(it, A.Send) and isinstance(it.receiver, A.Name) \
                    and it.receiver.name == "Import" and it.selector == "module:":
                arg = it.args[0]
                if not isinstance(arg, A.SymLit):
                    self.problem("`Import module:` takes a module name as a symbol, like #Supervision",
                                 arg, label="expected a symbol")
                out.append(A.Import(arg.name, it.span))
            else:
                out.append(it)
        return out

    def class_decl(self, c):
        sup, _, sym = c[0], c[1], c[2]
        name_tok = sym
        name = sym[1:]
        if not (name[:1].isupper() and name.replace("_", "a").isalnum()):
            self.problem(f"`{sym}` is not a valid class name",
                         sym, hint="class names are capitalised identifiers, like #Counter")
        if not sup[:1].isupper():
            self.problem(f"`{sup}` cannot be a superclass: class names start with a capital letter", sup)
        fields = []
        has_list = False
        end = name_tok
        for t in c[3:]:
            if isinstance(t, Tok):
                end = t
                if t.type == "LPAR":
                    has_list = True
                elif t.type == "IDENT":
                    if t in fields:
                        self.problem(f"the field `{t}` is declared twice", t)
                    if t in A.PSEUDO_VARIABLES:
                        self.problem(f"`{t}` is reserved and cannot be a field name", t)
                    fields.append(str(t))
        return A.ClassDecl(name, str(sup), tuple(fields), has_list, self.between(sup, end))

    def method_decl(self, c):
        head, _, (selector, params), _, body = c
        if isinstance(head, A.Name) and head.name[:1].isupper():
            cls, side = head.name, False
        elif isinstance(head, A.Send) and head.selector == "class" and isinstance(head.receiver, A.Name) \
                and head.receiver.name[:1].isupper():
            cls, side = head.receiver.name, True
        else:
            self.problem("a method is defined on a class: write `Point >> selector = body` "
                         "or `Point class >> selector = body`", head, label="expected a class name")
        seen = set()
        for p in params:
            if p.name in seen:
                self.problem(f"the parameter `{p.name}` appears twice in this method's pattern", p.span)
            if p.name in A.PSEUDO_VARIABLES:
                self.problem(f"`{p.name}` is reserved and cannot name a parameter", p.span)
            seen.add(p.name)
        return A.MethodDecl(cls, side, selector, tuple(params), body, self.between(head, body))

    def unary_pattern(self, c):
        return str(c[0]), ()

    def binary_pattern(self, c):
        return str(c[0]), (A.Param(str(c[1]), self.sp(c[1])),)

    def keyword_pattern(self, c):
        sel = "".join(str(t) for t in c[0::2])
        return sel, tuple(A.Param(str(t), self.sp(t)) for t in c[1::2])

    # -- statements
    def statements(self, c):
        return [s for s in c if s is not None and not isinstance(s, Tok)]

    def assign(self, c):
        name, _, value = c
        if name in A.PSEUDO_VARIABLES:
            self.problem(f"`{name}` is reserved and cannot be bound with :=", name)
        return A.Assign(str(name), value, self.between(name, value), self.sp(name))

    def return_(self, c):
        return A.Return(c[1], self.between(c[0], c[1]))

    # -- sends
    def unary_send(self, c):
        recv, sel = c
        d = recv.chain + 1 if type(recv) is A.Send else 1
        if d > self.max_chain:
            self.max_chain = d
        return A.Send(recv, str(sel), (), self.between(recv, sel), self.sp(sel), d)

    def binary_send(self, c):
        left, op, right = c
        d = max(left.chain if type(left) is A.Send else 0, right.chain if type(right) is A.Send else 0) + 1
        if d > self.max_chain:
            self.max_chain = d
        return A.Send(left, str(op), (right,), self.between(left, right), self.sp(op), d)

    def keyword_send(self, c):
        recv = c[0]
        kws = c[1::2]
        sel = "".join(str(k) for k in kws)
        if sel in ("subclass:", "subclass:fields:"):
            self.problem("class declarations are only allowed at the top level, as "
                         "`Object subclass: #Name` or `Object subclass: #Name fields: (a b)`", kws[0])
        return A.Send(recv, sel, tuple(c[2::2]), self.between(recv, c[-1]), self.between(kws[0], kws[-1]))

    def cascade(self, c):
        first = c[0]
        if not isinstance(first, A.Send):
            self.problem("a cascade (`;`) sends more messages to the receiver of the last message "
                         "before it, but there is no message here", first)
        parts = [(A.Message(first.selector, first.args, first.selector_span.to(first.span)),)]
        parts += [p for p in c[1:] if not isinstance(p, Tok)]
        return A.Cascade(first.receiver, tuple(parts), self.between(first, parts[-1][-1]))

    def cascade_part(self, c):
        msgs = []
        i = 0
        kw_sel, kw_args, kw_start = [], [], None
        while i < len(c):
            t = c[i]
            if isinstance(t, Tok) and t.type == "IDENT":
                msgs.append(A.Message(str(t), (), self.sp(t)))
                i += 1
            elif isinstance(t, Tok) and t.type == "BINOP":
                msgs.append(A.Message(str(t), (c[i + 1],), self.between(t, c[i + 1])))
                i += 2
            else:
                kw_start = kw_start or t
                kw_sel.append(str(t))
                kw_args.append(c[i + 1])
                i += 2
        if kw_sel:
            msgs.append(A.Message("".join(kw_sel), tuple(kw_args), self.between(kw_start, kw_args[-1])))
        return tuple(msgs)

    # -- primaries
    def name(self, c):
        return A.Name(str(c[0]), self.sp(c[0]))

    def number(self, c):
        return parse_number(c[0], self.sp(c[0]))

    def string(self, c):
        return A.StrLit(c[0][1:-1].replace("''", "'"), self.sp(c[0]))

    def char(self, c):
        return A.CharLit(c[0][1:], self.sp(c[0]))

    def symbol(self, c):
        text = c[0][1:]
        if text.startswith("'"):
            text = text[1:-1].replace("''", "'")
        return A.SymLit(text, self.sp(c[0]), str(c[0]))

    def lit_word(self, c):
        if c[0] in ("true", "false", "nil"):
            return A.Name(str(c[0]), self.sp(c[0]))
        return A.SymLit(str(c[0]), self.sp(c[0]), str(c[0]))

    def lit_array(self, c):
        items = tuple(x for x in c[1:-1])
        return A.LitArray(items, self.between(c[0], c[-1]), str(c[0]))

    def block(self, c):
        params = []
        for t in c[1:-2]:
            if isinstance(t, Tok) and t.type == "BLOCK_PARAM":
                name = t[1:]
                if name in A.PSEUDO_VARIABLES:
                    self.problem(f"`{name}` is reserved and cannot name a block parameter", t)
                if any(p.name == name for p in params):
                    self.problem(f"the block parameter `{name}` appears twice", t)
                params.append(A.Param(name, self.sp(t)))
        return A.Block(tuple(params), tuple(c[-2]), self.between(c[0], c[-1]))

    def paren(self, c):
        body = c[1]
        if not body:
            self.problem("empty parentheses: put an expression inside, or remove them", self.between(c[0], c[-1]))
        if len(body) == 1 and not isinstance(body[0], (A.Assign, A.Return)):
            return body[0]
        return A.Sequence(tuple(body), self.between(c[0], c[-1]))

    def brace_items(self, c):
        return [x for x in c if x is not None and not isinstance(x, Tok)]

    def brace(self, c):
        items = c[1]
        span = self.between(c[0], c[-1])
        if items and all(isinstance(x, A.Send) and x.selector == "->" for x in items):
            return A.DispatchTable(tuple(A.TableEntry(x.receiver, x.args[0], x.span) for x in items), span)
        return A.BraceArray(tuple(items), span)

    def record_items(self, c):
        out = []
        seen = set()
        for i in range(0, len(c), 3):
            if c[i] is None:
                break
            key, value = c[i], c[i + 1]
            name = key[:-1]
            if name in seen:
                self.problem(f"the field `{name}` is given twice in this record", key)
            seen.add(name)
            out.append(A.RecordField(name, value, self.between(key, value)))
        return out

    def record(self, c):
        return A.Record(tuple(c[1]), self.between(c[0], c[-1]))


def _shown(text: str) -> str:
    """A literal as a message quotes it: a long one is cut in the middle."""
    return text if len(text) <= 40 else f"{text[:20]}…{text[-10:]}"


def _too_long(digits: str) -> bool:
    """More than 64 significant digits in any radix: out of 64-bit range, and not worth converting."""
    return len(digits.lstrip("0")) > 64


def parse_number(text: str, span: A.Span):
    neg = text.startswith("-")
    body = text[1:] if neg else text
    too_big = _SyntaxProblem(f"the integer literal `{_shown(text)}` does not fit in 64 bits",
                             span, hint="LP integers are signed 64-bit; use a Float for larger magnitudes")
    if "r" in body:
        radix_s, digits = body.split("r", 1)
        radix = int(radix_s) if len(radix_s.lstrip("0")) < 4 else 0
        if not 2 <= radix <= 36:
            raise _SyntaxProblem(f"radix {_shown(radix_s)} is out of range: radixes go from 2 to 36", span)
        if not digits:
            raise _SyntaxProblem(f"`{_shown(text)}` has no digits after the `r`", span,
                                 hint=f"write the digits right after it, as in {radix}r10")
        if _too_long(digits):
            raise too_big
        try:
            value = int(digits, radix)
        except ValueError:
            raise _SyntaxProblem(f"`{_shown(digits)}` is not a number in base {radix}", span)
        if any(ch.islower() for ch in digits):
            raise _SyntaxProblem(f"digits above 9 are written in capitals: {radix}r{_shown(digits.upper())}", span)
    elif "." in body or "e-" in body:
        try:
            value = float(body)
        except ValueError:
            raise _SyntaxProblem(f"`{_shown(text)}` is not a valid number", span)
        if value == float("inf"):
            raise _SyntaxProblem(f"the float literal `{_shown(text)}` is too large", span)
        return A.FloatLit(-value if neg else value, span, str(text))
    elif "e" in body:
        mant, exp = body.split("e")
        if _too_long(mant) or len(exp.lstrip("0")) > 2 or int(exp) > 30:
            raise too_big
        value = int(mant) * 10 ** int(exp)
    else:
        if _too_long(body):
            raise too_big
        value = int(body)
    value = -value if neg else value
    if not INT_MIN <= value <= INT_MAX:
        raise too_big
    return A.IntLit(value, span, str(text))


_transformer = _ToAst()
_lark = Lark(
    GRAMMAR.read_text(),
    parser="lalr",
    lexer="contextual",
    transformer=_transformer,
    maybe_placeholders=True,
    cache=os.environ.get("LP_NO_PARSER_CACHE") is None,
)


def lark_internals(lark: Lark):
    """The LALR table and reduce callbacks, read from Lark's private attributes (hence the exact
    version pin in pyproject.toml and tests/syntax/test_lark_pin.py)."""
    try:
        table = lark.parser.parser._parse_table
        callbacks = lark.parser.parser.parser.callbacks
        table.states, table.start_states["start"], table.end_states["start"]
    except (AttributeError, KeyError) as e:
        import lark as lark_module
        raise RuntimeError(
            f"lp's parser drives Lark's LALR table through Lark internals that lark "
            f"{lark_module.__version__} does not have ({e}); install the Lark version pinned in "
            f"pyproject.toml") from e
    return table, callbacks


_TABLE, _CALLBACKS = lark_internals(_lark)
_START = _TABLE.start_states["start"]
_END = _TABLE.end_states["start"]
_lock = threading.Lock()


def _compact_table():
    """Lark's LALR table in the shape the driver wants: per state, a terminal maps to the next
    state (shift) or to (callback, rule length, rule name) (reduce); nonterminals map to gotos."""
    out = {}
    for state, acts in _TABLE.states.items():
        row = {}
        for sym, (action, arg) in acts.items():
            row[sym] = arg if action is Shift else (_CALLBACKS[arg], len(arg.expansion), arg.origin.name)
        out[state] = row
    return out


_STATES = _compact_table()


def _drive(lexer: Lexer):
    """Run Lark's LALR(1) table over the contextual token stream, reducing with the AST callbacks."""
    states = _STATES
    state_stack = [_START]
    values: list = []
    while True:
        actions = states[state_stack[-1]]
        tok = lexer.next(actions)
        if tok is None:
            break
        if tok.type in OPENERS and lexer.depth > MAX_NESTING:
            raise _SyntaxProblem(f"brackets are nested more than {MAX_NESTING} levels deep here, "
                                 "which is more than LP allows", _tok_span(_transformer.file, tok),
                                 hint="bind inner parts to names with := to flatten it")
        ttype = tok.type
        while True:
            act = actions.get(ttype)
            if type(act) is int:
                state_stack.append(act)
                values.append(tok)
                break
            if act is None:
                raise UnexpectedToken(tok, {k for k in actions if k.isupper()})
            callback, size, origin = act
            if size:
                args = values[-size:]
                del state_stack[-size:]
                del values[-size:]
            else:
                args = []
            values.append(callback(args))
            state_stack.append(states[state_stack[-1]][origin])
            actions = states[state_stack[-1]]
    end = Tok("$END", "", lexer.line, len(lexer.text) - lexer.line_start + 1, lexer.line,
              len(lexer.text) - lexer.line_start + 1, len(lexer.text))
    while True:
        actions = states[state_stack[-1]]
        act = actions.get("$END")
        if act is None or type(act) is int:
            raise UnexpectedToken(end, {k for k in actions if k.isupper()})
        callback, size, origin = act
        args = values[-size:] if size else []
        if size:
            del state_stack[-size:]
            del values[-size:]
        values.append(callback(args))
        state_stack.append(states[state_stack[-1]][origin])
        if state_stack[-1] == _END:
            return values[-1]


def parse_text(text: str, file: str = "<input>") -> A.Program:
    """Parse a whole LP source text. Raises LPError with one syntax diagnostic."""
    if not text.strip():
        raise LPError(Diagnostic("empty file", "This file has no code in it.",
                                 A.Span(file, 0, 0, 0, 0),
                                 hint="an LP program is a sequence of statements, like `'hello' displayNl.`"))
    lexer = Lexer(text)
    # The parse allocates many small acyclic objects; pausing the cycle collector halves its time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with _lock:
            _transformer.file = file
            _transformer.max_chain = 0
            items = _drive(lexer)
    except _SyntaxProblem as p:
        raise LPError(p.diagnostic) from None
    except (UnexpectedToken, BadCharacter) as e:
        raise LPError(syntax_error(e, text, file)) from None
    finally:
        if gc_was_enabled:
            gc.enable()
    comments = tuple(A.Comment(str(t)[1:-1], _tok_span(file, t)) for t in lexer.comments)
    if not items:
        what = "only comments" if comments else "only empty statements"
        raise LPError(Diagnostic("empty file", f"This file has {what} in it, and no code.",
                                 A.Span(file, 0, 0, 0, 0)))
    program = A.Program(tuple(items), file, comments, A.Span(file, 1, 1, items[-1].span.end_line,
                                                            items[-1].span.end_col))
    if (lexer.max_depth + 1) * (_transformer.max_chain + 4) > MAX_NESTING:
        deep = _too_deep(program)   # only when brackets and send chains could add up to too much
        if deep is not None:
            raise LPError(too_deep(deep, MAX_NESTING))
    return program


def tokens(text: str, file: str = "<input>") -> list[Tok]:
    """The tokens of a text (comments excluded) as the parser classifies them; the text must parse."""
    lexer = Lexer(text)
    seen: list[Tok] = []
    next_token = lexer.next

    def recording(accepts):
        tok = next_token(accepts)
        if tok is not None:
            seen.append(tok)
        return tok

    lexer.next = recording
    with _lock:
        _transformer.file = file
        _drive(lexer)
    return seen


def _too_deep(program: A.Program):
    """The first node nested more than MAX_NESTING levels down, found without recursion."""
    stack = [(program, -2)]   # the program and its statement are not levels of an expression
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return node
        for ch in node.children():
            stack.append((ch, depth + 1))
    return None


def read_source(path: str) -> str:
    """Read an LP source file as UTF-8, turning every way that can fail into a diagnostic."""
    where = A.Span(path, 0, 0, 0, 0)
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise LPError(Diagnostic("file not found", f"There is no file at `{path}`.", where)) from None
    except IsADirectoryError:
        raise LPError(Diagnostic("not a file", f"`{path}` is a directory, not an LP source file.", where)) from None
    except PermissionError:
        raise LPError(Diagnostic("cannot read file", f"Permission to read `{path}` was denied.", where)) from None
    except OSError as e:
        raise LPError(Diagnostic("cannot read file", f"`{path}` could not be read: {e.strerror}.", where)) from None
    if data.startswith(b"\xef\xbb\xbf"):   # a byte-order mark some editors write
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[:e.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        raise LPError(Diagnostic(
            "not utf-8", f"This file is not valid UTF-8: byte 0x{data[e.start]:02x} at line {line}, "
            f"column {col} cannot be decoded.", A.Span(path, line, col, line, col + 1),
            hint="LP source files are UTF-8 text")) from None
    if "\x00" in text:
        i = text.index("\x00")
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        raise LPError(Diagnostic("binary file", "This file contains a NUL byte, so it is not LP source text.",
                                 A.Span(path, line, col, line, col + 1)))
    return text


def parse_file(path: str) -> tuple[A.Program, str]:
    text = read_source(path)
    return parse_text(text, path), text
