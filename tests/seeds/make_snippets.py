"""Copies the code snippets of the seed documents into tests/seeds/snippets/, once.

    python tests/seeds/make_snippets.py [--check]

Reads ../shared/seeds (beside the repository) when it is there; the tests never
need it. Only code is copied: each snippet's lines, with their comments (prose)
removed, wrapped in the prelude/postlude written here for LP (the declarations
a fragment assumes), one `.lp` per program, its expected standard output in
`NAME.out` and standard error in `NAME.err`. A listing of forms (`per_line`)
gives one program per line, `NAME-0.lp`, `NAME-1.lp`... `handle: t` in the
timeout fragment is pseudo-code, replaced by a real call. `--check` compares
instead of writing, and exits 1 if a copy differs.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = HERE.parents[2] / "shared" / "seeds"
OUT = HERE / "snippets"

ACTOR_SEED = "002_1622a8719da0d4bc.txt"


@dataclass(frozen=True)
class Snippet:
    name: str
    first: int                  # 1-based line numbers in the seed, inclusive
    last: int
    prelude: str = ""
    postlude: str = ""
    replace: tuple[tuple[str, str], ...] = ()
    expected_output: str | None = None   # stdout when run, for complete programs
    expected_stderr: str = ""
    per_line: bool = False      # a listing of forms: each line is its own fragment
    seed: str = ACTOR_SEED

    def sources(self) -> list[str]:
        lines = (SEEDS / self.seed).read_text(encoding="utf-8").split("\n")[self.first - 1:self.last]
        lines = [_without_comments(line) for line in lines]
        chunks = [[line] for line in lines if line.strip()] if self.per_line else [lines]
        assert chunks and any(c.strip() for c in chunks[0]), f"{self.name}: the line range is empty"
        out = []
        for chunk in chunks:
            code = "\n".join(chunk)
            for old, new in self.replace:
                code = code.replace(old, new)
            out.append((self.prelude + code + self.postlude).rstrip("\n") + "\n")
        return out

    def files(self) -> dict[str, str]:
        srcs = self.sources()
        names = [f"{self.name}-{i}.lp" for i in range(len(srcs))] if self.per_line else [f"{self.name}.lp"]
        files = dict(zip(names, srcs))
        if self.expected_output is not None:
            files[f"{self.name}.out"] = self.expected_output
        if self.expected_stderr:
            files[f"{self.name}.err"] = self.expected_stderr
        return files


SNIPPETS = [
    Snippet("primitives", 9, 12, per_line=True,
            prelude="Object subclass: #Msg.\nactor := Actor self.\nmessage := Msg new.\nactor ! message.\n"
                    "body := nil.\n",
            postlude=".\nactor ! message.\nactor receive.\n"),
    Snippet("ping_pong", 16, 25, expected_output="#ping\n#pong\n"),
    Snippet("counter_loop", 31, 39,
            prelude="Object subclass: #Inc.\nObject subclass: #GetCount fields: (reply).\n",
            postlude="\ncounter ! Inc new.\n(counter ask: (GetCount fields: {})) await printNl.\n",
            expected_output="1\n"),
    Snippet("typed_receive", 47, 54,
            prelude="Object subclass: #Counter.\n",
            postlude="\nc := Actor spawn: [:me | Counter run: me state: 40].\nc ! Inc new. c ! Inc new.\n"
                     "(c ask: (Get fields: {})) await printNl.\n",
            expected_output="42\n"),
    Snippet("receive_timeout", 62, 64,
            prelude="Object subclass: #Tick.\nObject subclass: #Handler.\nHandler class >> handle: t = 'tick' displayNl.\n"
                    "me := Actor self.\n",
            replace=(("handle: t", "Handler handle: t"),),
            postlude="\n'done' displayNl.\n", expected_output="done\n",
            expected_stderr="warn: no tick for 1 s\n"),
    Snippet("ask_future", 70, 71,
            prelude="Object subclass: #Compute fields: (x reply).\n"
                    "worker := Actor spawn: [:me | me receive: { Compute -> [:c | c reply ! (c x * 6)] }].\n",
            expected_output="42\n"),
    Snippet("monitor_down", 83, 104,
            expected_output="'Down received'\nError(message: 'kaboom!')\n'main still alive'\n"),
]


_COMMENT = re.compile(r"('(?:[^']|'')*')|\s*\"[^\"]*\"")


def _without_comments(line: str) -> str:
    return _COMMENT.sub(lambda m: m.group(1) or "", line).rstrip()


def main(argv: list[str]) -> int:
    if not SEEDS.is_dir():
        sys.stderr.write(f"{SEEDS} is not there: nothing to copy from\n")
        return 2
    wanted = {name: text for s in SNIPPETS for name, text in s.files().items()}
    if "--check" in argv:
        stale = sorted(n for n, t in wanted.items() if not (OUT / n).is_file() or (OUT / n).read_text() != t)
        for n in stale:
            sys.stderr.write(f"{OUT / n} differs from the seed\n")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for old in [*OUT.glob("*.lp"), *OUT.glob("*.out"), *OUT.glob("*.err")]:
        old.unlink()
    for name, text in wanted.items():
        (OUT / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
