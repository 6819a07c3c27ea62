"""`lp test` (docs/testing.md): discovery, the TestCase assertions, failure reports and exit
status, deterministic replay by seed, virtual time, faults and shrinking, the bank example."""
from __future__ import annotations

import shlex

from tests.conftest import ROOT, run_lp

SUM = """Import module: #Test.
TestCase subclass: #SumTest.
Object subclass: #Helper.

SumTest >> testAdds = self assert: 1 + 2 equals: 3.
SumTest >> testWrong = self assert: 1 + 2 equals: 4.
SumTest >> helper = self fail: 'never run: not a test'.
SumTest >> testPrints = (
    'hello from the test' displayNl.
    self assert: false description: 'it printed'
).
Helper >> testNotATest = 1 / 0.
"""


def lp_test(tmp_path, *args, files=None, timeout=120):
    for name, text in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    r = run_lp("test", *args, cwd=tmp_path, timeout=timeout)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_report_of_passing_and_failing_tests(tmp_path):
    code, out, err = lp_test(tmp_path, "sum_test.lp", files={"sum_test.lp": SUM})
    assert code == 1
    assert out.startswith("sum_test.lp .FF\n")
    assert "FAIL SumTest>>testWrong (seed 1)\n  sum_test.lp:6:24: TestFailure: expected 4 but got 3\n" in out
    assert "  6 | SumTest >> testWrong = self assert: 1 + 2 equals: 4.\n" in out
    assert "    |                        ^^^^" in out
    assert "sum_test.lp:10:5: TestFailure: it printed" in out
    assert "  output:\n    hello from the test\n" in out
    assert "reproduce: lp test sum_test.lp --seed 1 --only 'SumTest>>testWrong'" in out
    assert "never run" not in out and "testNotATest" not in out
    assert out.endswith("3 tests: 1 passed, 2 failed\n")


def test_all_passing_exits_0_and_only_selects(tmp_path):
    code, out, _ = lp_test(tmp_path, "sum_test.lp", "--only", "SumTest>>testAdds", files={"sum_test.lp": SUM})
    assert (code, out) == (0, "sum_test.lp .\n1 test: 1 passed, 0 failed\n")
    code, out, _ = lp_test(tmp_path, "sum_test.lp", "--only", "testAdds", files={"sum_test.lp": SUM})
    assert code == 0


def test_discovery_searches_folders_and_defaults_to_tests(tmp_path):
    passing = "Import module: #Test.\nTestCase subclass: #T.\nT >> testOk = self assert: true.\n"
    files = {"tests/a_test.lp": passing, "tests/sub/b_test.lp": passing, "tests/helper.lp": "1 printNl.\n"}
    code, out, _ = lp_test(tmp_path, files=files)
    assert code == 0
    assert out == "tests/a_test.lp .\ntests/sub/b_test.lp .\n2 tests: 2 passed, 0 failed\n"
    code, out, _ = lp_test(tmp_path, "tests/sub")
    assert out == "tests/sub/b_test.lp .\n1 test: 1 passed, 0 failed\n"


def test_missing_paths_and_files_that_do_not_load(tmp_path):
    code, _, err = lp_test(tmp_path, "nope_test.lp")
    assert code == 1 and "lp test: nope_test.lp: no such file or folder" in err
    code, out, err = lp_test(tmp_path, "bad_test.lp", files={"bad_test.lp": "Import module: #Test.\nx := 1 + 'a'.\n"})
    assert code == 1 and "TYPE MISMATCH" in err and "bad_test.lp:2" in err
    assert out.endswith("0 tests: 0 passed, 0 failed, 1 file did not load\n")


def test_usage_errors(tmp_path):
    assert lp_test(tmp_path, "--seed", "-1")[0] == 2
    assert lp_test(tmp_path, "--seeds", "0")[0] == 2
    assert lp_test(tmp_path, "--fault-rate", "257")[0] == 2
    for flags in (["--faults"], ["--seed", "3"], ["--seeds", "3"], ["--max-faults", "2"]):
        code, _, err = lp_test(tmp_path, "--real", *flags)
        assert code == 2 and "--real runs on the normal scheduler" in err


def test_assertions(tmp_path):
    src = """Import module: #Test.
TestCase subclass: #A.
Object subclass: #Ping.
A >> testRaises = self should: [1 / 0] raise: Error.
A >> testRaisesNothing = self should: [1 + 1] raise: Error.
A >> testRaisesOther = self should: [(TestFailure fields: { message: 'x' }) signal] raise: Timeout.
A >> testDeny = self deny: 1 = 2.
A >> testFail = self fail: 'on purpose'.
A >> testAwait = (
    p := Promise new.
    Actor spawn: [:me | p resolve: 42].
    self assert: (self await: p future within: 1000) equals: 42
).
A >> testAwaitTimesOut = self await: Promise new future within: 30000.
A >> testDown = (
    d := self downOf: (Actor spawn: [:me | Error raise: 'boom']) within: 1000.
    self assert: (d reason printString includesSubstring: 'boom')
).
A >> testDownTimesOut = self downOf: (Actor spawn: [:me | me receive: { Ping -> [:p | nil] }]) within: 50.
A >> testDeadlock = Actor self receive: { Ping -> [:p | nil] }.
"""
    code, out, _ = lp_test(tmp_path, "a_test.lp", files={"a_test.lp": src})
    assert out.startswith("a_test.lp .FF.F.F.FF\n")
    assert "TestFailure: expected Error to be raised, got nothing" in out
    assert "TestFailure: expected Timeout to be raised, got TestFailure: x" in out
    assert "TestFailure: on purpose" in out
    assert "TestFailure: no answer within 30000 ms" in out
    assert "TestFailure: the actor did not end within 50 ms" in out
    assert "FAIL A>>testDeadlock (seed 1)\n  deadlock: every actor is blocked and nothing can wake one" in out
    assert out.endswith("10 tests: 4 passed, 6 failed\n")


ORDER = """Import module: #Test.
TestCase subclass: #OrderTest.
Object subclass: #Hit fields: (n).
OrderTest >> testOrder = (
    main := Actor self.
    1 to: 4 do: [:i | Actor spawn: [:me | 1 to: 3 do: [:k | main ! (Hit fields: { n: i * 10 + k })]]].
    1 to: 12 do: [:j | main receive: { Hit -> [:h | Transcript show: h n printString , ' '] }].
    t := Actor millisecondClock.
    Actor sleep: 600000.
    (Actor millisecondClock - t) printNl.
    self fail: 'show the output'
).
"""


def test_same_seed_same_output_and_seeds_choose_schedules(tmp_path):
    runs = {s: [lp_test(tmp_path, "order_test.lp", "--seed", s, files={"order_test.lp": ORDER})[1]
                for _ in range(2)] for s in ("1", "2", "3")}
    for s, (a, b) in runs.items():
        assert a == b and f"(seed {s})" in a
    orders = {next(line for line in a.split("\n") if line.startswith("    ") and "1 " in line)
              for a, _ in runs.values()}
    assert len(orders) == 3


def test_timers_due_together_fire_in_the_order_the_seed_chooses(tmp_path):
    prog = tmp_path / "t.lp"
    prog.write_text("main := Actor self.\n1 to: 5 do: [:i | Actor spawn: [:me | Actor sleep: 10. main ! i]].\n"
                    "1 to: 5 do: [:j | main receive: { Integer -> [:i | Transcript show: i printString] }].\n"
                    "'' displayNl.\n")
    outs = {s: {run_lp("run", "--seed", str(s), str(prog), timeout=60).stdout for _ in range(2)} for s in range(1, 5)}
    assert all(len(o) == 1 for o in outs.values())
    assert len({next(iter(o)) for o in outs.values()}) > 1


def test_virtual_time_skips_a_ten_minute_sleep(tmp_path):
    _, out, _ = lp_test(tmp_path, "order_test.lp", files={"order_test.lp": ORDER}, timeout=60)
    waited = int(out.split("output:\n")[1].split("\n")[0].split()[-1])
    assert 600000 <= waited < 600100


def test_lp_run_seed_replays_a_program_on_the_virtual_clock(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("Object subclass: #Hit fields: (n).\nmain := Actor self.\nActor millisecondClock printNl.\n"
                    "1 to: 4 do: [:i | Actor spawn: [:me | main ! (Hit fields: { n: i })]].\n"
                    "1 to: 4 do: [:j | main receive: { Hit -> [:h | h n printNl] }].\n"
                    "Actor sleep: 600000.\n(Actor millisecondClock >= 600000) printNl.\n")
    runs = {s: {run_lp("run", "--seed", s, str(prog), timeout=60).stdout for _ in range(2)} for s in ("1", "2", "5")}
    assert all(len(outs) == 1 for outs in runs.values())
    outs = [next(iter(o)).decode() for o in runs.values()]
    assert all(o.startswith("0\n") and o.endswith("true\n") for o in outs)
    assert len(set(outs)) > 1


def test_real_mode_uses_the_normal_scheduler(tmp_path):
    src = "Import module: #Test.\nTestCase subclass: #R.\nR >> testClock = (t := Actor millisecondClock. " \
          "Actor sleep: 20. self assert: Actor millisecondClock - t >= 20)."
    assert lp_test(tmp_path, "r_test.lp", "--real", files={"r_test.lp": src})[0] == 0


def test_the_network_cannot_wait_in_deterministic_mode(tmp_path):
    src = "Import module: #Test.\nTestCase subclass: #N.\nN >> testAccept = (TCP listen: 0) accept: 30000.\n"
    _, out, _ = lp_test(tmp_path, "n_test.lp", files={"n_test.lp": src})
    assert "NetworkError: accept: would wait for the network, which deterministic mode (lp test --seed) " \
           "does not support; run the test with --real" in out


# ---- the bank example (examples/testing)

def bank(*args):
    r = run_lp("test", *args, timeout=300)
    return r.returncode, r.stdout.decode()


def test_bank_race_is_found_by_seeds_and_replayed_byte_for_byte():
    code, found = bank("examples/testing/bank_test.lp", "--seed", "2700", "--seeds", "60")
    assert code == 1 and "FAIL BankTest>>testMoneyIsKept (seed 2752)" in found
    assert "TestFailure: expected 250 but got 200" in found
    doc = (ROOT / "docs" / "testing.md").read_text()
    report = found[found.index("\nFAIL"):]
    assert report in doc
    replays = {bank("examples/testing/bank_test.lp", "--seed", "2752", "--only", "BankTest>>testMoneyIsKept")
               for _ in range(3)}
    assert replays == {(1, "examples/testing/bank_test.lp F\n" + report)}
    assert bank("examples/testing/bank_test.lp")[0] == 0


def test_fixed_bank_passes_many_seeds():
    assert bank("examples/testing/fixed_bank_test.lp", "--seed", "2700", "--seeds", "100") == (
        0, "examples/testing/fixed_bank_test.lp .\n1 test: 1 passed, 0 failed\n")


def test_faults_fail_the_bank_and_the_failure_shrinks_and_replays():
    code, out = bank("examples/testing/fixed_bank_test.lp", "--faults", "--seeds", "20")
    assert code == 1
    assert "faults injected: 4 in 29 turns (shrunk from 5 in 28 turns)" in out
    cmd = out.split("reproduce: ")[1].split("\n")[0]
    assert cmd.endswith("--max-faults 4")
    _, again = bank(*shlex.split(cmd)[2:])
    assert out.split("FAIL")[1].split("faults injected")[0] == again.split("FAIL")[1].split("faults injected")[0]


ECHO = """Import module: #Test.
TestCase subclass: #EchoTest.
Object subclass: #Echo fields: (n reply).
Object subclass: #Loop.
Loop class >> serve: me = me receive: { Echo -> [:e | e reply ! e n. Loop serve: me] }.
EchoTest >> testEchoes = (
    echo := Actor spawn: [:me | Loop serve: me].
    1 to: 500 do: [:i | self assert: (self await: (echo ask: (Echo fields: { n: i })) within: 1000) equals: i]
).
"""


def faults_line(out):
    """(injected, turns, shrunk from (injected, turns) or None) of a failure report."""
    line = out.split("faults injected: ")[1].split("\n")[0]
    n = [int(w) for w in line.replace("(", " ").replace(")", " ").split() if w.isdigit()]
    return n[0], n[1], (n[2], n[3]) if len(n) == 4 else None


def test_a_failure_under_faults_shrinks_to_a_shorter_run_that_replays(tmp_path):
    # the echo actor killed fails the test; made more likely, the kill comes sooner
    _, out, _ = lp_test(tmp_path, "echo_test.lp", "--faults", "--seed", "3", files={"echo_test.lp": ECHO})
    assert "FAIL EchoTest>>testEchoes (seed 3)" in out and "died before replying: killed" in out
    injected, turns, (first_injected, first_turns) = faults_line(out)
    assert injected < first_injected and turns < first_turns
    cmd = shlex.split(out.split("reproduce: ")[1].split("\n")[0])
    assert cmd[-2] == "--fault-rate" and int(cmd[-1]) > 1
    for _ in range(2):
        _, again, _ = lp_test(tmp_path, *cmd[2:])
        assert again.split("FAIL")[1].split("faults injected")[0] == out.split("FAIL")[1].split("faults injected")[0]
        assert faults_line(again) == (injected, turns, None)


SLEEPY = """Import module: #Test.
TestCase subclass: #SleepyTest.
Object subclass: #Count fields: (n).
SleepyTest >> testSleepIsEnoughForTheWorker = (
    main := Actor self.
    "the worker traps exits, so faults do not kill it: only time can fail this test"
    Actor spawn: [:me |
        Actor trapExits: true.
        1 to: 200 do: [:i | Actor sleep: 0. main ! (Count fields: { n: i })]].
    Actor sleep: 5.
    self assert: (self lastOf: 0) equals: 200
).
SleepyTest >> lastOf: n = Actor self receive: { Count -> [:c | self lastOf: c n] } after: 0 do: [n].
SleepyTest >> testSleepIsPunctual = (
    t := Actor millisecondClock.
    Actor sleep: 30.
    self assert: Actor millisecondClock - t < 31
).
SleepyTest >> testTimeoutsNeverEndEarly = (
    t := Actor millisecondClock.
    Actor spawn: [:me | 1 to: 100 do: [:i | i printString]].
    Actor self receive: { #never -> [:x | x] } after: 30 do: [nil].
    self assert: Actor millisecondClock - t >= 30.
    u := Actor millisecondClock.
    Actor sleep: 20.
    self assert: Actor millisecondClock - u >= 20
).
"""


def test_slow_turns_fire_timers_early_relative_to_the_work_but_never_before_the_deadline(tmp_path):
    files = {"sleepy_test.lp": SLEEPY}
    # without faults the worker's 200 short turns take well under 5 ms, under every seed
    assert lp_test(tmp_path, "sleepy_test.lp", "--seeds", "30", files=files)[0] == 0
    # with faults a turn may take up to 10 ms: the sleep ends before the worker is done
    code, out, _ = lp_test(tmp_path, "sleepy_test.lp", "--seeds", "30", "--faults",
                           "--only", "testSleepIsEnoughForTheWorker")
    assert code == 1 and out.startswith("sleepy_test.lp F\n")
    assert "FAIL SleepyTest>>testSleepIsEnoughForTheWorker" in out and "expected 200 but got" in out
    # late timers: a sleep punctual to the millisecond without faults is late under some seed
    code, out, _ = lp_test(tmp_path, "sleepy_test.lp", "--seeds", "30", "--faults", "--only", "testSleepIsPunctual")
    assert code == 1 and "FAIL SleepyTest>>testSleepIsPunctual" in out
    # ... yet no timeout or sleep ever ends before its deadline by the clock
    code, out, _ = lp_test(tmp_path, "sleepy_test.lp", "--seeds", "100", "--faults",
                           "--only", "testTimeoutsNeverEndEarly")
    assert code == 0, out


def test_supervision_tree_keeps_its_invariants_under_faults():
    assert bank("examples/testing/supervisor_test.lp", "--faults", "--seeds", "15")[0] == 0


# ---- what a careless or hostile user may give it

def test_files_without_tests_say_so_and_a_run_of_no_test_fails(tmp_path):
    files = {"empty_test.lp": "", "none_test.lp": "Import module: #Test.\nTestCase subclass: #N.\nN >> helper = 1.\n",
             "ok_test.lp": "Import module: #Test.\nTestCase subclass: #T.\nT >> testOk = self assert: true.\n"}
    code, out, err = lp_test(tmp_path, "empty_test.lp", "none_test.lp", files=files)
    assert code == 1
    assert out == ("empty_test.lp: no tests (the file is empty)\n"
                   "none_test.lp: no tests (a test is a unary method named test... of a subclass of TestCase)\n"
                   "0 tests: 0 passed, 0 failed\n")
    assert err == "lp test: no test ran (a test is a unary method named test... of a subclass of TestCase)\n"
    code, out, err = lp_test(tmp_path, "ok_test.lp", "--only", "testNothing")
    assert code == 1 and err == "lp test: no test ran: --only testNothing matched no test\n"
    assert lp_test(tmp_path, ".")[0] == 0   # a folder with one test among them passes


def test_a_test_that_never_ends_fails_at_its_time_limit(tmp_path):
    src = ("Import module: #Test.\nTestCase subclass: #L.\nObject subclass: #S.\n"
           "S class >> spin: n = S spin: n + 1.\nL >> testForever = S spin: 0.\nL >> testOk = self assert: true.\n")
    for mode in ([], ["--real"]):
        code, out, _ = lp_test(tmp_path, "loop_test.lp", "--timeout", "1", *mode, files={"loop_test.lp": src})
        assert code == 1 and out.startswith("loop_test.lp F.\n"), out
        assert "the test did not end within 1 s of real time" in out
        assert "it may never end (give it longer with --timeout SECONDS)" in out
        assert out.endswith("2 tests: 1 passed, 1 failed\n")
    _, out, _ = lp_test(tmp_path, "loop_test.lp", "--timeout", "1")
    assert "of virtual time: it may never end" in out   # deterministic mode says how far it got
    assert "reproduce: lp test loop_test.lp --seed 1 --only 'L>>testForever' --timeout 1" in out
    assert lp_test(tmp_path, "loop_test.lp", "--timeout", "-1")[0] == 2


def test_what_counts_as_a_test_and_only_repeated(tmp_path):
    src = ("Import module: #Test.\nTestCase subclass: #Base.\nBase subclass: #Sub.\n"
           "Sub >> testInherited = self assert: true.\nSub >> test: x = self fail: 'a keyword method is no test'.\n"
           "Sub class >> testClassSide = 1 / 0.\nBase >> testBase = self assert: true.\n")
    files = {"sub_test.lp": src}
    code, out, _ = lp_test(tmp_path, files=files)   # no tests/ folder: the current one is searched
    assert (code, out) == (0, "sub_test.lp ..\n2 tests: 2 passed, 0 failed\n")
    code, out, _ = lp_test(tmp_path, "--only", "Sub>>testInherited", "--only", "testBase")
    assert (code, out) == (0, "sub_test.lp ..\n2 tests: 2 passed, 0 failed\n")


def test_lp_run_takes_the_fault_flags_with_a_seed(tmp_path):
    prog = tmp_path / "p.lp"
    prog.write_text("main := Actor self.\nws := (1 to: 5) collect: [:i | Actor spawn: [:me | main ! i]].\n"
                    "1 to: 5 do: [:j |\n"
                    "    main receive: { Integer -> [:i | i printNl] } after: 100 do: ['lost' displayNl]].\n")
    runs = [run_lp("run", "--seed", "7", "--faults", str(prog), timeout=60) for _ in range(2)]
    assert runs[0].returncode == 0 and runs[0].stdout == runs[1].stdout
    r = run_lp("run", "--faults", str(prog), timeout=60)
    assert r.returncode == 2 and b"--faults, --max-faults and --fault-rate need --seed N" in r.stderr


def test_faults_never_kill_an_actor_that_traps_exits(tmp_path):
    src = ECHO.replace("[:me | Loop serve: me]", "[:me | Actor trapExits: true. Loop serve: me]")
    code, out, _ = lp_test(tmp_path, "echo_test.lp", "--faults", "--seeds", "10", files={"echo_test.lp": src})
    assert code == 0, out


def test_unix_millis_advances_with_the_virtual_clock(tmp_path):
    prog = tmp_path / "u.lp"
    prog.write_text("a := Actor unixMillis.\nActor sleep: 600000.\nb := Actor unixMillis.\n"
                    "(b - a) printNl.\n(a > 1700000000000) printNl.\n")
    r = run_lp("run", "--seed", "4", str(prog), timeout=60)
    lines = r.stdout.decode().split()
    assert 600000 <= int(lines[0]) < 600100 and lines[1] == "true"
