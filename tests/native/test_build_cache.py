"""`lp build`'s object cache (compiler/objcache.py) and its progress output (compiler/progress.py):
a rebuild of the same program reuses the object, any change to an imported module is compiled
afresh, builds racing on one cache entry both succeed, and a terminal sees a status line that is
erased at the end."""
from __future__ import annotations

import os
import pty
import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor

from lp.compiler import objcache
from tests.native.harness import LP, ROOT, native, run

REUSED = b"lp build: reusing the cached object"
COMPILED = b"lp build: generating machine code"


def _program(tmp_path, greeting: str):
    """main.lp importing greeting.lp; a fresh tag makes its IR (so its cache key) new to the cache."""
    tag = uuid.uuid4().hex
    (tmp_path / "greeting.lp").write_text(f"Object subclass: #Greeting.\nGreeting class >> text = '{greeting}'.\n")
    (tmp_path / "main.lp").write_text(f"Import module: #Greeting.\n'{tag}' size printNl.\nGreeting text displayNl.\n")


def test_a_rebuild_reuses_the_object_and_an_edited_module_is_compiled_again(tmp_path):
    _program(tmp_path, "hello")
    first = run([*LP, "build", "-v", "main.lp", "-o", "one"], cwd=tmp_path)
    assert first.status == 0 and COMPILED in first.stderr and REUSED not in first.stderr
    for phase in (b"checking", b"lowering to LLVM IR", b"optimising (-O2)", b"linking"):
        assert b"lp build: " + phase + b" (" in first.stderr
    again = run([*LP, "build", "-v", "main.lp", "-o", "two"], cwd=tmp_path)
    assert again.status == 0 and REUSED in again.stderr and COMPILED not in again.stderr
    assert native(tmp_path / "one", tmp_path).stdout == native(tmp_path / "two", tmp_path).stdout == b"32\nhello\n"
    emitted = run([*LP, "build", "-v", "--emit-llvm", "main.lp", "-o", "two"], cwd=tmp_path)
    assert COMPILED in emitted.stderr and "define" in (tmp_path / "two.ll").read_text()
    (tmp_path / "greeting.lp").write_text("Object subclass: #Greeting.\nGreeting class >> text = 'bye'.\n")
    edited = run([*LP, "build", "-v", "main.lp", "-o", "three"], cwd=tmp_path)
    assert edited.status == 0 and COMPILED in edited.stderr
    assert native(tmp_path / "three", tmp_path).stdout == b"32\nbye\n"
    other_level = run([*LP, "build", "-v", "-O0", "main.lp", "-o", "four"], cwd=tmp_path)
    assert COMPILED in other_level.stderr and native(tmp_path / "four", tmp_path).stdout == b"32\nbye\n"


def test_builds_racing_on_one_entry_both_succeed(tmp_path):
    _program(tmp_path, "race")
    with ThreadPoolExecutor(3) as ex:
        outs = list(ex.map(lambda i: run([*LP, "build", "main.lp", "-o", f"b{i}"], cwd=tmp_path), range(3)))
    assert [o.status for o in outs] == [0, 0, 0]
    assert {native(tmp_path / f"b{i}", tmp_path).stdout for i in range(3)} == {b"32\nrace\n"}


def test_a_terminal_sees_the_phases_on_one_line_erased_at_the_end(tmp_path):
    _program(tmp_path, "tty")
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([*LP, "build", "main.lp", "-o", "t"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=follower, env=env, timeout=120)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert p.returncode == 0 and p.stdout == b""
    assert b"\r\x1b[Klp build: checking..." in shown and b"\r\x1b[Klp build: linking..." in shown
    assert shown.endswith(b"\r\x1b[K")
    piped = run([*LP, "build", "main.lp", "-o", "u"], cwd=tmp_path)
    assert piped.status == 0 and piped.stderr == b""


def test_the_least_recently_used_objects_go_past_the_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("LP_CACHE", str(tmp_path))
    monkeypatch.setattr(objcache, "LIMIT", 250)
    for k in "abc":
        objcache.store(k, k.encode() * 100)
        os.utime(tmp_path / "objects" / f"{k}.o", (ord(k), ord(k)))
    assert objcache.lookup("a") is None and objcache.lookup("b") == b"b" * 100    # b is used now
    objcache.store("d", b"d" * 100)
    assert [objcache.lookup(k) is not None for k in "bcd"] == [True, False, True]
    assert sorted(p.name for p in (tmp_path / "objects").iterdir()) == ["b.o", "d.o"]
