"""The differential harness: each program runs under `lp run` and as a native binary;
stdout, stderr and exit status must be byte-identical.

Programs the native compiler cannot translate yet are listed in UNSUPPORTED with the
reason; the test checks that `lp build` refuses each with a clear diagnostic (exit 1,
"does not support"), so the list cannot silently go stale: once a program builds,
the test fails until it is moved into the compared set.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.test_doc_programs import PROGRAMS as DOC_PROGRAMS
from tests.native.harness import ROOT, build, interpret, native
from tests.native.test_actors import ACTOR_PROGRAMS

PROGRAMS = sorted((ROOT / "tests/native/programs").glob("*.lp"))
EXAMPLES = sorted((ROOT / "examples").glob("*.lp"))

UNSUPPORTED: dict[str, str] = {}
# Doc programs are recognised by a marker in their text (a doc name and a line the program contains),
# not by their line in the doc, which moves whenever the doc is edited above them.
UNSUPPORTED_DOCS: dict[tuple[str, str], str] = {}
# Doc programs with durable state (files under their working directory): each run starts in a fresh
# directory, and the binary runs on 1 and on 2 domains.
DURABLE_DOCS = {"durable.md", "reliable.md"}


def unsupported_doc(doc) -> str | None:
    """The reason a doc program is not compiled yet, when a listed marker is in its text."""
    return next((why for (name, marker), why in UNSUPPORTED_DOCS.items()
                 if doc.doc.name == name and marker in doc.source), None)


# The checker's well-typed programs (tests/types/well_typed), which the type tests run through `lp run`.
WELL_TYPED = sorted((ROOT / "tests/types/well_typed").glob("*.lp"))
UNSUPPORTED_WELL_TYPED: dict[str, str] = {}
# tests/seeds/snippets are compared natively, on 1 and 2 domains, by tests/seeds/test_seed_snippets.py.
# Actor programs are compared on 1 and 2 domains by tests/native/test_actors.py.
COMPARED = [p for p in PROGRAMS + EXAMPLES if p.name not in UNSUPPORTED and p not in ACTOR_PROGRAMS]
COMPARED += [p for p in WELL_TYPED if p.name not in UNSUPPORTED_WELL_TYPED and p not in ACTOR_PROGRAMS]


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


@pytest.mark.parametrize("program", COMPARED, ids=_id)
def test_binary_matches_interpreter(program, tmp_path):
    binary = tmp_path / program.stem
    b = build(program, binary)
    assert b.status == 0, b.stderr.decode()
    want = interpret(program)
    got = native(binary, program.parent)
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr
    assert got.status == want.status


@pytest.mark.parametrize("program", [p for p in EXAMPLES if p.name in UNSUPPORTED]
                         + [p for p in WELL_TYPED if p.name in UNSUPPORTED_WELL_TYPED], ids=_id)
def test_unsupported_programs_are_refused_with_a_diagnostic(program, tmp_path):
    b = build(program, tmp_path / program.stem)
    assert b.status == 1
    text = b.stderr.decode()
    assert "The native compiler does not support" in text and "Traceback" not in text
    assert not (tmp_path / program.stem).exists()


@pytest.mark.parametrize("doc", DOC_PROGRAMS, ids=lambda d: d.id)
def test_doc_programs_match_or_are_listed(doc, tmp_path):
    src = tmp_path / "doc.lp"
    src.write_text(doc.source)
    b = build(src, tmp_path / "doc")
    if unsupported_doc(doc) is not None:
        assert b.status == 1 and b"The native compiler does not support" in b.stderr
        return
    assert b.status == 0, b.stderr.decode()
    want = interpret(src)
    runs = [("--domains", "1"), ("--domains", "2")] if doc.doc.name in DURABLE_DOCS else [()]
    for k, flags in enumerate(runs):
        cwd = tmp_path / f"native{k}"   # not the interpreter's directory: durable state starts empty
        cwd.mkdir()
        got = native(tmp_path / "doc", cwd, *flags)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), flags


def test_every_unsupported_doc_marker_names_a_doc_program():
    for (name, marker) in UNSUPPORTED_DOCS:
        assert any(d.doc.name == name and marker in d.source for d in DOC_PROGRAMS), (name, marker)
