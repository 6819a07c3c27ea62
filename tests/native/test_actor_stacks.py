"""Deep recursion in a spawned actor of a binary (issue 12): the fiber's stack is 256 KiB and every
LP prologue checks the stack pointer against the fiber's floor as well as the depth, so recursion
that would overrun it raises the stack overflow Error (catchable; otherwise the actor dies with it),
never a segfault, on 1 and 2 domains. The main actor's stack holds --stack-limit frames."""
from __future__ import annotations

from tests.native.harness import LP, ROOT, run

PROGRAM = ROOT / "tests/native/actor_stress/deep_recursion.lp"
FULL = "stack overflow: this actor's stack is full after "


def test_deep_recursion_in_a_spawned_actor_raises_the_stack_overflow_error(tmp_path):
    binary = tmp_path / "deep"
    b = run([*LP, "build", PROGRAM.name, "-o", str(binary)], cwd=PROGRAM.parent)
    assert b.status == 0, b.stderr.decode()
    for domains in ("1", "2"):
        got = run([str(binary), "--domains", domains], cwd=PROGRAM.parent)
        out = got.stdout.decode().splitlines()
        assert got.status == 0, got.stderr.decode()
        assert out[0].startswith(FULL) and out[0].endswith("(an actor other than the main one has 256 KiB of stack)")
        assert out[1:] == ["1000", "true", "150000"]


def test_actors_moved_between_domains_keep_their_own_depth(tmp_path):
    """The per-thread depth, unwinding context and stack floor are put back after every switch on
    the thread the fiber resumed on (they were written to the thread it left)."""
    program = ROOT / "tests/native/actor_stress/migrating_depth.lp"
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
    program = ROOT / "tests/native/actor_stress/parked_stacks.lp"
    binary = tmp_path / "parked"
    b = run([*LP, "build", program.name, "-o", str(binary)], cwd=program.parent)
    assert b.status == 0, b.stderr.decode()
    want = sum(4 * k + 1 + len(f"w{k}") for k in range(1, 19001))
    for domains in ("1", "2"):
        got = run([str(binary), "--domains", domains, "--quiet"], cwd=program.parent)
        assert (got.status, got.stdout.decode(), got.stderr.decode()) == (0, f"{want}\n", ""), domains
