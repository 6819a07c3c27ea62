"""The checker's signatures and the interpreter's methods describe the same core library.

Every selector the checker types for a built-in class must run on the interpreter
(as a primitive or a method of stdlib/core.lp): a well-typed program never meets
"does not understand" for a library selector.
"""
from __future__ import annotations

import io

from lp.diagnostics import SourceMap
from lp.interp.interp import Interpreter
from lp.modules import Loader
from lp.types import library as L
from tests.conftest import EXAMPLES

# Typed but served by other means: Reason is the type of exit reasons (Symbols or Errors at run time),
# Remote belongs to the network library.
NOT_CLASSES = {"Reason", "Remote", "Class"}   # types only the checker has (lp/classdecls.py CHECKER_ONLY)


def _interpreter():
    sources = SourceMap()
    main, imports = Loader(sources).load_main(str(EXAMPLES / "hello.lp"))
    interp = Interpreter(sources, out=io.StringIO())
    interp.load(imports + [main])
    return interp


def test_every_typed_selector_is_implemented():
    interp = _interpreter()
    missing = []
    obj = interp.classes["Object"]
    missing += [("Object", s) for s in L.UNIVERSAL_SIGS if obj.lookup(s) is None]
    for cls, table in L.INSTANCE_SIGS.items():
        if cls in NOT_CLASSES:
            continue
        c = interp.classes[cls]
        missing += [(cls, s) for s in table if c.lookup(s) is None]
    for cls, table in L.CLASS_SIGS.items():
        if cls in NOT_CLASSES:
            continue
        c = interp.classes[cls]
        missing += [(cls + " class", s) for s in table if c.lookup_class(s) is None]
    for sel in L.BRANCHING_SIGS:
        if not any(c.lookup(sel) is not None or c.lookup_class(sel) is not None for c in interp.classes.values()):
            missing.append(("(branching)", sel))
    assert missing == []


def test_reason_selectors_work_on_symbols_and_errors():
    interp = _interpreter()
    for s in L.INSTANCE_SIGS.get("Reason", {}):
        assert interp.classes["Symbol"].lookup(s) is not None, s
        assert interp.classes["Error"].lookup(s) is not None, s
