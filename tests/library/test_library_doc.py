"""docs/library.md is generated from the checker's signatures and is up to date."""
from __future__ import annotations

from lp.types import library as L
from lp.types.library_doc import render
from tests.conftest import ROOT


def test_docs_library_md_is_regenerated_byte_for_byte():
    committed = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    assert render() == committed, "run: python -m lp.types.library_doc > docs/library.md"


def test_every_typed_selector_has_a_line():
    doc = render()
    for cls, table in L.INSTANCE_SIGS.items():
        for sel in table:
            assert f"| `{sel.replace('|', chr(92) + '|')}` |" in doc, (cls, sel)
