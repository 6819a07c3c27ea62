"""The checker's builtin classes are the interpreter's: every class one knows exists in the other, with the
same superclass, except the few listed here with the reason."""
from __future__ import annotations

from lp.interp.builtins import HIERARCHY
from lp.types.library import BUILTIN_CLASSES

# only in the checker: the static type of exit reasons (Symbols or Errors at run time)
CHECKER_ONLY = {"Reason"}
# only at run time: record literals, which the checker types as the arguments of fields: and with:
RUNTIME_ONLY = {"Record"}


def test_every_checker_class_exists_at_run_time():
    runtime = {name for name, _, _ in HIERARCHY}
    assert set(BUILTIN_CLASSES) - CHECKER_ONLY <= runtime


def test_every_run_time_class_is_known_to_the_checker():
    runtime = {name for name, _, _ in HIERARCHY}
    assert runtime - RUNTIME_ONLY <= set(BUILTIN_CLASSES)


def test_superclasses_agree():
    runtime = {name: sup for name, sup, _ in HIERARCHY}
    for name, sup in BUILTIN_CLASSES.items():
        if name in runtime:
            assert runtime[name] == sup, name
