"""The typed IR: built from the checked program, printed by `lp ir`."""
from lp.cli import main
from lp.ir import build_program
from lp.ir import nodes as I
from lp.modules import Loader
from lp.diagnostics import SourceMap
from lp.types import check_program

SRC = """Integer >> fib = self < 2 ifTrue: [self] ifFalse: [(self - 1) fib + (self - 2) fib].
Object subclass: #Point fields: (x y).
Point >> find: n = (#(1 2 3) do: [:e | e = n ifTrue: [^e]]. 0).
q := 5.
b := [:k | k + q].
(b value: 30 fib) printNl.
"""


def _ir(tmp_path, src=SRC):
    f = tmp_path / "p.lp"
    f.write_text(src)
    main_mod, imports = Loader(SourceMap()).load_main(str(f))
    return build_program(main_mod, imports, check_program(main_mod, imports))


def test_types_tail_positions_and_inlining(tmp_path):
    prog = _ir(tmp_path)
    fib = prog.methods[("Integer", False, "fib")]
    assert fib.self_var.type == I.Ty("Integer") and fib.type == I.Ty("Integer")
    body = fib.body.stmts[0]
    assert isinstance(body, I.If) and body.tail and not body.one_branch
    plus = body.else_.stmts[0]
    assert isinstance(plus, I.Send) and plus.selector == "+" and plus.tail
    assert not plus.args[0].tail and plus.args[0].selector == "fib"
    assert prog.classes["Point"].fields == ("x", "y") and not prog.classes["Point"].builtin


def test_closures_list_captures_and_nonlocal_returns(tmp_path):
    prog = _ir(tmp_path)
    find = prog.methods[("Point", False, "find:")]
    assert find.returns
    blk = find.body.stmts[0].body.stmts[0].args[0]
    assert isinstance(blk, I.Closure) and blk.returns
    assert [c.name for c in blk.captures] == ["n"]
    let_b = prog.main.stmts[1]
    assert isinstance(let_b.value, I.Closure)
    assert [c.name for c in let_b.value.captures] == ["q"]
    assert let_b.value.captures[0] is prog.main.stmts[0].var


def test_lp_ir_prints_the_program(tmp_path, capsys):
    f = tmp_path / "p.lp"
    f.write_text(SRC)
    assert main(["ir", str(f)]) == 0
    out = capsys.readouterr().out
    assert "method Integer >> fib (self." in out
    assert "send #+ tail : Integer" in out
    assert "captures (q." in out
