"""The "did you mean" hint of a "does not understand" report in binaries (compiler/dnu_names.py,
runtime/native/near.c) is the one `lp run` gives: the same candidate selectors per class and side,
and the same choice among them as Python's difflib. Programs in tests/native/programs
(dnu_hints.lp, dnu_hints_own_classes.lp) compare typical cases byte for byte; here many seeded
misspellings of library selectors, sent to Dynamic values, compare the choice itself."""
from __future__ import annotations

import random
from pathlib import Path

from lp.compiler.dnu_names import snapshot_text
from lp.types import library as L
from tests.native.harness import build, interpret, native

SNAPSHOT = Path(__file__).resolve().parents[2] / "compiler/interp_selectors.py"
RECEIVERS = {"'\"text\"'": ["size", "asUppercase", "reversed", "asSymbol", "isEmpty", "trimSeparators", "lines",
                            "asInteger", "displayString", "first", "printString", "hash", "isString", "notEmpty"],
             "'[1, 2]'": ["first", "last", "reverse", "isEmpty", "asSortedArray", "sum", "allButFirst", "max"],
             "'3'": ["factorial", "isPrime", "sqrt", "negated", "abs", "even", "printString", "asFloat", "squared"],
             "'{\"a\": 1}'": ["keys", "values", "size", "associations", "isEmpty", "keysSortedSafely"]}


def test_the_primitive_selector_snapshot_is_current():
    """compiler/interp_selectors.py lists the interpreter's primitives; regenerate it with
    `python -m lp.compiler.dnu_names` when a primitive is added or removed."""
    assert SNAPSHOT.read_text() == snapshot_text()


def _misspell(rng: random.Random, word: str) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    w = list(word)
    for _ in range(rng.choice([1, 1, 2, 3])):
        k = rng.randrange(1, len(w) + 1)
        op = rng.choice("dis")
        if op == "d" and len(w) > 2 and k < len(w):
            del w[k]
        elif op == "i":
            w.insert(k, rng.choice(letters))
        elif k < len(w):
            w[k] = rng.choice(letters)
    return "".join(w)


def test_binaries_suggest_what_lp_run_suggests(tmp_path):
    rng = random.Random(12)
    library = set(L.UNIVERSAL_SIGS).union(*L.INSTANCE_SIGS.values(), *L.CLASS_SIGS.values())
    sends, wrong = [], set()
    for text, sels in RECEIVERS.items():
        for _ in range(40):
            sel = _misspell(rng, rng.choice(sels))
            if sel in library:
                continue
            wrong.add(sel)
            sends.append(f"[(JSON decode: {text}) {sel}. nil] on: Error do: [:e | e messageText displayNl. nil].")
    # a class answering every misspelling, so the checker lets the sends through
    sink = ["Object subclass: #Sink."] + [f"Sink >> {s} = nil." for s in sorted(wrong)]
    src = tmp_path / "hints.lp"
    src.write_text("\n".join(sink + sends) + "\n")
    assert build(src, tmp_path / "hints").status == 0
    want = interpret(src)
    got = native(tmp_path / "hints", tmp_path)
    assert want.stdout.count(b"did you mean") > 40
    assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
