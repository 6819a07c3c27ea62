"""Hover, go to definition, completion and document symbols on one small program."""
from __future__ import annotations

import pytest
from lsprotocol import types as T

from tests.lsp.conftest import at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

PROGRAM = """Object subclass: #Point fields: (x y).
Point >> + other = Point fields: { x: self x + other x. y: self y + other y }.
Point >> norm2 = self x * self x + (self y * self y).
Point class >> origin = Point fields: { x: 0. y: 0 }.
Object subclass: #Circle fields: (r).
Circle >> norm2 = self r * self r.
xs := #(1 2 3).
total := xs inject: 0 into: [:a :b | a + b].
p := Point origin + Point origin.
p norm2 printNl.
util := [:shape | shape norm2].
"""


@pytest.fixture(scope="module")
def client(module_client):
    return module_client


async def _open(client, tmp_path):
    return await open_doc(client, tmp_path / "nav.lp", PROGRAM)


def _hover_text(h) -> str:
    return h.contents.value


async def test_hover_shows_the_type_of_a_binding(client, tmp_path):
    uri = await _open(client, tmp_path)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), at(6, 0)))
    assert "xs : Array[Integer]" in _hover_text(h)


async def test_hover_shows_the_signature_of_a_send(client, tmp_path):
    uri = await _open(client, tmp_path)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), at(7, 13)))
    assert "Array[Integer] >> inject: Integer into: Block[Integer, Integer -> Integer] -> Integer" in _hover_text(h)


async def test_hover_shows_a_method_signature(client, tmp_path):
    uri = await _open(client, tmp_path)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), at(1, 6)))
    assert "Point >> + Point -> Point" in _hover_text(h)


async def test_definition_jumps_to_the_method(client, tmp_path):
    uri = await _open(client, tmp_path)
    locs = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), at(9, 3)))
    assert [(loc.uri, loc.range.start.line) for loc in locs] == [(uri, 2)]


async def test_definition_of_a_polymorphic_send_lists_every_implementation(client, tmp_path):
    uri = await _open(client, tmp_path)
    locs = await client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), at(10, 25)))
    assert sorted(loc.range.start.line for loc in locs) == [2, 5]


async def test_definition_of_classes_fields_and_bindings(client, tmp_path):
    uri = await _open(client, tmp_path)

    async def first(line, char):
        locs = await client.text_document_definition_async(
            T.DefinitionParams(T.TextDocumentIdentifier(uri), at(line, char)))
        return (locs[0].range.start.line, locs[0].range.start.character)

    assert await first(8, 6) == (0, 0)            # Point -> its class declaration
    assert await first(7, 10) == (6, 0)           # xs -> its binding
    assert await first(7, 37) == (7, 29)          # a -> the block parameter
    assert await first(2, 22) == (0, 33)          # self x -> the field x


async def test_completion_offers_the_selectors_of_the_receivers_class(client, tmp_path):
    uri = await _open(client, tmp_path)
    res = await client.text_document_completion_async(
        T.CompletionParams(T.TextDocumentIdentifier(uri), at(9, 2)))
    labels = {i.label for i in res.items}
    assert {"norm2", "x", "y", "+", "printNl"} <= labels
    assert "r" not in labels and "inject:into:" not in labels


async def test_document_symbols_list_classes_and_their_methods(client, tmp_path):
    uri = await _open(client, tmp_path)
    syms = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    assert [(s.name, [c.name for c in s.children]) for s in syms] == [
        ("Point", ["Point >> +", "Point >> norm2", "Point class >> origin"]),
        ("Circle", ["Circle >> norm2"])]
