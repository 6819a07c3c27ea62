"""Reference counts around actors in native code: a receive loop's handler moves the bindings it
reads last, and `!` and a receive borrow an actor variable that is read again, so such a loop
counts nothing per message (docs/native.md "Actors"); the borrowing program is clean under
AddressSanitizer and LeakSanitizer."""
from __future__ import annotations

import re
import shutil

import pytest

from tests.native.harness import LP, ROOT, interpret, run

LOOPS = """Object subclass: #Loops.
Loops class >> sum: me total: s to: r =
    me receive: { Integer -> [:v | v < 0 ifTrue: [r ! s] ifFalse: [Loops sum: me total: s + v to: r]] }.
Loops class >> pong: me to: peer =
    me receive: { Integer -> [:v | v >= 0 ifTrue: [peer ! (v + 1). Loops pong: me to: peer] ifFalse: [nil]] }.
main := Actor self.
s := Actor spawn: [:me | Loops sum: me total: 0 to: main].
1 to: 10 do: [:i | s ! i].
s ! -1.
(main receive: { Integer -> [:v | v] }) printNl.
p := Actor spawn: [:me | Loops pong: me to: main].
p ! 1.
(main receive: { Integer -> [:v | v] }) printNl.
p ! -1.
Actor spawn: [:me | main ! 7].
(main receive: { Integer -> [:v | v] }) printNl.
"""


def _function(ll: str, name: str) -> str:
    m = re.search(r'^define [^\n]*"lp\.Loops class >> ' + re.escape(name) + r'[^\n]*\n(.*?)^}', ll, re.M | re.S)
    assert m, name
    return m.group(1)


def test_receive_loops_count_nothing_per_message(tmp_path):
    src = tmp_path / "loops.lp"
    src.write_text(LOOPS)
    b = run([*LP, "build", src.name, "-o", "loops", "-O0", "--emit-llvm"], cwd=tmp_path)
    assert b.status == 0, b.stderr.decode()
    ll = (tmp_path / "loops.ll").read_text()
    for name in ("sum:total:to:", "pong:to:"):
        body = _function(ll, name)
        assert "@lpn_receive(" in body and "@lpn.dup(" not in body, name
    assert "@lpn_actor_send_b(" in _function(ll, "pong:to:")
    # the spawned block sends to its capture `main` without counting it
    blocks = re.findall(r"^define [^\n]*@lp\.block\.\d+\([^\n]*\n(.*?)^}", ll, re.M | re.S)
    sending = [b for b in blocks if "@lpn_actor_send(" in b or "@lpn_actor_send_b(" in b]
    assert len(sending) == 1 and "@lpn_actor_send_b(" in sending[0] and "@lpn.dup(" not in sending[0]
    got = run([str(tmp_path / "loops"), "--domains", "2"], cwd=tmp_path)
    assert (got.status, got.stdout) == (0, b"55\n2\n7\n")


BORROWED = ROOT / "tests/native/actor_programs/borrowed_operands.lp"


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler with AddressSanitizer")
def test_borrowed_operands_are_clean_under_address_and_leak_sanitizer(tmp_path):
    binary = tmp_path / "borrowed"
    b = run([*LP, "build", BORROWED.name, "-o", str(binary)], cwd=BORROWED.parent, env={"LP_SANITIZE": "address"})
    assert b.status == 0, b.stderr.decode()
    for domains in ("1", "2"):
        got = run([str(binary), "--domains", domains], cwd=BORROWED.parent,
                  env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0"})
        assert b"Sanitizer" not in got.stderr, got.stderr.decode()[-2000:]
        assert (got.status, got.stdout) == (0, interpret(BORROWED).stdout)
