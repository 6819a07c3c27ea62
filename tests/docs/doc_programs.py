"""The LP programs written in the docs, and the output each doc says they print.

Convention for doc writers: every fenced ```smalltalk block is a complete
program, run by the tests, unless the line just before its opening fence is
`<!-- fragment -->`. A program's expected standard output is the first fenced
```text block after it, when one comes before any other fenced block or
heading; prose may stand between them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\w*)\s*$")
FRAGMENT = "<!-- fragment -->"


@dataclass(frozen=True)
class DocProgram:
    doc: Path
    line: int               # of the opening fence, 1-based
    source: str
    expected_output: str | None

    @property
    def id(self) -> str:
        return f"{self.doc.name}:{self.line}"


def _blocks(lines: list[str]):
    """(language, opening line index, body lines) of each fenced block."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(1):
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            yield m.group(1), i, lines[i + 1:j], j
            i = j + 1
        else:
            i += 1


def programs(doc: Path) -> list[DocProgram]:
    lines = doc.read_text().split("\n")
    blocks = list(_blocks(lines))
    out = []
    for k, (lang, start, body, end) in enumerate(blocks):
        if lang != "smalltalk" or (start and lines[start - 1].strip() == FRAGMENT):
            continue
        expected = None
        if k + 1 < len(blocks):
            nlang, nstart, nbody, _ = blocks[k + 1]
            between = lines[end + 1:nstart]
            if nlang == "text" and not any(line.startswith("#") or FENCE.match(line) for line in between):
                expected = "\n".join(nbody) + "\n"
        out.append(DocProgram(doc, start + 1, "\n".join(body) + "\n", expected))
    return out
