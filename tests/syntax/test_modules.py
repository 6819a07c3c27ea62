"""Modules: `Import module: #Name.` finds name.lp beside the importer or in stdlib/; errors for cycles,
unknown names, path-like names and statements that would never run."""
from __future__ import annotations


def write(d, **files):
    for name, text in files.items():
        (d / f"{name}.lp").write_text(text)


def test_a_module_beside_the_file_joins_the_program(tmp_path, lp):
    write(tmp_path, http_greeter="Object subclass: #Greeter.\nGreeter class >> hi = 'hi'.\n",
          main="Import module: #HttpGreeter.\nImport module: #HttpGreeter.\nGreeter hi displayNl.\n")
    r = lp("run", str(tmp_path / "main.lp"))
    assert (r.returncode, r.stdout, r.stderr) == (0, b"hi\n", b"")


def test_a_one_letter_word_or_an_acronym_is_a_word_of_the_file_name(tmp_path, lp):
    # docs/language.md: CamelCase becomes snake_case
    write(tmp_path, a_mod="Object subclass: #AM.\n", tcp_server="Object subclass: #TS.\n",
          main="Import module: #AMod.\nImport module: #TCPServer.\nAM new printNl.\nTS new printNl.\n")
    r = lp("run", str(tmp_path / "main.lp"))
    assert (r.returncode, r.stdout) == (0, b"AM()\nTS()\n"), r.stderr


def test_an_import_cycle_is_named(tmp_path, lp):
    write(tmp_path, a="Import module: #B.\nObject subclass: #A.\n", b="Import module: #A.\nObject subclass: #B.\n",
          main="Import module: #A.\n1 printNl.\n")
    r = lp("check", str(tmp_path / "main.lp"))
    assert r.returncode == 1 and b"IMPORT CYCLE" in r.stderr and b"a.lp -> b.lp -> a.lp" in r.stderr


def test_an_unknown_module_is_an_error(tmp_path, lp):
    write(tmp_path, main="Import module: #Nowhere.\n")
    r = lp("check", str(tmp_path / "main.lp"))
    assert r.returncode == 1 and b"There is no module `Nowhere`" in r.stderr


def test_a_statement_in_a_module_is_an_error_not_silently_skipped(tmp_path, lp):
    write(tmp_path, helper="Object subclass: #Helper.\n'module statement' displayNl.\n",
          main="Import module: #Helper.\n1 printNl.\n")
    for cmd in ("check", "run"):
        r = lp(cmd, str(tmp_path / "main.lp"))
        assert (r.returncode, r.stdout) == (1, b"") and b"STATEMENT IN A MODULE" in r.stderr
        assert b"helper.lp:2:1" in r.stderr


def test_a_module_name_is_never_a_path(tmp_path, lp):
    (tmp_path / "sub").mkdir()
    write(tmp_path, evil="Object subclass: #Evil.\n")
    for name in ("#'../evil'", f"#'{tmp_path / 'evil'}'", "#'sub/x'"):
        write(tmp_path / "sub", main=f"Import module: {name}.\n1 printNl.\n")
        r = lp("run", str(tmp_path / "sub" / "main.lp"))
        assert (r.returncode, r.stdout) == (1, b"") and b"BAD MODULE NAME" in r.stderr, r.stderr
