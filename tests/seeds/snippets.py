"""The seed documents' code snippets, as copied into tests/seeds/snippets/ by make_snippets.py.

Each snippet is one program (`NAME.lp`) or, for a listing of forms, one per
line (`NAME-0.lp`, `NAME-1.lp`...), with its expected standard output in
`NAME.out` when it is a complete program, and its standard error in `NAME.err`
(empty when there is no such file).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SNIPPET_DIR = Path(__file__).resolve().parent / "snippets"


@dataclass(frozen=True)
class Snippet:
    name: str
    files: tuple[Path, ...]
    expected_output: str | None
    expected_stderr: str

    def sources(self) -> list[str]:
        return [f.read_text(encoding="utf-8") for f in self.files]


def _snippet(name: str) -> Snippet:
    files = tuple(sorted(SNIPPET_DIR.glob(f"{name}.lp")) or
                  sorted(SNIPPET_DIR.glob(f"{name}-*.lp"), key=lambda p: int(p.stem.rsplit("-", 1)[1])))
    out, err = SNIPPET_DIR / f"{name}.out", SNIPPET_DIR / f"{name}.err"
    return Snippet(name, files, out.read_text() if out.is_file() else None,
                   err.read_text() if err.is_file() else "")


SNIPPETS = [_snippet(n) for n in sorted({p.stem.split("-")[0] for p in SNIPPET_DIR.glob("*.lp")})]
