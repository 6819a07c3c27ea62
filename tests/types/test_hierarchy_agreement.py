"""The checker's builtin classes are the interpreter's: every class one knows exists in the other, with the
same superclass, except the few listed here with the reason."""
from __future__ import annotations

from lp.classdecls import CHECKER_ONLY, HIERARCHY, RUNTIME_ONLY
from lp.interp.interp import Interpreter
from lp.types.library import BUILTIN_CLASSES, BUILTIN_FIELDS


def test_every_checker_class_exists_at_run_time():
    runtime = {name for name, _, _ in HIERARCHY}
    assert set(BUILTIN_CLASSES) - set(CHECKER_ONLY) <= runtime


def test_every_run_time_class_is_known_to_the_checker():
    runtime = {name for name, _, _ in HIERARCHY}
    assert runtime - RUNTIME_ONLY <= set(BUILTIN_CLASSES)


def test_superclasses_agree():
    runtime = {name: sup for name, sup, _ in HIERARCHY}
    for name, sup in BUILTIN_CLASSES.items():
        if name in runtime:
            assert runtime[name] == sup, name


def test_the_interpreter_installs_the_shared_hierarchy():
    interp = Interpreter()
    own = {name: (sup, fields) for name, sup, fields in HIERARCHY}

    def every_field(name):   # a class's fields: its superclass's, then its own
        sup, fields = own[name]
        return (every_field(sup) if sup else ()) + fields

    for name, sup, fields in HIERARCHY:
        cls = interp.classes[name]
        assert (cls.superclass.name if cls.superclass else None, tuple(cls.fields)) == (sup, every_field(name)), name


def test_builtin_fields_agree():
    runtime = {name: fields for name, _, fields in HIERARCHY}
    for name, fields in BUILTIN_FIELDS.items():
        assert tuple(fields) == runtime[name], name


def test_the_native_compiler_takes_the_shared_hierarchy(tmp_path):
    """The typed IR the native compiler translates has every builtin class with lp/classdecls.py's superclass and
    fields (its own after its superclass's), so binaries share the one hierarchy too."""
    from lp.diagnostics import SourceMap
    from lp.ir import build_program
    from lp.modules import Loader
    from lp.types import check_program
    f = tmp_path / "p.lp"
    f.write_text("3 printNl.\n")
    main, imports = Loader(SourceMap()).load_main(str(f))
    classes = build_program(main, imports, check_program(main, imports)).classes
    own = {name: (sup, fields) for name, sup, fields in HIERARCHY}

    def every_field(name):
        sup, fields = own[name]
        return (every_field(sup) if sup else ()) + fields

    for name, sup, _ in HIERARCHY:
        if name in RUNTIME_ONLY:
            continue
        assert (classes[name].superclass, tuple(classes[name].fields)) == (sup, every_field(name)), name
