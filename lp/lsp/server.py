"""The language server: pygls handlers for each feature, over one Workspace of analysed documents.

Every handler runs under `guarded`: an exception inside the server (a checker
crash on half-typed text, say) is logged to the client and answers no result;
the server keeps running.
"""
from __future__ import annotations

import functools
import logging
import sys
import traceback

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from lp import __version__
from lp.lsp.completion import completions
from lp.lsp.definition import definitions
from lp.lsp.formatting import format_edits
from lp.lsp.hover import hover_text
from lp.lsp.positions import from_position, to_range
from lp.lsp.report import file_uri, for_document
from lp.lsp.symbols import document_symbols
from lp.lsp.workspace import Workspace

log = logging.getLogger("lp.lsp")
server = LanguageServer("lp", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
docs = Workspace()


def guarded(fn):
    @functools.wraps(fn)
    def run(ls, params):
        try:
            return fn(ls, params)
        except Exception as e:  # noqa: BLE001 - the server must outlive its own bugs
            log.error("lp lsp: %s failed:\n%s", fn.__name__, traceback.format_exc())
            ls.window_log_message(T.LogMessageParams(
                type=T.MessageType.Error, message=f"lp lsp: {fn.__name__} failed: {type(e).__name__}: {e}"))
            return None
    return run


def _publish(ls: LanguageServer, uri: str) -> None:
    doc = ls.workspace.get_text_document(uri)
    a = docs.analyse(uri, doc.source)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
        uri=uri, version=doc.version, diagnostics=for_document(a.diagnostics, a.path, a.sources)))


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
@guarded
def did_open(ls, params: T.DidOpenTextDocumentParams):
    _publish(ls, params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
@guarded
def did_change(ls, params: T.DidChangeTextDocumentParams):
    _publish(ls, params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
@guarded
def did_save(ls, params: T.DidSaveTextDocumentParams):
    docs.invalidate()
    for uri in docs.open_uris():                     # any of them may import the saved file
        _publish(ls, uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
@guarded
def did_close(ls, params: T.DidCloseTextDocumentParams):
    docs.close(params.text_document.uri)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _where(ls, params):
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    line, col = from_position(params.position, text)
    return uri, text, line, col


@server.feature(T.TEXT_DOCUMENT_HOVER)
@guarded
def hover(ls, params: T.HoverParams):
    uri, text, line, col = _where(ls, params)
    a = docs.current(uri, text)
    found = hover_text(a, line, col) if a is not None else None
    if found is None:
        return None
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=f"```lp\n{found}\n```"))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@guarded
def definition(ls, params: T.DefinitionParams):
    uri, text, line, col = _where(ls, params)
    a = docs.current(uri, text)
    if a is None:
        return None
    spans = definitions(a, line, col)
    return [T.Location(uri if s.file == a.path else file_uri(s.file), to_range(s, a.sources)) for s in spans] or None


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions())
@guarded
def completion(ls, params: T.CompletionParams):
    uri, text, line, col = _where(ls, params)
    items = completions(docs.latest_checked(uri), text, line, col)
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def symbols(ls, params: T.DocumentSymbolParams):
    uri = params.text_document.uri
    a = docs.analyse(uri, ls.workspace.get_text_document(uri).source)
    return document_symbols(a.items, a.sources)


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@guarded
def formatting(ls, params: T.DocumentFormattingParams):
    uri = params.text_document.uri
    return format_edits(ls.workspace.get_text_document(uri).source, docs.path(uri))


def main() -> int:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server.start_io()
    return 0
