"""Both modes run on one domain per core unless told otherwise (LANGUAGE.md: `--domains N`,
default the number of cores): a binary started without `--domains` has as many domain threads as
`lp run` and `--domains <cores>` (counted in /proc while the program sleeps)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.native.harness import build

SLEEPER = "'up' displayNl.\nActor sleep: 1500.\n"


def _threads(cmd, cwd) -> int:
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "up\n", p.stderr.read()
        time.sleep(0.3)
        return len(os.listdir(f"/proc/{p.pid}/task"))
    finally:
        p.wait(timeout=60)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc")
def test_the_default_domain_count_is_the_number_of_cores(tmp_path):
    src = tmp_path / "sleeper.lp"
    src.write_text(SLEEPER)
    assert build(src, tmp_path / "sleeper").status == 0
    cores = os.cpu_count()
    binary = str(tmp_path / "sleeper")
    default, one, all_cores = (_threads([binary, *args], tmp_path) for args in ((), ("--domains", "1"),
                                                                               ("--domains", str(cores))))
    assert default == all_cores and default - one == cores - 1
    interpreted = [_threads([sys.executable, "-m", "lp", "run", *args, src.name], tmp_path)
                   for args in ((), ("--domains", "1"))]
    assert interpreted[0] - interpreted[1] == cores - 1
