"""A built binary's `--seed N` (docs/testing.md): the runtime's deterministic mode, as `lp run
--seed N` has it: the same seed prints the same bytes, seeds choose the interleaving, virtual
time skips a ten-minute sleep, and `--faults` / `--max-faults N` / `--fault-rate R` inject
seeded faults."""
from __future__ import annotations

import pytest

from tests.native.harness import build, native

ORDER = """Object subclass: #Hit fields: (n).
main := Actor self.
Actor millisecondClock printNl.
1 to: 6 do: [:i | Actor spawn: [:me | 1 to: 3 do: [:k | main ! (Hit fields: { n: i * 10 + k })]]].
1 to: 18 do: [:j | main receive: { Hit -> [:h | Transcript show: h n printString , ' '] }].
'' displayNl.
t := Actor millisecondClock.
Actor sleep: 600000.
(Actor millisecondClock - t) printNl.
"""


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    d = tmp_path_factory.mktemp("det")
    (d / "order.lp").write_text(ORDER)
    r = build(d / "order.lp", d / "order")
    assert r.status == 0, r.stderr.decode()
    return d / "order"


def test_the_same_seed_prints_the_same_bytes_and_seeds_choose_the_schedule(binary):
    runs = {s: [native(binary, binary.parent, "--seed", s) for _ in range(2)] for s in ("1", "2", "3")}
    for a, b in runs.values():
        assert (a.status, a.stderr) == (0, b"") and a.stdout == b.stdout
    outs = {a.stdout for a, _ in runs.values()}
    assert len(outs) > 1
    for out in outs:
        first, hits, waited = out.decode().splitlines()
        assert first == "0" and sorted(hits.split()) == sorted(f"{i}{k}" for i in range(1, 7) for k in (1, 2, 3))
        assert waited == "600000"   # virtual time: the ten minutes pass at once


def test_faults_are_replayed_by_seed_too(binary):
    runs = [native(binary, binary.parent, "--seed", "4", "--faults") for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and runs[0].status == runs[1].status
    capped = native(binary, binary.parent, "--seed", "4", "--max-faults", "1")
    assert capped.status in (0, 1)
    rated = [native(binary, binary.parent, "--seed", "4", "--max-faults", "3", "--fault-rate", "64") for _ in range(2)]
    assert rated[0].stdout == rated[1].stdout


@pytest.mark.parametrize("args, message", [
    (["--faults"], "--faults, --max-faults and --fault-rate need --seed N"),
    (["--seed", "1", "--fault-rate", "257"], "--fault-rate expects a whole number from 1 to 256"),
    (["--seed", "-1"], "--seed expects a whole number of at least 0"),
    (["--seed", "x"], "--seed expects a whole number of at least 0"),
    (["--seed"], "--seed expects a whole number of at least 0"),
    (["--seed", "1", "--max-faults", "0"], "--max-faults expects a whole number of at least 1"),
])
def test_bad_seed_flags_are_usage_errors(binary, args, message):
    r = native(binary, binary.parent, *args)
    assert r.status == 2 and r.stderr.decode().endswith(f"{message}\n")
