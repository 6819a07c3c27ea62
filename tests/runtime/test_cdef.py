"""The binding's cffi declarations come from lprt.h (build_lprt.header_cdef): the built
extension must agree with the header as it is now, so a changed header with a stale build,
or a declaration the generator drops, fails here."""
import importlib.util
import os
import re

from cffi import FFI

from lp.runtime._lprt import ffi, lib

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME = os.path.join(HERE, "..", "..", "runtime")


def _builder():
    spec = importlib.util.spec_from_file_location("build_lprt", os.path.join(RUNTIME, "build_lprt.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _header():
    with open(os.path.join(RUNTIME, "lprt.h")) as f:
        return f.read()


def test_every_function_of_the_header_is_in_the_extension():
    text = re.sub(r"/\*.*?\*/", "", _header(), flags=re.S)
    names = set(re.findall(r"\b(lprt_[a-z_0-9]+)\s*\(", text))
    assert len(names) >= 50
    missing = sorted(n for n in names if not hasattr(lib, n))
    assert missing == []


def test_types_and_constants_match_the_header():
    fresh = FFI()
    fresh.cdef(_builder().header_cdef())
    for struct in ("lprt_reason", "lprt_msg", "lprt_hooks", "lprt_config", "lprt_actor_info", "lprt_stats", "lprt_domain_info"):
        assert fresh.sizeof(struct) == ffi.sizeof(struct), struct
        for field, _ in fresh.typeof(struct).fields:
            assert fresh.offsetof(struct, field) == ffi.offsetof(struct, field), (struct, field)
    consts = re.findall(r"\b(LPRT_[A-Z_]+)\s*=\s*(-?\d+)", _header())
    assert len(consts) > 30
    for name, value in consts:
        assert getattr(lib, name) == int(value), name


def test_the_generator_drops_only_preprocessor_lines_and_comments():
    cdef = _builder().header_cdef()
    assert "#" not in cdef and "/*" not in cdef and 'extern "C"' not in cdef
    assert "lprt_mbox_mark" in cdef and "LPRT_EDEADLOCK" in cdef
