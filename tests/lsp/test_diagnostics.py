"""Diagnostics: a type error arrives at its range with `lp check`'s words, and goes away once fixed."""
from __future__ import annotations

import pytest
from lsprotocol import types as T

from tests.lsp.conftest import open_doc, replace_text

BAD = "x := 3 + 'four'.\nx printNl.\n"
GOOD = "x := 3 + 4.\nx printNl.\n"


@pytest.mark.asyncio
async def test_type_error_reported_then_cleared(client, tmp_path):
    uri = await open_doc(client, tmp_path / "bad.lp", BAD)
    (d,) = client.diagnostics[uri]
    assert d.range == T.Range(T.Position(0, 9), T.Position(0, 15))
    assert d.severity == T.DiagnosticSeverity.Error
    assert d.code == "type mismatch"
    assert d.message.startswith("The argument of `+` is `String`, but `+` on `Integer` needs a number")
    await replace_text(client, uri, 2, GOOD)
    assert not client.diagnostics[uri]


@pytest.mark.asyncio
async def test_syntax_error_reported(client, tmp_path):
    uri = await open_doc(client, tmp_path / "syntax.lp", "x := (3 + .\n")
    (d,) = client.diagnostics[uri]
    assert d.code == "syntax error"
    assert d.range.start.line == 0


@pytest.mark.asyncio
async def test_notes_become_related_locations(client, tmp_path):
    text = "Object subclass: #A.\nObject subclass: #A.\n"
    uri = await open_doc(client, tmp_path / "dup.lp", text)
    (d,) = client.diagnostics[uri]
    assert d.code == "duplicate class"
    (rel,) = d.related_information
    assert rel.location.uri == uri
    assert rel.location.range.start.line == 0
    assert rel.message == "It was first declared here:"


@pytest.mark.asyncio
async def test_edit_after_an_inserted_line_keeps_ranges_right(client, tmp_path):
    uri = await open_doc(client, tmp_path / "moved.lp", BAD)
    await replace_text(client, uri, 2, "\n\n" + BAD)
    (d,) = client.diagnostics[uri]
    assert d.range.start == T.Position(2, 9)


@pytest.mark.asyncio
async def test_saving_an_imported_module_rechecks_its_importers(client, tmp_path):
    shapes = tmp_path / "shapes.lp"
    shapes.write_text("Object subclass: #Square fields: (side).\n")
    uri = await open_doc(client, tmp_path / "main.lp",
                         "Import module: #Shapes.\ns := Square fields: { side: 2 }.\ns area printNl.\n")
    (d,) = client.diagnostics[uri]
    assert d.code == "unknown selector" and d.range.start == T.Position(2, 2)
    shapes.write_text("Object subclass: #Square fields: (side).\nSquare >> area = self side * self side.\n")
    client.text_document_did_save(T.DidSaveTextDocumentParams(T.TextDocumentIdentifier(shapes.as_uri())))
    await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[uri]
