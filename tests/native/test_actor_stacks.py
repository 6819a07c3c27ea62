"""Deep recursion in a spawned actor of a binary (issue 11): the fiber's stack is 256 KiB, and a
call that finds it full goes on on the actor's deep stack, as large as the main actor's
(docs/native.md "Stacks"), so spawned actors recurse to --stack-limit and walk deep values as the
main actor and `lp run` do; past the limit, the stack overflow Error, never a segfault."""
from __future__ import annotations

from tests.native.harness import LP, ROOT, build, interpret, native, run

STRESS = ROOT / "tests/native/actor_stress"


def _same_in_both_modes(program, tmp_path, *args):
    binary = tmp_path / program.stem
    b = build(program, binary)
    assert b.status == 0, b.stderr.decode()
    want = interpret(program, *args)
    assert want.status == 0, want.stderr.decode()
    for domains in ("1", "2"):
        got = native(binary, program.parent, "--domains", domains, *args)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), domains
    return want


def test_deep_recursion_in_a_spawned_actor_goes_to_the_stack_limit(tmp_path):
    want = _same_in_both_modes(STRESS / "deep_recursion.lp", tmp_path)
    assert want.stdout.decode().splitlines() == [
        "100000", "stack overflow: more than 200000 nested calls (raise the limit with --stack-limit)",
        "316500", "42", "#ensured", "true", "true", "300000", "150000"]


def test_a_deep_stack_that_cannot_be_mapped_is_the_stack_overflow_error(tmp_path):
    """With the address space limited to about 1.5 GiB the main actor's stack (1 GiB) is mapped and
    a spawned actor's deep one is not: its recursion ends with the LP Error, not a segfault."""
    import resource
    import subprocess
    src = tmp_path / "nomem.lp"
    src.write_text("""Object subclass: #R.
R class >> down: n = n = 0 ifTrue: [0] ifFalse: [1 + (R down: n - 1)].
main := Actor self.
Actor spawn: [:me | main ! (Error try: [(R down: 100000) printString] onError: [:e | e messageText])].
main receive: { String -> [:v | v displayNl] }.
""")
    assert build(src, tmp_path / "nomem").status == 0

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1600 << 20, 1600 << 20))
    p = subprocess.run([str(tmp_path / "nomem")], capture_output=True, text=True, preexec_fn=limit, timeout=60)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout.startswith("stack overflow: this actor's stack is full after ")
    assert p.stdout.endswith(" nested calls (256 KiB: no memory for a larger one)\n")


def test_deep_values_in_a_spawned_actor(tmp_path):
    _same_in_both_modes(STRESS / "deep_values.lp", tmp_path)


def test_deep_stacks_under_address_sanitizer(tmp_path):
    """The switches to the deep stack and back, yields and blocks there and kills while there,
    announced to AddressSanitizer (runtime/fiber.c): no error report, no leak, the same output."""
    for program, leaks in ((STRESS / "deep_recursion.lp", "1"), (STRESS / "deep_values.lp", "1")):
        binary = tmp_path / program.stem
        b = run([*LP, "build", program.name, "-o", str(binary)], cwd=program.parent, env={"LP_SANITIZE": "address"})
        assert b.status == 0, b.stderr.decode()
        want = interpret(program)
        got = run([str(binary), "--domains", "2"], cwd=program.parent, env={"ASAN_OPTIONS": f"detect_leaks={leaks}"})
        assert b"AddressSanitizer" not in got.stderr, got.stderr.decode()[-3000:]
        assert (got.status, got.stdout) == (want.status, want.stdout)


BOUNDARY = """Object subclass: #R.
R class >> down: n = n = 0 ifTrue: [0] ifFalse: [(R down: n - 1) + 1].
main := Actor self.
Actor spawn: [:me | main ! (Error try: [(R down: 20000) printString] onError: [:e | e messageText])].
main receive: { String -> [:v | v displayNl] }.
c := Actor spawn: [:me | (R down: 20000) printNl].
main monitor: c.
main receive: { Down -> [:d | d reason isError printNl] }.
"""


def test_stack_limit_in_a_spawned_actor_matches_the_interpreter_at_the_boundary(tmp_path):
    """20,000 levels are past a spawned actor's first stack: the limit is --stack-limit, exactly."""
    src = tmp_path / "boundary.lp"
    src.write_text(BOUNDARY)
    assert build(src, tmp_path / "boundary").status == 0
    for limit in ("20001", "20002", "20003"):
        want = interpret(src, "--stack-limit", limit)
        got = native(tmp_path / "boundary", tmp_path, "--stack-limit", limit)
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr), limit


def test_actors_moved_between_domains_keep_their_own_depth(tmp_path):
    """The per-thread depth, unwinding context and stack floor are put back after every switch on
    the thread the fiber resumed on (they were written to the thread it left)."""
    program = STRESS / "migrating_depth.lp"
    binary = tmp_path / "migrating"
    b = run([*LP, "build", program.name, "-o", str(binary)], cwd=program.parent)
    assert b.status == 0, b.stderr.decode()
    for _ in range(3):
        got = run([str(binary), "--domains", "2", "--stack-limit", "1010"], cwd=program.parent)
        assert (got.status, got.stdout.decode(), got.stderr.decode()) == (0, "2400000\n", "")


def test_blocked_actors_stacks_set_aside_come_back_intact(tmp_path):
    """Past 10,000 live fiber stacks a blocked actor keeps only the bytes its frames use
    (runtime/fiber.c): 20,000 actors blocked with values in the frames below their receive get
    them back when woken by a message, and unwind cleanly when killed, on 1 and 2 domains."""
    program = STRESS / "parked_stacks.lp"
    binary = tmp_path / "parked"
    b = run([*LP, "build", program.name, "-o", str(binary)], cwd=program.parent)
    assert b.status == 0, b.stderr.decode()
    want = sum(4 * k + 1 + len(f"w{k}") for k in range(1, 19001))
    for domains in ("1", "2"):
        got = run([str(binary), "--domains", domains, "--quiet"], cwd=program.parent)
        assert (got.status, got.stdout.decode(), got.stderr.decode()) == (0, f"{want}\n", ""), domains
