"""Every grammar rule, with an exact AST assertion (spans are checked separately)."""
from __future__ import annotations

import pytest

from lp.syntax import ast as A
from lp.syntax.parser import parse_text


def items(src: str):
    return parse_text(src, "t.lp").items


def one(src: str):
    (item,) = items(src)
    return item


N = A.Name


def send(recv, sel, *args):
    return A.Send(recv, sel, tuple(args))


@pytest.mark.parametrize("src,value", [
    ("42", 42), ("-7", -7), ("16r1F", 31), ("-16r1F", -31), ("2r1010", 10), ("36rZZ", 1295),
    ("2e3", 2000), ("0", 0), ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -2**63),
])
def test_integers(src, value):
    assert one(src) == A.IntLit(value)


@pytest.mark.parametrize("src,value", [
    ("3.14", 3.14), ("1.5e3", 1500.0), ("-2.5e-3", -0.0025), ("1e-2", 0.01), ("0.5", 0.5),
])
def test_floats(src, value):
    assert one(src) == A.FloatLit(value)


def test_strings_chars_symbols():
    assert one("'it''s'") == A.StrLit("it's")
    assert one("''") == A.StrLit("")
    assert one("'two\nlines'") == A.StrLit("two\nlines")
    assert one("$a") == A.CharLit("a")
    assert one("$ ") == A.CharLit(" ")
    assert one("$'") == A.CharLit("'")
    assert one("#ping") == A.SymLit("ping")
    assert one("#at:put:") == A.SymLit("at:put:")
    assert one("#+") == A.SymLit("+")
    assert one("#->") == A.SymLit("->")
    assert one("#'hello world'") == A.SymLit("hello world")


def test_literal_array():
    assert one("#(1 2 #a 'x' foo at:put: $c -3 2.5 (1 2) #(3) true false nil)") == A.LitArray((
        A.IntLit(1), A.IntLit(2), A.SymLit("a"), A.StrLit("x"), A.SymLit("foo"), A.SymLit("at:put:"),
        A.CharLit("c"), A.IntLit(-3), A.FloatLit(2.5), A.LitArray((A.IntLit(1), A.IntLit(2))),
        A.LitArray((A.IntLit(3),)), N("true"), N("false"), N("nil")))
    assert one("#()") == A.LitArray(())


def test_brace_array_record_and_table():
    assert one("{ a. b + 1. c }") == A.BraceArray((N("a"), send(N("b"), "+", A.IntLit(1)), N("c")))
    assert one("{}") == A.BraceArray(())
    assert one("{ 1. }") == A.BraceArray((A.IntLit(1),))
    assert one("{ x: 7. y: 8 }") == A.Record((A.RecordField("x", A.IntLit(7)), A.RecordField("y", A.IntLit(8))))
    assert one("{ x: 7. }") == A.Record((A.RecordField("x", A.IntLit(7)),))
    handler = A.Block((A.Param("m"),), (N("m"),))
    assert one("{ Inc -> [:m | m]. #sym -> [:m | m] }") == A.DispatchTable((
        A.TableEntry(N("Inc"), handler), A.TableEntry(A.SymLit("sym"), handler)))
    # A brace mixing associations and other values stays an array.
    assert one("{ a -> b. c }") == A.BraceArray((send(N("a"), "->", N("b")), N("c")))


def test_blocks():
    assert one("[:a :b | a + b]") == A.Block((A.Param("a"), A.Param("b")), (send(N("a"), "+", N("b")),))
    assert one("[ 'no args' ]") == A.Block((), (A.StrLit("no args"),))
    assert one("[]") == A.Block((), ())
    assert one("[:x | ]") == A.Block((A.Param("x"),), ())
    assert one("[ a. b. ]") == A.Block((), (N("a"), N("b")))
    assert one("[:x | ^x]") == A.Block((A.Param("x"),), (A.Return(N("x")),))


def test_precedence_unary_binary_keyword():
    # unary binds tighter than binary, binary tighter than keyword; binary is left-associative
    got = one("a b + c d: e f + g h: i")
    assert got == send(send(send(N("a"), "b"), "+", N("c")), "d:h:",
                       send(send(N("e"), "f"), "+", N("g")), N("i"))
    assert one("1 + 2 * 3") == send(send(A.IntLit(1), "+", A.IntLit(2)), "*", A.IntLit(3))
    assert one("x - 1") == send(N("x"), "-", A.IntLit(1))
    assert one("x -1") == send(N("x"), "-", A.IntLit(1))
    assert one("x+-1") == send(N("x"), "+", A.IntLit(-1))
    assert one("x - -1") == send(N("x"), "-", A.IntLit(-1))
    assert one("a ! msg") == send(N("a"), "!", N("msg"))
    assert one("a >= b") == send(N("a"), ">=", N("b"))
    assert one("a , b") == send(N("a"), ",", N("b"))
    assert one("(a foo: b) bar") == send(send(N("a"), "foo:", N("b")), "bar")


def test_cascade():
    assert one("t show: 'a'; show: 'b'; cr") == A.Cascade(N("t"), (
        (A.Message("show:", (A.StrLit("a"),)),), (A.Message("show:", (A.StrLit("b"),)),), (A.Message("cr", ()),)))
    # the cascade receiver is the receiver of the last message before the first ';'
    assert one("a b c; d e; + 1 f: 2") == A.Cascade(send(N("a"), "b"), (
        (A.Message("c", ()),), (A.Message("d", ()), A.Message("e", ())),
        (A.Message("+", (A.IntLit(1),)), A.Message("f:", (A.IntLit(2),)))))


def test_statements_assign_return_sequence():
    assert items("x := 1. y := x + 1. ^y") == (
        A.Assign("x", A.IntLit(1)), A.Assign("y", send(N("x"), "+", A.IntLit(1))), A.Return(N("y")))
    assert items("a. . b.") == (N("a"), N("b"))
    assert one("(a := 1. a + 2)") == A.Sequence((A.Assign("a", A.IntLit(1)), send(N("a"), "+", A.IntLit(2))))
    assert one("(x := 1)") == A.Sequence((A.Assign("x", A.IntLit(1)),))
    assert one("((3))") == A.IntLit(3)


def test_class_declarations():
    assert one("Object subclass: #Inc") == A.ClassDecl("Inc", "Object", ())
    assert one("Object subclass: #Get fields: (reply)") == A.ClassDecl("Get", "Object", ("reply",), True)
    assert one("Shape subclass: #Circle fields: (radius center)") == \
        A.ClassDecl("Circle", "Shape", ("radius", "center"), True)
    assert one("Object subclass: #E fields: ()") == A.ClassDecl("E", "Object", (), True)
    assert one("Error subclass: #Timeout") == A.ClassDecl("Timeout", "Error", ())


def test_method_declarations():
    m = one("Counter class >> run: me count: n = me receive")
    assert m == A.MethodDecl("Counter", True, "run:count:", (A.Param("me"), A.Param("n")), send(N("me"), "receive"))
    assert one("Point >> + other = 3") == A.MethodDecl("Point", False, "+", (A.Param("other"),), A.IntLit(3))
    assert one("Point >> norm = [ 1 ] value") == \
        A.MethodDecl("Point", False, "norm", (), send(A.Block((), (A.IntLit(1),)), "value"))
    assert one("Point >> = other = self x = other x") == A.MethodDecl(
        "Point", False, "=", (A.Param("other"),), send(send(N("self"), "x"), "=", send(N("other"), "x")))
    assert one("P >> f = (a := 1. ^a)") == A.MethodDecl(
        "P", False, "f", (), A.Sequence((A.Assign("a", A.IntLit(1)), A.Return(N("a")))))


def test_import():
    assert one("Import module: #Supervision") == A.Import("Supervision")


def test_hoisting_mixes_items():
    prog = parse_text("x := 1.\nObject subclass: #A.\nA >> f = 1.\nImport module: #M.\n", "t.lp")
    assert [type(i).__name__ for i in prog.items] == ["Assign", "ClassDecl", "MethodDecl", "Import"]
    assert prog.statements == (A.Assign("x", A.IntLit(1)),)
    assert [c.name for c in prog.classes] == ["A"]


def test_comments_are_collected_with_spans():
    prog = parse_text('"first" x := 1. "second\nline"\ny', "t.lp")
    assert [c.text for c in prog.comments] == ["first", "second\nline"]
    assert (prog.comments[1].span.line, prog.comments[1].span.col) == (1, 17)


def test_spans():
    prog = parse_text("x := 3 +\n  foo bar: 2.", "s.lp")
    a = prog.items[0]
    assert (a.span.file, a.span.line, a.span.col, a.span.end_line, a.span.end_col) == ("s.lp", 1, 1, 2, 13)
    kw = a.value
    assert (kw.selector_span.line, kw.selector_span.col, kw.selector_span.end_col) == (2, 7, 11)
    assert (kw.receiver.span.line, kw.receiver.span.col) == (1, 6)
    blk = parse_text("[:a |\n a]", "s.lp").items[0]
    assert (blk.span.line, blk.span.col, blk.span.end_line, blk.span.end_col) == (1, 1, 2, 4)
    assert (blk.params[0].span.col, blk.params[0].span.end_col) == (2, 4)
