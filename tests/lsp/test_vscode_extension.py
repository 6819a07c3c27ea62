"""The VS Code extension folder is usable as it is: its manifest points at files that exist."""
from __future__ import annotations

import json

from tests.conftest import ROOT

EXT = ROOT / "editors" / "vscode"


def test_manifest_names_the_language_grammar_and_server():
    pkg = json.loads((EXT / "package.json").read_text())
    (lang,) = pkg["contributes"]["languages"]
    (grammar,) = pkg["contributes"]["grammars"]
    assert lang["extensions"] == [".lp"]
    json.loads((EXT / lang["configuration"]).read_text())
    assert json.loads((EXT / grammar["path"]).read_text())["scopeName"] == grammar["scopeName"]
    assert pkg["contributes"]["configuration"]["properties"]["lp.server.command"]["default"] == ["lp", "lsp"]
    assert (EXT / pkg["main"]).is_file()
