"""Compiled objects kept between builds under the user cache directory (`$LP_CACHE`, else
`$XDG_CACHE_HOME/lp` or `~/.cache/lp`), keyed by a hash of everything the object is made from: the
program's whole LLVM IR text, the optimisation level, the target triple, the LLVM version and the
code that runs the pipeline. Any change to the program, an imported module, the stdlib or the
compiler changes the IR or the code, so the key, and a stale object is never found. Entries are
written to a temporary file and renamed (concurrent builds never see half an object); the least
recently used are removed past LIMIT bytes."""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from lp.compiler.toolchain import cache_dir

LIMIT = 512 * 2**20


def key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _dir() -> Path:
    return cache_dir() / "objects"


def lookup(k: str) -> bytes | None:
    path = _dir() / f"{k}.o"
    try:
        data = path.read_bytes()
        os.utime(path)
    except OSError:
        return None
    return data


def store(k: str, data: bytes) -> None:
    """Keep data under k; a cache that cannot be written is no error (the build has its object)."""
    d = _dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, d / f"{k}.o")
        finally:
            Path(tmp).unlink(missing_ok=True)
        _evict(d)
    except OSError:
        pass


def _evict(d: Path) -> None:
    entries = []
    for p in d.glob("*.o"):
        try:
            st = p.stat()
        except OSError:
            continue
        entries.append((st.st_mtime, st.st_size, p))
    total = sum(size for _, size, _ in entries)
    for _, size, p in sorted(entries):
        if total <= LIMIT:
            break
        p.unlink(missing_ok=True)
        total -= size
