"""LP diagnostics as LSP diagnostics: the message and hint as `lp check` words them, notes as related locations."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lsprotocol import types as T
from pygls.uris import from_fs_path

from lp.diagnostics import Diagnostic, SourceMap
from lp.lsp.positions import to_range
from lp.modules import STDLIB

_SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
             "info": T.DiagnosticSeverity.Information, "hint": T.DiagnosticSeverity.Hint}


def file_uri(file: str) -> str:
    if file.startswith("stdlib/") and not Path(file).is_file():
        return from_fs_path(str(STDLIB / file[len("stdlib/"):]))
    return from_fs_path(str(Path(file).resolve()))


def to_lsp(d: Diagnostic, sources: SourceMap) -> T.Diagnostic:
    message = d.message
    related = []
    for note in d.notes:
        if note.span is not None and note.span.line > 0:
            related.append(T.DiagnosticRelatedInformation(
                T.Location(file_uri(note.span.file), to_range(note.span, sources)), note.message))
        else:
            message += "\n\n" + note.message
    if d.hint:
        message += f"\n\nHint: {d.hint}"
    span = d.span
    rng = to_range(span, sources) if span is not None else T.Range(T.Position(0, 0), T.Position(0, 0))
    return T.Diagnostic(range=rng, message=message, severity=_SEVERITY.get(d.severity, T.DiagnosticSeverity.Error),
                        source="lp", code=d.title, related_information=related or None)


def for_document(diags, path: str, sources: SourceMap) -> list[T.Diagnostic]:
    """The diagnostics to show in the document at `path`; one in an imported module is shown at the top."""
    out = []
    for d in diags:
        if d.span is not None and d.span.file not in (path, "<input>") and d.span.line > 0:
            d = d.with_note(f"(in {d.span.file})", d.span)
            d = replace(d, span=None)
        out.append(to_lsp(d, sources))
    return out
