"""The docs stand alone: every document and repository path they name is in the repository."""
from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md", ROOT / "bench" / "README.md",
                                                ROOT / "runtime" / "DESIGN.md"]
_MD_NAME = re.compile(r"[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b")
_REPO_PATH = re.compile(r"`((?:docs|stdlib|examples|tests|runtime|bench|lp|compiler)/[A-Za-z0-9_./-]+)`")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_documents_exist(doc):
    text = doc.read_text()
    missing = set()
    for name in _MD_NAME.findall(text):
        if "/" in name:
            if not (ROOT / name).exists():
                missing.add(name)
        elif not any(ROOT.glob(f"**/{name}")):
            missing.add(name)
    assert not missing, f"{doc.name} names documents that are not in the repository: {sorted(missing)}"
    assert "§" not in text, f"{doc.name} refers to a section of a document by §"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_named_paths_exist(doc):
    missing = {p for p in _REPO_PATH.findall(doc.read_text()) if not (ROOT / p.rstrip("/")).exists()}
    assert not missing, f"{doc.name} names paths that are not in the repository: {sorted(missing)}"
