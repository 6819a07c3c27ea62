"""Where the code snippets of the seed documents are, and what each fragment assumes.

Snippets are read from ../shared/seeds at test time (never copied here). A
fragment gets the declarations it assumes as a prelude/postlude written for LP;
`handle: t` in the timeout fragment is pseudo-code, replaced by a real call.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tests.conftest import SEEDS

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
    extra: dict = field(default_factory=dict)

    def sources(self) -> list[str]:
        lines = (SEEDS / self.seed).read_text(encoding="utf-8").split("\n")[self.first - 1:self.last]
        chunks = [[line] for line in lines if line.strip()] if self.per_line else [lines]
        out = []
        for chunk in chunks:
            code = "\n".join(chunk)
            for old, new in self.replace:
                code = code.replace(old, new)
            out.append(self.prelude + code + self.postlude)
        return out


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
