"""The checker is assembled explicitly (lp/types/parts.py): importing its modules changes no class."""
from __future__ import annotations

from lp.types import actors, special  # noqa: F401 - imported for the check that they change nothing
from lp.types.infer import Checker
from lp.types.parts import assemble


def test_importing_the_parts_adds_nothing_to_the_checker_class():
    for name in ("ask", "numeric", "check_element", "with_fields", "check_reason", "SPECIAL_FORMS",
                 "SPECIAL_SENDS", "SPECIAL_CLASS_SENDS"):
        assert not hasattr(Checker, name), name


def test_assemble_collects_every_part():
    parts = assemble()
    assert {"fields:", "with:", "spawn:", "receive:"} <= set(parts.forms)
    assert {("Integer", "+"), ("Actor", "!"), ("Actor", "ask:"), ("Block", "value:")} <= set(parts.sends)
    assert {"new", "spawn:", "self"} <= set(parts.class_sends)
    assert all(callable(f) for f in (parts.numeric, parts.check_element, parts.with_fields,
                                     parts.check_reason, parts.ask))
