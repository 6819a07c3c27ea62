"""The README's promises hold: its tour runs, and its install and test commands are the ones CI runs
and install what the tests need."""
from __future__ import annotations

import re
import shlex
import subprocess
import tomllib

from tests.conftest import ROOT, run_lp

README = ROOT / "README.md"


def _command_under(heading: str) -> str:
    """The first indented (code) line of the README section `heading`."""
    section = README.read_text().split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^    (\S.*)$", section, re.M).group(1)


def install_command() -> str:
    return _command_under("Try it")


def readme_test_command() -> str:
    return _command_under("Run the tests")


def test_readme_tour_runs(tmp_path):
    tour = re.search(r"```smalltalk\n(.*?)```", README.read_text(), re.S).group(1)
    f = tmp_path / "tour.lp"
    f.write_text(tour)
    r = run_lp("run", str(f))
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout == b"LP\n1\n"


def test_ci_runs_the_readme_commands_exactly():
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    install, tests = install_command(), readme_test_command()
    assert install in ci, f"`.ci/run` does not run the README's install command {install!r}"
    assert ci[-1] == tests == "python -m pytest"
    assert ci.index(install) < len(ci) - 1


def _installed_requirements(command: str) -> set[str]:
    """The distributions `pip install` of this project pulls in, as the install command spells it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_args = shlex.split(command.split("&&")[0])
    assert pip_args[:2] == ["pip", "install"], command
    target = pip_args[-1]
    extras = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", target)
    assert extras is not None, f"the install command does not install this project: {command!r}"
    reqs = list(project["dependencies"])
    for extra in (extras.group(1) or "").split(","):
        reqs += project["optional-dependencies"].get(extra, []) if extra else []
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in reqs}


def test_install_command_installs_what_the_tests_import():
    installed = _installed_requirements(install_command())
    assert {"pytest", "pytest-timeout", "pytest-xdist", "hypothesis", "lark"} <= installed, installed


def test_readme_does_not_claim_what_does_not_exist():
    intro = README.read_text().split("## Try it", 1)[0]
    assert "tree-walking" not in intro   # docs/interpreter.md: bodies are compiled to register code
    assert "`lp build`" in intro and "does not exist yet" not in intro
    assert run_lp("build", "--help").returncode == 0     # the native compiler the intro describes exists


def _command_rows() -> list[tuple[str, list[str]]]:
    """(`lp` subcommand, the options the README's Commands table lists for it)."""
    section = README.read_text().split("## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for usage in re.findall(r"^\| `lp (\w+)([^`]*)`", section, re.M):
        rows.append((usage[0], re.findall(r"(--?[\w-]+)", usage[1].replace("\\|", " "))))
    return rows


def test_every_command_in_the_table_exists_with_its_options():
    rows = _command_rows()
    assert {"run", "build", "test", "check", "fmt", "lsp"} <= {cmd for cmd, _ in rows}
    for cmd, options in rows:
        r = run_lp(cmd, "--help")
        assert r.returncode == 0, cmd
        for option in options:
            assert option.encode() in r.stdout, (cmd, option)


def test_built_binaries_take_the_run_flags_the_table_names(tmp_path):
    section = README.read_text().split("## Commands\n", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in section.splitlines() if line.startswith("| `lp build"))
    flags = re.findall(r"`(--[\w-]+)", row.split(" | ")[1])
    assert flags == ["--domains", "--quiet", "--stack-limit", "--observe"]   # --observe: tests/observe (MODES)
    src = tmp_path / "hi.lp"
    src.write_text("'hi' displayNl.\n")
    assert run_lp("build", str(src), "-o", str(tmp_path / "hi")).returncode == 0
    r = subprocess.run([str(tmp_path / "hi"), "--domains", "2", "--quiet", "--stack-limit", "100"],
                       capture_output=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"hi\n", b"")
