"""A client connected to `lp lsp` running in a subprocess, and helpers to open documents in it."""
from __future__ import annotations

import os
import sys

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import ROOT

_ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


_CONFIG = ClientServerConfig(server_command=[sys.executable, "-m", "lp", "lsp"], server_env=_ENV)


@pytest_lsp.fixture(config=_CONFIG)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=_CONFIG, scope="module")
async def module_client(lsp_client: LanguageClient):
    """One server for a whole test module, for tests that only read."""
    await lsp_client.initialize_session(T.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


async def open_doc(client: LanguageClient, path, text: str) -> str:
    """Open `text` as the document at `path`; answers its URI once its first diagnostics arrived."""
    uri = path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri=uri, language_id="lp", version=1, text=text)))
    await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def replace_text(client: LanguageClient, uri: str, version: int, text: str) -> None:
    """Send the whole new text as a change, and wait for the diagnostics that answer it."""
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [T.TextDocumentContentChangeWholeDocument(text=text)]))
    await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


def at(line: int, character: int) -> T.Position:
    return T.Position(line=line, character=character)
