"""Actor semantics on the interpreter (LANGUAGE.md §3), each run several times on 2 domains;
those whose outcome hangs on time passing (a timeout that must pass, a wait for a Down that
must not come) run in deterministic mode under several seeds instead, where virtual time makes
them exact. Tests of the real scheduler itself (preemption, timers near the integer limit, the
deadlock check with timers pending) stay on it."""
from __future__ import annotations

import pytest

from tests.interp.helpers import SEEDS, run_source

REPEAT = [pytest.param(i, id=f"run{i}") for i in range(3)]


def run_ok(src, tmp_path, **kw):
    status, out, err = run_source(src, tmp_path, **kw)
    assert (status, err) == (0, ""), err
    return out


@pytest.mark.parametrize("rep", REPEAT)
def test_selective_receive_classes_subclasses_and_literals(tmp_path, rep):
    src = """
    Object subclass: #Animal fields: (name).
    Animal subclass: #Dog.
    me := Actor self.
    me ! 42. me ! 'text'. me ! #sym. me ! (Dog fields: { name: 'rex' }). me ! 7.
    me receive: { Animal -> [:a | ('animal ' , a name) displayNl] }.
    me receive: { #sym -> [:s | 'symbol' displayNl] }.
    me receive: { 'text' -> [:s | 'string' displayNl] }.
    me receive: { 7 -> [:n | 'seven' displayNl] }.
    me receive: { Integer -> [:n | n printNl] }.
    """
    assert run_ok(src, tmp_path) == "animal rex\nsymbol\nstring\nseven\n42\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_receive_timeouts(tmp_path, seed):
    src = """
    me := Actor self.
    (me receive: { #a -> [:x | 'a'] } after: 30 do: ['timed out']) displayNl.
    me ! #a.
    (me receive: { #a -> [:x | 'got a'] } after: 0 do: ['timed out']) displayNl.
    me ! #b.
    (me receive: { #a -> [:x | 'got a'] } after: 20 do: ['b is not a']) displayNl.
    me receive printNl.
    """
    assert run_ok(src, tmp_path, seed=seed) == "timed out\ngot a\nb is not a\n#b\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_many_senders_each_keep_their_order(tmp_path, rep):
    # Three senders interleave; each one's messages must arrive in the order it sent them.
    src = """
    Object subclass: #Msg fields: (from n).
    Object subclass: #Check.
    Check class >> loop: expected left: k =
        k = 0
            ifTrue: ['ok']
            ifFalse: [
                Actor self receive: {
                    Msg -> [:m | (expected at: m from) = m n
                        ifTrue: [Check loop: (expected at: m from put: m n + 1) left: k - 1]
                        ifFalse: ['out of order']]
                }
            ].
    me := Actor self.
    1 to: 3 do: [:s | Actor spawn: [:w | 1 to: 200 do: [:i | me ! (Msg fields: { from: s. n: i })]]].
    expected := ((Dictionary new at: 1 put: 1) at: 2 put: 1) at: 3 put: 1.
    (Check loop: expected left: 600) displayNl.
    """
    assert run_ok(src, tmp_path) == "ok\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_ask_await_and_promises(tmp_path, rep):
    src = """
    Object subclass: #Double fields: (x reply).
    w := Actor spawn: [:me | me receive: { Double -> [:d | d reply ! (d x * 2)] }].
    (w ask: (Double fields: { x: 21 })) await printNl.
    main := Actor self.
    p := Promise new.
    waiters := 1 to: 3 collect: [:i | Actor spawn: [:me | p future await printNl. main ! #done]].
    p resolve: 7.
    3 timesRepeat: [main receive: { #done -> [:d | nil] }].
    (Error try: [p resolve: 8. 'resolved twice'] onError: [:e | e message]) displayNl.
    (Error try: [Promise new future await: 10] onError: [:e | e message]) displayNl.
    """
    assert run_ok(src, tmp_path) == "42\n7\n7\n7\nthis promise is already resolved\nawait: timed out after 10 ms\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_monitors_down_reasons_late_registration_and_demonitor(tmp_path, seed):
    src = """
    me := Actor self.
    a := Actor spawn: [:x | x receive. Error raise: 'bad'].
    me monitor: a. a ! 1.
    me receive: { Down -> [:d | d reason printNl. (d actor = a) printNl] }.
    b := Actor spawn: [:x | nil].
    Actor spawn: [:x | x monitor: b. x receive: { Down -> [:d | me ! #bDead] }].
    me receive: { #bDead -> [:s | nil] }.
    me monitor: b.
    me receive: { Down -> [:d | d reason printNl] }.
    c := Actor spawn: [:x | x receive].
    me monitor: c. c exit: #killed.
    me receive: { Down -> [:d | d reason printNl] }.
    e := Actor spawn: [:x | x receive].
    me monitor: e. me demonitor: e. e ! 1.
    (me receive: { Down -> [:d | 'unexpected Down'] } after: 50 do: ['no Down after demonitor']) displayNl.
    """
    assert run_ok(src, tmp_path, seed=seed) == \
        "Error(message: 'bad')\ntrue\n#normal\n#killed\nno Down after demonitor\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_link_cascade_unlink_and_late_link(tmp_path, rep):
    src = """
    me := Actor self.
    leaf := Actor spawn: [:x | x receive. Error raise: 'leaf failed'].
    mid := Actor spawn: [:x | x linkTo: leaf. me ! #midLinked. x receive].
    top := Actor spawn: [:x | x receive. x linkTo: mid. me ! #linked. x receive].
    me receive: { #midLinked -> [:s | nil] }.
    top ! #go.
    me receive: { #linked -> [:s | nil] }.
    me monitor: top. me monitor: mid.
    leaf ! 1.
    me receive: { Down -> [:d | d reason printNl] }.
    me receive: { Down -> [:d | d reason printNl] }.
    loner := Actor spawn: [:x | x receive].
    other := Actor spawn: [:x | x linkTo: loner. x unlinkFrom: loner. me ! #ready.
        x receive: { #stop -> [:s | 'other survived' displayNl. me ! #survived] }].
    me receive: { #ready -> [:s | nil] }.
    me monitor: loner.
    loner exit: #killed.
    me receive: { Down -> [:d | nil] }.
    other ! #stop.
    me receive: { #survived -> [:s | nil] }.
    dead := Actor spawn: [:x | nil].
    me monitor: dead.
    me receive: { Down -> [:d | nil] }.
    (Error try: [me linkTo: dead. 'linked'] onError: [:e | e message]) displayNl.
    Actor trapExits: true.
    me linkTo: dead.
    me receive: { Exit -> [:x | ('trapped late link: ' , x reason printString) displayNl] }.
    """
    out = run_ok(src, tmp_path)
    assert out.splitlines()[:2] == ["Error(message: 'leaf failed')"] * 2
    assert out.splitlines()[2:] == ["other survived", "cannot link to Actor<7>: it has already ended (normal)",
                                    "trapped late link: #normal"]


@pytest.mark.parametrize("rep", REPEAT)
def test_exit_signals(tmp_path, rep):
    src = """
    me := Actor self.
    t := Actor spawn: [:x |
        Actor trapExits: true.
        me ! #ready.
        x receive: { Exit -> [:e | me ! e] }.
        x receive: { #never -> [:s | s] }].
    me receive: { #ready -> [:s | nil] }.
    t exit: #normal.
    me receive: { Exit -> [:e | e reason printNl] }.
    me monitor: t.
    t exit: #killed.
    me receive: { Down -> [:d | d reason printNl] }.
    n := Actor spawn: [:x | x receive: { #ping -> [:s | me ! #pong] }. x receive: { #never -> [:s | s] }].
    n exit: #normal.
    n ! #ping.
    me receive: { #pong -> [:s | n isAlive printNl] }.
    q := Actor spawn: [:x | Actor exit: #normal].
    me monitor: q.
    me receive: { Down -> [:d | d reason printNl] }.
    r := Actor spawn: [:x | Actor exit: (Error new: 'chose to stop')].
    me monitor: r.
    me receive: { Down -> [:d | d reason printNl] }.
    """
    assert run_ok(src, tmp_path) == "#normal\n#killed\ntrue\n#normal\nError(message: 'chose to stop')\n"


def test_unobserved_death_and_unmatched_reports_and_quiet(tmp_path):
    src = """
    w := Actor spawn: [:me | me receive. Error raise: 'oops'].
    w ! 1.
    v := Actor spawn: [:me | me receive: { #a -> [:x | x] }].
    v ! #b. v ! #a.
    [w isAlive | v isAlive] whileTrue: [Actor sleep: 5].
    'done' displayNl.
    """
    # the checker refuses the #b no receive takes; unchecked, the run time reports it
    status, out, err = run_source(src, tmp_path, domains=1, check=False)
    assert (status, out) == (0, "done\n")
    lines = sorted(err.splitlines())
    assert lines[0] == "lp: actor 2 died (Error: oops) at " + str(tmp_path / "prog.lp") + \
        ":2:42, and no link or monitor observed it"
    assert lines[1] == "lp: actor 3 ended with 1 unmatched message in its mailbox"
    assert run_source(src, tmp_path, quiet=True, domains=1, check=False) == (0, "done\n", "")


@pytest.mark.parametrize("domains, seed", [(1, None), (2, None), (1, 1), (1, 2)])
def test_cpu_bound_actors_are_preempted(tmp_path, domains, seed):
    # the real scheduler's preemption and timers, and the deterministic mode's (virtual time
    # still passes while actors spin: a turn takes 1 us)
    src = """
    Object subclass: #Spin.
    Spin class >> forever: n = Spin forever: n + 1.
    1 to: 4 do: [:i | Actor spawn: [:me | Spin forever: 0]].
    me := Actor self.
    Actor spawn: [:w | me ! 'others run'].
    me receive displayNl.
    (me receive: { #x -> [:x | 'x'] } after: 20 do: ['timer fired']) displayNl.
    """
    assert run_ok(src, tmp_path, domains=domains, seed=seed) == "others run\ntimer fired\n"


def test_receive_on_another_actor_is_an_error(tmp_path):
    src = "other := Actor spawn: [:me | me receive].\nother receive.\n"
    status, out, err = run_source(src, tmp_path)
    assert status == 1 and "-- RECEIVE ON ANOTHER ACTOR --" in err
    status, out, err = run_source(src, tmp_path, check=False)
    assert status == 1 and "only an actor can receive its own messages" in err


def test_no_unmatched_report_for_an_actor_stopped_by_a_signal(tmp_path):
    src = """
    a := Actor spawn: [:me | me receive: { #never -> [:m | m] }].
    a ! #x.
    Actor self monitor: a.
    a exit: (Error new: 'stop').
    Actor self receive: { Down -> [:d | d reason printNl] }.
    """
    # the checker refuses the #x no receive takes; unchecked, the signal must still silence its report
    assert run_source(src, tmp_path, check=False) == (0, "Error(message: 'stop')\n", "")


# ---- ask: monitors the actor asked while its future is awaited (Erlang's gen_server:call)

DOMAINS_X_REPEAT = [pytest.param(d, i, id=f"{d}dom-run{i}") for d in (1, 2) for i in range(3)]

ASK_PRELUDE = """
Object subclass: #Q fields: (reply).
me := Actor self.
"""


def asked(src):
    return ASK_PRELUDE + src


@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_await_raises_when_the_actor_asked_dies_before_replying(tmp_path, domains, rep):
    src = asked("""
    w := Actor spawn: [:x | x receive: { Q -> [:q | Actor exit: (Error new: 'boom')] }].
    (Error try: [(w ask: (Q new)) await printString] onError: [:e | e message]) displayNl.
    n := Actor spawn: [:x | x receive: { Q -> [:q | nil] }].
    (Error try: [(n ask: (Q new)) await printString] onError: [:e | e message]) displayNl.
    k := Actor spawn: [:x | x receive].
    f := k ask: (Q new).
    k exit: #killed.
    (Error try: [(f await: 100000) printString] onError: [:e | e message]) displayNl.
    """)
    assert run_ok(src, tmp_path, domains=domains) == (
        "the actor asked (Actor<2>) died before replying: Error: boom\n"
        "the actor asked (Actor<3>) died before replying: normal\n"
        "the actor asked (Actor<4>) died before replying: killed\n")


@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_ask_to_a_dead_actor_raises_at_await(tmp_path, domains, rep):
    src = asked("""
    d := Actor spawn: [:x | x receive: { Q -> [:q | nil] } after: 0 do: [nil]].
    me monitor: d.
    me receive: { Down -> [:x | nil] }.
    (Error try: [(d ask: (Q new)) await printString] onError: [:e | e message]) displayNl.
    other := Actor spawn: [:x | x receive: { Actor -> [:a |
        (Error try: [(a ask: (Q new)) await printString] onError: [:e | e message]) displayNl.
        me ! #done] }].
    other ! d.
    me receive: { #done -> [:x | nil] }.
    """)
    assert run_ok(src, tmp_path, domains=domains) == (
        "the actor asked (Actor<2>) died before replying: normal\n" * 2)


@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_a_reply_wins_and_no_down_leaks_after_it(tmp_path, domains, rep):
    # v holds the reply until told: `await: 0` times out with the monitor in place (then removed);
    # the second await may see the reply before or after v's death: the answer is the same, and
    # the ask's Down never reaches a receive.
    src = asked("""
    v := Actor spawn: [:x | x receive: { Q -> [:q | x receive: { #reply -> [:r | q reply ! 5] }] }].
    f := v ask: (Q new).
    (Error try: [(f await: 0) printString] onError: [:e | e message]) displayNl.
    me monitor: v.
    v ! #reply.
    f await printNl.
    me receive: { Down -> [:d | 'down' displayNl] }.
    (me receive: { Down -> [:d | 'a Down leaked'] } after: 0 do: ['no leak']) displayNl.
    me ! #next.
    (me receive: { Symbol -> [:s | s] }) printNl.
    """)
    assert run_ok(src, tmp_path, domains=domains) == "await: timed out after 0 ms\n5\ndown\nno leak\n#next\n"


@pytest.mark.parametrize("domains", [1, 2])
def test_many_asks_to_actors_that_reply_then_end(tmp_path, domains):
    src = asked("""
    answers := 1 to: 300 collect: [:i |
        (Actor spawn: [:x | x receive: { Q -> [:q | q reply ! i] }]) ask: (Q new)].
    (answers inject: 0 into: [:sum :f | sum + f await]) printNl.
    (me receive: { Down -> [:d | 'a Down leaked'] } after: 0 do: ['no leak']) displayNl.
    """)
    assert run_ok(src, tmp_path, domains=domains) == f"{sum(range(1, 301))}\nno leak\n"


# ---- exit signals to oneself end the actor at once (unless trapped)

@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_an_exit_signal_to_oneself_takes_effect_before_the_next_instruction(tmp_path, domains, rep):
    src = """
    me := Actor self.
    a := Actor spawn: [:x | x receive: { #go -> [:g | g] }. x exit: #killed. me ! #after].
    b := Actor spawn: [:x | x receive: { #go -> [:g | g] }. x exit: (Error new: 'stop'). me ! #after].
    c := Actor spawn: [:x | x receive: { #go -> [:g | g] }. Actor self exit: #normal. me ! #after].
    t := Actor spawn: [:x | x receive: { #go -> [:g | g] }. Actor trapExits: true. x exit: (Error new: 'trapped').
        x receive: { Exit -> [:e | me ! e] }.
        x exit: #killed. me ! #after].
    { a. b. c. t } do: [:w | me monitor: w. w ! #go].
    5 timesRepeat: [me receive: { Down -> [:d | d reason printNl] . Exit -> [:e | ('trapped ', e reason printString) displayNl] }].
    (me receive: { #after -> [:s | 'kept running'] } after: 0 do: ['stopped at once']) displayNl.
    """
    out = run_ok(src, tmp_path, domains=domains).splitlines()
    assert sorted(out[:5]) == sorted(["#killed", "Error(message: 'stop')", "#normal", "trapped Error(message: 'trapped')",
                                      "#killed"])
    assert out[5:] == ["stopped at once"]


def test_main_sending_itself_killed_ends_at_once(tmp_path):
    status, out, err = run_source("me := Actor self.\nme exit: #killed.\n'still running' displayNl.\n",
                                  tmp_path)
    assert (status, out) == (1, "")
    assert err == f"lp: the main actor ended abnormally (killed) at {tmp_path / 'prog.lp'}:2:1\n"


# ---- timeouts: saturating, negative means 0

@pytest.mark.parametrize("domains", [1, 2])
def test_timeouts_near_the_integer_limit_never_expire(tmp_path, domains):
    src = """
    me := Actor self.
    Actor spawn: [:x | Actor sleep: 30. me ! #a].
    (me receive: { #a -> [:s | 'got a'] } after: 9300000000000 do: ['timed out']) displayNl.
    Actor spawn: [:x | Actor sleep: 30. me ! #a].
    (me receive: { #a -> [:s | 'got a'] } after: 1.0e300 do: ['timed out']) displayNl.
    p := Promise new.
    Actor spawn: [:x | Actor sleep: 30. p resolve: 'resolved'].
    (p future await: 9300000000000) displayNl.
    s := Actor spawn: [:x | Actor sleep: 9300000000000. me ! #woke].
    (me receive: { #woke -> [:w | 'sleep ended early'] } after: 50 do: ['still asleep']) displayNl.
    """
    # the checker refuses a Float timeout; `lp run --no-check` must still saturate one
    assert run_ok(src, tmp_path, domains=domains, check=False) == "got a\ngot a\nresolved\nstill asleep\n"


def test_negative_timeouts_count_as_zero(tmp_path):
    src = """
    me := Actor self.
    (me receive: { #a -> [:s | 'got a'] } after: -5 do: ['timed out']) displayNl.
    me ! #a.
    (me receive: { #a -> [:s | 'got a'] } after: -5 do: ['timed out']) displayNl.
    Actor sleep: -10.
    (Error try: [Promise new future await: -1] onError: [:e | e message]) displayNl.
    """
    assert run_ok(src, tmp_path) == "timed out\ngot a\nawait: timed out after 0 ms\n"


# ---- exit reasons in reports: bounded, located

def test_a_deeply_nested_exit_reason_is_reported_in_a_few_hundred_characters(tmp_path):
    src = """
    Object subclass: #Box fields: (inner).
    Object subclass: #Build.
    Build class >> depth: n from: d = n = 0 ifTrue: [d] ifFalse: [Build depth: n - 1 from: (Box fields: { inner: d })].
    d := Build depth: 60000 from: 0.
    x := Actor spawn: [:me | me receive. Actor exit: (Error new: 'deep')].
    Actor exit: d.
    """
    f = tmp_path / "prog.lp"
    # the checker refuses a Box as an exit reason; unchecked, its report must still be bounded
    status, out, err = run_source(src, tmp_path, domains=1, check=False)
    assert status == 1 and len(err) < 600, err[:2000]
    assert err.startswith("lp: the main actor ended abnormally (Box(inner: Box(inner: ")
    assert err.endswith(f"...) at {f}:7:5\n")


def test_actor_exit_in_main_reports_its_own_location(tmp_path):
    src = "x := 1.\n'a' displayNl.\nActor exit: (Error new: 'bye').\n"
    status, out, err = run_source(src, tmp_path)
    assert (status, out) == (1, "a\n")
    assert err == f"lp: the main actor ended abnormally (Error: bye) at {tmp_path / 'prog.lp'}:3:1\n"


# ---- spawnLink:

@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_spawn_link(tmp_path, domains, rep):
    src = """
    me := Actor self.
    Actor trapExits: true.
    c := Actor spawnLink: [:x | x receive. Error raise: 'child failed'].
    c ! #go.
    me receive: { Exit -> [:e | (e actor = c) printNl. e reason printNl] }.
    Actor trapExits: false.
    parent := Actor spawn: [:x |
        Actor spawnLink: [:y | me ! y. y receive. Error raise: 'grandchild failed'].
        x receive: { #never -> [:s | s] }].
    me monitor: parent.
    me receive: { Actor -> [:g | g ! #go] }.
    me receive: { Down -> [:d | d reason printNl] }.
    """
    assert run_ok(src, tmp_path, domains=domains) == (
        "true\nError(message: 'child failed')\nError(message: 'grandchild failed')\n")


# ---- deadlock detection

@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_every_actor_waiting_for_good_is_a_deadlock(tmp_path, domains, rep):
    src = """
    Object subclass: #Ping.
    me := Actor self.
    w := Actor spawn: [:x | me ! #started. x receive: { Ping -> [:p | p] . #go -> [:g | g] }].
    me receive: { #started -> [:s | nil] }.
    me receive: { #done -> [:d | nil] }.
    'not reached' displayNl.
    """
    status, out, err = run_source(src, tmp_path, domains=domains)
    f = tmp_path / "prog.lp"
    assert (status, out) == (1, "")
    assert err == ("lp: deadlock: every actor is waiting and nothing can wake any of them\n"
                   f"  actor 1 (main) waits in receive: for #done at {f}:6:5\n"
                   f"  actor 2 waits in receive: for Ping or #go at {f}:4:44\n")


@pytest.mark.parametrize("sel", ["linkTo:", "unlinkFrom:", "monitor:", "demonitor:"])
def test_an_unchecked_failure_selector_given_a_non_actor_is_an_lp_error(tmp_path, sel):
    status, out, err = run_source(f"Actor self {sel} 3.\n", tmp_path, check=False)
    assert status == 1
    assert f"Error: #{sel} expects an actor, not the Integer 3" in err and "AttributeError" not in err, err


def test_a_deadlock_report_names_a_plain_receive_as_written(tmp_path):
    status, out, err = run_source("x := Actor self receive.\n", tmp_path)
    assert status == 1
    assert "actor 1 (main) waits in receive for any message at " in err, err


@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_awaiting_an_actor_that_waits_for_the_asker_is_a_deadlock(tmp_path, domains, rep):
    src = asked("""
    w := Actor spawn: [:x | x receive: { Q -> [:q | x receive: { #never -> [:n | q reply ! 1] }] }].
    p := Promise new.
    Actor spawn: [:x | p future await].
    (w ask: (Q new)) await printNl.
    """)
    status, out, err = run_source(src, tmp_path, domains=domains)
    f = tmp_path / "prog.lp"
    assert (status, out) == (1, "")
    assert err == ("lp: deadlock: every actor is waiting and nothing can wake any of them\n"
                   f"  actor 1 (main) waits in await for a reply from Actor<2> at {f}:8:6\n"
                   f"  actor 2 waits in receive: for #never at {f}:5:53\n"
                   f"  actor 3 waits in await for a future no one has resolved at {f}:7:24\n")


@pytest.mark.parametrize("domains", [1, 2])
def test_actors_left_waiting_when_main_ends_are_not_a_deadlock(tmp_path, domains):
    src = """
    me := Actor self.
    1 to: 5 do: [:i | Actor spawn: [:x | me ! #up. x receive: { #never -> [:n | n] }]].
    5 timesRepeat: [me receive: { #up -> [:u | nil] }].
    'main ends' displayNl.
    """
    assert run_ok(src, tmp_path, domains=domains) == "main ends\n"


def _random_program(rng):
    """A program whose actors wait on timers, sleeps, late messages and late futures, and all end."""
    n = rng.randint(2, 6)
    lines = ["me := Actor self.", "promises := 1 to: %d collect: [:i | Promise new]." % n]
    for i in range(1, n + 1):
        ops = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["sleep", "timeout", "await", "late"])
            ms = rng.randint(0, 4)
            if kind == "sleep":
                ops.append(f"Actor sleep: {ms}.")
            elif kind == "timeout":
                ops.append(f"x receive: {{ #tick -> [:t | t] }} after: {ms} do: [nil].")
            elif kind == "await":
                j = rng.randint(1, n)
                ops.append(f"(promises at: {j}) future await.")
            else:
                ops.append(f"Actor spawn: [:y | Actor sleep: {ms}. x ! #late]. x receive: {{ #late -> [:l | l] }}.")
        body = " ".join(ops)
        lines.append(f"Actor spawn: [:x | {body} me ! #done].")
    for i in range(1, n + 1):
        lines.append(f"Actor spawn: [:x | Actor sleep: {rng.randint(0, 6)}. (promises at: {i}) resolve: {i}].")
    lines.append(f"{n} timesRepeat: [me receive: {{ #done -> [:d | nil] }}].")
    lines.append("'ok' displayNl.")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("domains", [1, 2])
def test_waits_that_something_will_end_are_never_reported_as_a_deadlock(tmp_path, domains):
    import random
    rng = random.Random(9000 + domains)
    for _ in range(25):
        src = _random_program(rng)
        status, out, err = run_source(src, tmp_path, domains=domains)
        assert (status, out, err) == (0, "ok\n", ""), src


# ---- selective receive over many waiting messages is not quadratic

def _count_examined(monkeypatch):
    from lp.runtime import binding
    seen = [0]
    select = binding.Actor.select

    def counting(self, accept, cursor=0):
        def counted(payload):
            seen[0] += 1
            return accept(payload)
        return select(self, counted, cursor)

    monkeypatch.setattr(binding.Actor, "select", counting)
    return seen


@pytest.mark.parametrize("domains", [1, 2])
def test_receives_and_awaits_skip_the_messages_they_passed_over(tmp_path, monkeypatch, domains):
    seen = _count_examined(monkeypatch)
    src = """
    Object subclass: #Noise fields: (n).
    Object subclass: #Q fields: (reply).
    Object subclass: #Serve.
    Serve class >> loop: x = x receive: {
        Q -> [:q | q reply ! 1. Serve loop: x] .
        Actor -> [:a | a ! #pong. Serve loop: x] }.
    me := Actor self.
    1 to: 3000 do: [:i | me ! (Noise fields: { n: i })].
    w := Actor spawn: [:x | Serve loop: x].
    1 to: 200 do: [:i | (w ask: (Q new)) await].
    1 to: 200 do: [:i | w ! me. me receive: { #pong -> [:p | p] }].
    (me receive: { Noise -> [:x | x n] }) printNl.
    """
    assert run_ok(src, tmp_path, domains=domains) == "1\n"
    assert seen[0] < 3 * 3000, seen[0]    # quadratic: 200 x 3,000 and more


@pytest.mark.parametrize("domains, seed", [(1, None), (1, 1), (1, 2)])
def test_a_receive_resuming_after_the_message_it_took_finds_its_place_at_once(tmp_path, monkeypatch,
                                                                             domains, seed):
    """bench/lp/counting.lp: a counter whose mailbox grows long (deterministic mode's schedule lets
    the sender run many turns in a row) takes the oldest message each time. Its receive resumes
    right after the message it took last; finding that place must not walk the mailbox from its
    newest end (stats' seek_steps), or every receive costs the mailbox's length."""
    from lp.runtime import binding
    longest, stats = [0], {}
    select, run = binding.Actor.select, binding.Runtime.run

    def measuring(self, accept, cursor=0):
        longest[0] = max(longest[0], self.mailbox_len)
        return select(self, accept, cursor)

    def recording(self, main):
        try:
            return run(self, main)
        finally:
            stats.update(self.stats())

    monkeypatch.setattr(binding.Actor, "select", measuring)
    monkeypatch.setattr(binding.Runtime, "run", recording)
    src = """
    Object subclass: #Inc.
    Object subclass: #Get fields: (reply).
    Object subclass: #Counter.
    Counter class >> run: me count: n = me receive: {
        Inc -> [:m | Counter run: me count: n + 1].
        Get -> [:m | m reply ! n] }.
    counter := Actor spawn: [:me | Counter run: me count: 0].
    1 to: 20000 do: [:i | counter ! Inc new].
    (counter ask: (Get fields: {})) await printNl.
    """
    assert run_ok(src, tmp_path, domains=domains, seed=seed) == "20000\n"
    assert longest[0] > 500, longest[0]
    assert stats["seek_steps"] < 1000, stats


@pytest.mark.parametrize("domains", [1, 2])
def test_skipping_passed_over_messages_keeps_receive_semantics(tmp_path, domains):
    src = """
    Object subclass: #Take.
    Take class >> from: me key: k = me receive: { k -> [:x | x] } after: 0 do: [#none].
    me := Actor self.
    #(#a #b #c #a #b #c) do: [:s | me ! s].
    (Take from: me key: #c) printNl.
    (Take from: me key: #b) printNl.
    (Take from: me key: #c) printNl.
    (Take from: me key: #c) printNl.
    (Take from: me key: #a) printNl.
    me ! #c.
    (Take from: me key: #c) printNl.
    (me receive: { #b -> [:x | 'b'] . #a -> [:x | 'a'] }) displayNl.
    (me receive: { #b -> [:x | 'b'] . #a -> [:x | 'a'] }) displayNl.
    (me receive: { #b -> [:x | 'b'] . #a -> [:x | 'a'] } after: 0 do: ['empty']) displayNl.
    """
    # one receive site run with different (computed) keys must not reuse another key's skip position
    assert run_ok(src, tmp_path, domains=domains) == "#c\n#b\n#c\n#none\n#a\n#c\na\nb\nempty\n"


@pytest.mark.parametrize("domains,rep", DOMAINS_X_REPEAT)
def test_an_asks_late_down_is_not_reported_as_unmatched_mail(tmp_path, domains, rep):
    src = asked("""
    v := Actor spawn: [:x | x receive: { Q -> [:q | x receive: { #reply -> [:r | q reply ! 5] }] }].
    w := Actor spawn: [:x |
        f := v ask: (Q new).
        me ! #asked.
        f await.
        [v isAlive] whileTrue: [Actor sleep: 1].
        me ! #done].
    me receive: { #asked -> [:a | v ! #reply] }.
    me receive: { #done -> [:d | 'done' displayNl] }.
    """)
    assert run_source(src, tmp_path, domains=domains) == (0, "done\n", "")


@pytest.mark.parametrize("domains", [1, 2])
def test_a_reply_address_answers_actor_messages_for_the_asker(tmp_path, domains):
    # typed as an actor, a reply field must understand what actors understand
    src = asked("""
    a := Actor spawn: [:x | x receive: { Q -> [:q |
        q reply printNl.
        q reply isAlive printNl.
        (q reply id = me id) printNl.
        Actor self monitor: q reply.
        q reply ! 5] }].
    (a ask: Q new) await printNl.
    b := Actor spawn: [:x | x receive: { Q -> [:q | q reply exit: (Error new: 'no')] }].
    (b ask: Q new) await: 1000.
    'not reached' displayNl.
    """)
    status, out, err = run_source(src, tmp_path, domains=domains)
    assert (status, out) == (1, "a reply address\ntrue\ntrue\n5\n"), err
    assert "the main actor ended abnormally (Error: no)" in err
