"""Idle grains give their memory back (docs/grains.md, "Memory"): ids touched once with a 1 s idle
timeout, on a store outside the process (Redis), so that once every owner has deactivated the
process holds nothing per id; its RSS must come back near where it started, and every state must
reload. The 100,000-id figures, with each store and in both modes, are bench/grains/idle_rss.py's."""
from __future__ import annotations

from tests.grains.helpers import workdir
from tests.grains.redis_server import redis  # noqa: F401 (fixture)
from tests.net.helpers import LPProcess

IDS = 20000

# 10 callers touch the ids (then read them back) in parallel; after each round the program waits
# until no owner is left, 1 s more (the runtime gives memory back once idle), then prints a line
# and sleeps while the test reads its RSS
PROGRAM = """
Import module: #Grain.
Object subclass: #Counter fields: (n).
Counter >> increment = self with: {{ n: self n + 1 }}.
Object subclass: #Wait.
Wait class >> idle: counters = counters active = 0 ifTrue: [nil] ifFalse: [Actor sleep: 100. Wait idle: counters].
counters := Grain for: Counter initial: (Counter fields: {{ n: 0 }})
    store: (RedisGrainStore url: '{url}')
    options: (GrainOptions default with: {{ idle: 1000 }}).
main := Actor self.
each := [:k | 1 to: 10 do: [:w | Actor spawn: [:me |
        wrong := (w to: {ids} by: 10) inject: 0 into: [:acc :i |
            (k value: (counters id: i printString)) ifTrue: [acc] ifFalse: [acc + 1]].
        main ! wrong]].
    (1 to: 10) inject: 0 into: [:acc :w | acc + (main receive: {{ Integer -> [:x | x] }})]].
'baseline' displayNl.
Actor sleep: 3000.
a := each value: [:g | g increment n = 1].
Wait idle: counters.
Actor sleep: 1000.
('idle, ' , a printString , ' wrong') displayNl.
Actor sleep: 3000.
b := each value: [:g | g n = 1].
Wait idle: counters.
Actor sleep: 1000.
('reloaded and idle, ' , b printString , ' wrong') displayNl.
Actor sleep: 3000.
"""


def status_kb(pid: int, field: str) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


# The program's own memory (RssAnon: without the pages of the binary and the shared libraries, which
# vary with the build) once idle after 20,000 activations: measured 4.6-5.1 MB on a 0.3 MB baseline
# (peak RSS 147-156 MB); before runtime/reclaim.c gave freed memory back, about 15 MB.
IDLE_ANON_KB = 9 * 1024


def test_a_binarys_idle_owners_give_their_memory_back(redis, tmp_path):  # noqa: F811
    """As a binary: 20,000 ids, each touched once by 10 callers, then each read back (1 each, none
    wrong). After each round, once every owner has gone, the program's anonymous memory is under
    IDLE_ANON_KB (it rose by about 150 MB in between; what stays is a few MB of arena pages that
    still hold a live block). The runtime used to keep what the owners had freed, glibc's arenas
    and the domains' caches of fiber stacks. It now gives it back when a domain stays idle
    (runtime/reclaim.c)."""
    p = LPProcess(PROGRAM.format(url=redis.url, ids=IDS), workdir(tmp_path), mode="build", cwd=tmp_path)
    with p:
        assert p.readline(timeout=120) == "baseline"
        baseline = status_kb(p.proc.pid, "RssAnon")
        assert p.readline(timeout=240) == "idle, 0 wrong"
        idle = status_kb(p.proc.pid, "RssAnon")
        assert p.readline(timeout=240) == "reloaded and idle, 0 wrong"
        reloaded = status_kb(p.proc.pid, "RssAnon")
        peak = status_kb(p.proc.pid, "VmHWM")
        rc, _, err = p.finish()
    assert (rc, err) == (0, "")
    print(f"anonymous RSS (kB): baseline {baseline}, idle {idle}, reloaded and idle {reloaded}; peak RSS {peak}")
    assert peak > 3 * IDLE_ANON_KB, peak           # many owners were there at once
    assert idle < IDLE_ANON_KB and reloaded < IDLE_ANON_KB, (baseline, peak, idle, reloaded)
