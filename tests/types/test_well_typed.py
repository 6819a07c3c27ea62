"""Well-typed programs check without a diagnostic, and some inferred types are as expected."""
from __future__ import annotations

from pathlib import Path

import pytest

from lp.syntax import ast as A
from lp.types.terms import show
from tests.types.helpers import check_source

CASES = Path(__file__).with_name("well_typed")
NAMES = sorted(p.stem for p in CASES.glob("*.lp"))


@pytest.mark.parametrize("name", NAMES)
def test_well_typed_program_checks(name):
    result, text = check_source((CASES / f"{name}.lp").read_text(), f"{name}.lp")
    assert result.diagnostics == [], text


def types_of_bindings(src):
    """name -> shown type of each top-level `name := expr`."""
    result, text = check_source(src)
    assert result.diagnostics == [], text
    program_items = [n for (n, _) in result.types.values() if isinstance(n, A.Assign)]
    out = {}
    for n in program_items:
        if n.span.file == "test.lp":
            out[n.name] = show(result.type_of(n))
    return out


def test_generalised_methods_and_blocks():
    t = types_of_bindings(
        "Object subclass: #Util.\nUtil class >> id: x = x.\n"
        "a := Util id: 3.\nb := Util id: 'three'.\nid := [:x | x].\nc := id value: #s.\n")
    assert t["a"] == "Integer" and t["b"] == "String" and t["c"] == "Symbol"
    assert t["id"] == "Block[a -> a]"


def test_numeric_results():
    t = types_of_bindings("a := 1 + 2.\nb := 1 + 2.0.\nc := 7 / 2.\nd := 7 // 2.\ne := 2.5 * 2.\n"
                          "f := 3 < 4.\ng := 3.0 max: 4.5.\nh := 7.5 // 2.\n")
    assert t == {"a": "Integer", "b": "Float", "c": "Float", "d": "Integer", "e": "Float",
                 "f": "Boolean", "g": "Float", "h": "Float"}


def test_deferred_sends_resolve_at_the_call():
    t = types_of_bindings("Object subclass: #M.\nM class >> double: x = x + x.\n"
                          "a := M double: 2.\nb := M double: 1.5.\n")
    assert t == {"a": "Integer", "b": "Float"}


def test_actor_types_carry_their_protocol():
    t = types_of_bindings(
        "Object subclass: #Inc.\nObject subclass: #Get fields: (reply).\n"
        "c := Actor spawn: [:me | me receive: { Inc -> [:m | 0]. Get -> [:g | g reply ! 42. 0] }].\n"
        "f := c ask: Get new.\nv := f await.\n"
        "e := Actor spawn: [:me | me receive: { #ping -> [:m | m] }].\n")
    assert t["c"] == "Actor[Inc | Get]"
    assert t["f"] == "Future[Integer]"
    assert t["v"] == "Integer"
    assert t["e"] == "Actor[#ping]"


def test_records_and_fields():
    t = types_of_bindings("Object subclass: #P fields: (x y).\np := P fields: { x: 1. y: 'a' }.\n"
                          "q := p with: { x: 2 }.\nx := q x.\ny := q y.\n")
    assert t == {"p": "P[Integer, String]", "q": "P[Integer, String]", "x": "Integer", "y": "String"}


def test_dynamic_is_explicit():
    t = types_of_bindings("v := JSON decode: '1'.\nw := v foo: 3.\n")
    assert t == {"v": "Dynamic", "w": "Dynamic"}


def test_types_map_covers_expressions():
    result, _ = check_source("x := 3 + 4.\ny := x printString.\n")
    kinds = {type(n).__name__ for (n, _) in result.types.values() if n is not None}
    assert {"IntLit", "Send", "Name", "Assign"} <= kinds


def test_generic_classes_have_a_type_per_instance():
    t = types_of_bindings("Object subclass: #Box fields: (contents).\nb := Box fields: { contents: 1 }.\n"
                          "c := b with: { contents: 'a' }.\nObject subclass: #Get fields: (reply).\n"
                          "g := Get new.\nObject subclass: #C fields: (n).\nC >> inc = C fields: { n: self n + 1 }.\n"
                          "k := C fields: { n: 1 }.\nj := C fields: { n: 2.5 }.\nObject subclass: #D fields: (n).\n"
                          "D class >> zero = D fields: { n: 0 }.\nm := D zero.\n")
    # a field methods send to (n + 1) is a parameter too; one a method builds with an Integer keeps one
    # type; a reply built without one is nil
    assert t == {"b": "Box[Integer]", "c": "Box[String]", "g": "Get[UndefinedObject]", "k": "C[Integer]",
                 "j": "C[Float]", "m": "D"}



def _check_with_imports(src, tmp_path):
    """Checked as `lp check` loads a program: core first, then the modules it imports."""
    from lp.diagnostics import SourceMap, render_all
    from lp.modules import Loader
    from lp.types import check_program
    main = tmp_path / "main.lp"
    main.write_text(src)
    sources = SourceMap()
    program, imports = Loader(sources).load_main(str(main))
    result = check_program(program, imports)
    return result, render_all(result.diagnostics, sources)


def test_websocket_block_receives_as_a_websocket(tmp_path):
    # `ws receive: 2000` takes a timeout, not a dispatch table: the parameter is not taken as an actor
    # (docs/network.md); it is a WebSocket once the block meets `webSocket:`'s parameter type
    serve = ("Import module: #HttpServer.\n"
             "server := HttpServer startHost: '127.0.0.1' port: 0 handler: [:req |\n"
             "    HttpResponse webSocket: [:ws | (ws receive: 2000) ifPresent: [:m | ws sendText: m {}]"
             " ifAbsent: [0]]].\n"
             "server stop printNl.\n")
    result, text = _check_with_imports(serve.format("text"), tmp_path)
    assert result.diagnostics == [], text
    result, text = _check_with_imports(serve.format("size"), tmp_path)
    assert [d.title for d in result.diagnostics] == ["unknown selector"], text
    assert "`WebSocketMessage` does not understand `size`" in text
