"""The system C compiler: finding it, building the C runtime and native core once per source
version (cached), and linking a program's object into an executable."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lp.compiler import unicode_tables

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
if not (RUNTIME / "lprt.h").is_file():   # installed: lp/compiler beside lp/runtime
    RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
CFLAGS = ["-O2", "-std=c11", "-D_GNU_SOURCE", "-fPIC", "-w"]


class BuildError(Exception):
    """A one-line reason the binary cannot be produced (exit status 2)."""


def find_cc() -> str:
    cc = os.environ.get("CC") or next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if not cc or not shutil.which(cc.split()[0]):
        raise BuildError("no C compiler found (install gcc or clang, or set CC)")
    return cc


def _sources() -> list[Path]:
    srcs = sorted(p for p in RUNTIME.glob("*.c")) + sorted((RUNTIME / "native").glob("*.c"))
    return srcs + [RUNTIME / "fiber_x86_64.S"]


def cache_dir() -> Path:
    base = os.environ.get("LP_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME")
                                                      or os.path.expanduser("~/.cache"), "lp")
    return Path(base)


def runtime_archive(cc: str, extra: list[str] = ()) -> Path:
    """liblpnative.a (the scheduler and the native core), built once per source version, flags and
    Unicode version (the character tables are generated from this Python's, see unicode_tables)."""
    h = hashlib.sha256(" ".join([cc, *CFLAGS, *extra, unicodedata.unidata_version]).encode())
    h.update(Path(unicode_tables.__file__).read_bytes())
    for p in _sources() + sorted(RUNTIME.glob("*.h")) + sorted((RUNTIME / "native").glob("*.h")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    out = cache_dir() / f"native-{h.hexdigest()[:16]}"
    lib = out / "liblpnative.a"
    if lib.is_file():
        return lib
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=out))

    def compile_one(src: Path) -> Path:
        obj = work / (src.parent.name + "_" + src.stem + ".o")
        r = subprocess.run([*cc.split(), *CFLAGS, *extra, "-I", str(RUNTIME), "-c", str(src), "-o", str(obj)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BuildError(f"the C runtime does not compile: {r.stderr.strip().splitlines()[0] if r.stderr else src}")
        return obj
    tables = work / "unicode_tables.c"
    tables.write_text(unicode_tables.c_source())
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        objs = list(ex.map(compile_one, _sources() + [tables]))
    tmp_lib = work / "liblpnative.a"
    r = subprocess.run(["ar", "rcs", str(tmp_lib), *map(str, objs)], capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"cannot archive the C runtime: {r.stderr.strip()}")
    os.replace(tmp_lib, lib)
    shutil.rmtree(work, ignore_errors=True)
    return lib


def link(cc: str, obj: Path, out: Path, extra: list[str] = ()) -> None:
    lib = runtime_archive(cc, list(extra))
    r = subprocess.run([*cc.split(), *extra, str(obj), str(lib), "-o", str(out), "-Wl,--as-needed", "-lsqlite3", "-lpthread", "-lm"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["unknown error"])[0]
        raise BuildError(f"linking failed: {first}")
