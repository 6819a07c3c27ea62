"""Formatting answers `lp fmt`'s text, and no document, however broken, stops the server."""
from __future__ import annotations

import pytest
from lsprotocol import types as T

from lp.syntax.format import format_program
from lp.syntax.parser import parse_text
from tests.lsp.conftest import at, open_doc, replace_text

MESSY = "x:=3+4 .   x    printNl.\nObject subclass:#A fields:(a b).\n"
GARBAGE = "Object subclass: #A fields: (a.\n]]]) := := #( 'unterminated\n\"x\n" + "[" * 300 + "\x01 $"


@pytest.mark.asyncio
async def test_formatting_answers_the_lp_fmt_text(client, tmp_path):
    uri = await open_doc(client, tmp_path / "messy.lp", MESSY)
    edits = await client.text_document_formatting_async(T.DocumentFormattingParams(
        T.TextDocumentIdentifier(uri), T.FormattingOptions(tab_size=4, insert_spaces=True)))
    (edit,) = edits
    assert edit.range.start == at(0, 0)
    assert edit.new_text == format_program(parse_text(MESSY, "messy.lp"))


@pytest.mark.asyncio
async def test_garbage_does_not_crash_the_server(client, tmp_path):
    uri = await open_doc(client, tmp_path / "garbage.lp", GARBAGE)
    assert client.diagnostics[uri]
    doc = T.TextDocumentIdentifier(uri)
    for line in range(4):
        for char in (0, 3, 10):
            await client.text_document_hover_async(T.HoverParams(doc, at(line, char)))
            await client.text_document_definition_async(T.DefinitionParams(doc, at(line, char)))
            await client.text_document_completion_async(T.CompletionParams(doc, at(line, char)))
    await client.text_document_document_symbol_async(T.DocumentSymbolParams(doc))
    assert await client.text_document_formatting_async(T.DocumentFormattingParams(
        doc, T.FormattingOptions(tab_size=4, insert_spaces=True))) is None
    await replace_text(client, uri, 2, "x := 1.\nx foo.\n")
    (d,) = client.diagnostics[uri]
    assert d.code == "unknown selector"
