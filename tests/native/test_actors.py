"""Actors in native binaries (issue 12): every actor program (the examples, the checker's actor
programs, tests/native/actor_programs) built once and compared with `lp run` byte for byte
(stdout, stderr, exit status) on `--domains 1` and `--domains 2`, and with `--quiet`."""
from __future__ import annotations

import pytest

from tests.native.harness import LP, ROOT, build, run

ACTOR_EXAMPLES = ["ask.lp", "counter.lp", "fairness.lp", "links.lp", "monitors.lp", "ping_pong.lp",
                  "selective_receive.lp", "timeouts.lp", "trap_exits.lp"]
ACTOR_WELL_TYPED = [
    "ask_and_futures.lp", "counter_actor.lp", "monitors_and_links.lp", "nested_receive.lp",
    "spawn_body_bound_first.lp", "subclass_messages.lp", "supervisor_sketch.lp",
    "symbols_and_plain_receive.lp", "timeouts.lp", "deferred_send_reaches_each_callers_actor.lp",
    "generic_containers.lp", "generic_copies_and_replies.lp", "request_class_two_reply_types.lp",
    "request_hierarchy_replies.lp", "plain_receive_of_down.lp",
    "block_that_receives_run_by_another.lp", "perform_runs_method_in_caller.lp"]
ACTOR_PROGRAMS = ([ROOT / "examples" / n for n in ACTOR_EXAMPLES]
                  + [ROOT / "tests/types/well_typed" / n for n in ACTOR_WELL_TYPED]
                  + sorted((ROOT / "tests/native/actor_programs").glob("*.lp")))
ACTOR_PROGRAMS.append(ROOT / "examples/supervisor_tree.lp")
QUIET = {"reports.lp", "main_linked.lp", "deadlock.lp", "deadlock_await.lp", "supervisor_tree.lp"}


def _id(p) -> str:
    return f"{p.parent.name}/{p.name}"


@pytest.mark.parametrize("program", ACTOR_PROGRAMS, ids=_id)
def test_actor_program_matches_interpreter_on_1_and_2_domains(program, tmp_path):
    binary = tmp_path / program.stem
    b = build(program, binary)
    assert b.status == 0, b.stderr.decode()
    runs = [("--domains", "1"), ("--domains", "2")]
    if program.name in QUIET:
        runs.append(("--domains", "2", "--quiet"))
    for flags in runs:
        want = run([*LP, "run", *flags, program.name], cwd=program.parent)
        got = run([str(binary), *flags], cwd=program.parent)
        assert (got.status, got.stdout.decode(), got.stderr.decode()) == \
            (want.status, want.stdout.decode(), want.stderr.decode()), flags


STRESS = ROOT / "tests/native/actor_stress/shared_values.lp"


def test_shared_values_under_address_sanitizer_on_2_domains(tmp_path):
    """40 clients ask 4 servers 300 times each with strings and arrays that cross actors (shared
    counts), then 20 waiting actors are killed: under AddressSanitizer, 5 runs on 2 domains, the
    same answer as `lp run` and no memory error. The kill reports come in any order on 2 domains."""
    binary = tmp_path / "stress"
    b = run([*LP, "build", STRESS.name, "-o", str(binary)], cwd=STRESS.parent,
            env={"LP_SANITIZE": "address"})
    assert b.status == 0, b.stderr.decode()
    env_run = [str(binary), "--domains", "2"]
    want = run([*LP, "run", "--domains", "2", STRESS.name], cwd=STRESS.parent)
    for _ in range(5):
        got = run(env_run, cwd=STRESS.parent, env={"ASAN_OPTIONS": "detect_leaks=0"})
        assert b"AddressSanitizer" not in got.stderr
        assert (got.status, got.stdout) == (want.status, want.stdout)
        assert sorted(got.stderr.splitlines()) == sorted(want.stderr.splitlines())
