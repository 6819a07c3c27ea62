"""A killed actor's values are released (issue 12): busy actors, whose frames own strings and
arrays, are killed by the 100,000 and the binary's resident memory returns near its baseline;
a smaller run under AddressSanitizer/LeakSanitizer shows no leak and prints what `lp run` does."""
from __future__ import annotations

import re
import subprocess

from tests.native.harness import LP, ROOT, run

PROGRAM = ROOT / "tests/native/actor_stress/kill_busy.lp"


def _sized(tmp_path, rounds: int, size: int, warm: int = 4):
    text = PROGRAM.read_text()
    for name, value in (("warm", warm), ("rounds", rounds), ("size", size)):
        text, n = re.subn(rf"^{name} := \d+\.", f"{name} := {value}.", text, flags=re.M)
        assert n == 1, name
    path = tmp_path / "kill_busy.lp"
    path.write_text(text)
    return path


def _rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_killing_100000_busy_actors_returns_rss_near_its_baseline(tmp_path):
    program = _sized(tmp_path, rounds=1000, size=100)
    binary = tmp_path / "kill_busy"
    b = run([*LP, "build", program.name, "-o", str(binary)], cwd=tmp_path)
    assert b.status == 0, b.stderr.decode()
    p = subprocess.Popen([str(binary), "--domains", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rss = {}
    for line in p.stderr:                         # each Log line is followed by a 300 ms sleep
        rss[line.strip()] = _rss_kib(p.pid)
    assert p.wait(timeout=300) == 0
    assert p.stdout.read() == "done\n"
    # each of the 100,000 actors owns about 3 KB when killed: a leak would add ~300 MB
    assert rss["info: after"] - rss["info: baseline"] < 32 * 1024, rss


def test_killed_actors_leak_nothing_under_leak_sanitizer(tmp_path):
    program = _sized(tmp_path, rounds=4, size=50, warm=1)
    binary = tmp_path / "kill_asan"
    b = run([*LP, "build", program.name, "-o", str(binary)], cwd=tmp_path, env={"LP_SANITIZE": "address"})
    assert b.status == 0, b.stderr.decode()
    want = run([*LP, "run", program.name], cwd=tmp_path)
    for domains in ("1", "2"):
        got = run([str(binary), "--domains", domains], cwd=tmp_path)
        assert b"Sanitizer" not in got.stderr, got.stderr.decode()[-3000:]
        assert (got.status, got.stdout, got.stderr) == (want.status, want.stdout, want.stderr)
