"""What a spawn allocates in a native binary (issue 12's spawn rate): the runtime actor and its
native state are one allocation, and spawn:'s answer and the block's argument are the Actor value
cell kept in that state, so an actor that reports once costs three allocations (the actor, its
block, its message) where it cost six. Counted by a malloc wrapper preloaded into the binary."""
from __future__ import annotations

import re
import shutil

import pytest

from tests.native.harness import LP, run

COUNTER = r"""
#include <stddef.h>
#include <stdio.h>
void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
static unsigned long n;
void *malloc(size_t s) { __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED); return __libc_malloc(s); }
void *calloc(size_t a, size_t b) { __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED); return __libc_calloc(a, b); }
void *realloc(void *p, size_t s) { if (!p) __atomic_add_fetch(&n, 1, __ATOMIC_RELAXED); return __libc_realloc(p, s); }
__attribute__((destructor)) static void done(void) { fprintf(stderr, "allocations=%lu\n", n); }
"""

SPAWN = """Object subclass: #Bench.
Bench class >> wait: me count: k =
    k = 0 ifTrue: [nil] ifFalse: [me receive: { Integer -> [:v | Bench wait: me count: k - 1] }].
main := Actor self.
1 to: {n} do: [:i | Actor spawn: [:me | main ! 1]].
Bench wait: main count: {n}.
'done' displayNl.
"""


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a C compiler")
def test_a_spawn_makes_three_allocations(tmp_path):
    (tmp_path / "count.c").write_text(COUNTER)
    c = run(["cc", "-O2", "-shared", "-fPIC", "count.c", "-o", "count.so"], cwd=tmp_path)
    assert c.status == 0, c.stderr.decode()
    counts = {}
    for n in (1000, 2000):
        (tmp_path / f"s{n}.lp").write_text(SPAWN.replace("{n}", str(n)))
        b = run([*LP, "build", f"s{n}.lp", "-o", f"s{n}"], cwd=tmp_path)
        assert b.status == 0, b.stderr.decode()
        for d in ("1", "2"):
            got = run([str(tmp_path / f"s{n}"), "--domains", d], cwd=tmp_path,
                      env={"LD_PRELOAD": str(tmp_path / "count.so")})
            assert (got.status, got.stdout) == (0, b"done\n"), got.stderr.decode()
            counts[n, d] = int(re.search(rb"allocations=(\d+)", got.stderr).group(1))
    for d in ("1", "2"):
        assert (counts[2000, d] - counts[1000, d]) / 1000 <= 3.05, counts
