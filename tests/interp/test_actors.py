"""Actor semantics on the interpreter (LANGUAGE.md §3), each run several times on 2 domains."""
from __future__ import annotations

import pytest

from tests.interp.helpers import run_source

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
    me receive printNl.
    """
    assert run_ok(src, tmp_path) == "animal rex\nsymbol\nstring\nseven\n42\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_receive_timeouts(tmp_path, rep):
    src = """
    me := Actor self.
    (me receive: { #a -> [:x | 'a'] } after: 30 do: ['timed out']) displayNl.
    me ! #a.
    (me receive: { #a -> [:x | 'got a'] } after: 0 do: ['timed out']) displayNl.
    me ! #b.
    (me receive: { #a -> [:x | 'got a'] } after: 20 do: ['b is not a']) displayNl.
    me receive printNl.
    """
    assert run_ok(src, tmp_path) == "timed out\ngot a\nb is not a\n#b\n"


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
    (Error try: [p resolve: 8] onError: [:e | e message]) displayNl.
    (Error try: [Promise new future await: 10] onError: [:e | e message]) displayNl.
    """
    assert run_ok(src, tmp_path) == "42\n7\n7\n7\nthis promise is already resolved\nawait: timed out after 10 ms\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_monitors_down_reasons_late_registration_and_demonitor(tmp_path, rep):
    src = """
    me := Actor self.
    a := Actor spawn: [:x | x receive. Error raise: 'bad'].
    me monitor: a. a ! 1.
    me receive: { Down -> [:d | d reason printNl. (d actor = a) printNl] }.
    b := Actor spawn: [:x | nil].
    Actor sleep: 30.
    me monitor: b.
    me receive: { Down -> [:d | d reason printNl] }.
    c := Actor spawn: [:x | x receive].
    me monitor: c. c exit: #killed.
    me receive: { Down -> [:d | d reason printNl] }.
    e := Actor spawn: [:x | x receive].
    me monitor: e. me demonitor: e. e ! 1.
    (me receive: { Down -> [:d | 'unexpected Down'] } after: 50 do: ['no Down after demonitor']) displayNl.
    """
    assert run_ok(src, tmp_path) == "Error(message: 'bad')\ntrue\n#normal\n#killed\nno Down after demonitor\n"


@pytest.mark.parametrize("rep", REPEAT)
def test_link_cascade_unlink_and_late_link(tmp_path, rep):
    src = """
    me := Actor self.
    leaf := Actor spawn: [:x | x receive. Error raise: 'leaf failed'].
    mid := Actor spawn: [:x | x linkTo: leaf. x receive].
    top := Actor spawn: [:x | x receive. x linkTo: mid. me ! #linked. x receive].
    Actor sleep: 20.
    top ! #go.
    me receive: { #linked -> [:s | nil] }.
    me monitor: top. me monitor: mid.
    leaf ! 1.
    me receive: { Down -> [:d | d reason printNl] }.
    me receive: { Down -> [:d | d reason printNl] }.
    loner := Actor spawn: [:x | x receive].
    other := Actor spawn: [:x | x linkTo: loner. x unlinkFrom: loner. me ! #ready. x receive: { #stop -> [:s | 'other survived' displayNl] }].
    me receive: { #ready -> [:s | nil] }.
    me monitor: loner.
    loner exit: #killed.
    me receive: { Down -> [:d | nil] }.
    other ! #stop.
    Actor sleep: 30.
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
    assert out.splitlines()[2:] == ["other survived", "cannot link to Actor<7>: it has already ended (#normal)",
                                    "trapped late link: #normal"]


@pytest.mark.parametrize("rep", REPEAT)
def test_exit_signals(tmp_path, rep):
    src = """
    me := Actor self.
    t := Actor spawn: [:x |
        Actor trapExits: true.
        me ! #ready.
        x receive: { Exit -> [:e | me ! e reason] }.
        x receive: { #never -> [:s | s] }].
    me receive: { #ready -> [:s | nil] }.
    t exit: #normal.
    me receive printNl.
    me monitor: t.
    t exit: #killed.
    me receive: { Down -> [:d | d reason printNl] }.
    n := Actor spawn: [:x | x receive: { #never -> [:s | s] }].
    n exit: #normal.
    Actor sleep: 20.
    n isAlive printNl.
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
    status, out, err = run_source(src, tmp_path, domains=1)
    assert (status, out) == (0, "done\n")
    lines = sorted(err.splitlines())
    assert lines[0] == "lp: actor 2 died (Error: oops) at " + str(tmp_path / "prog.lp") + \
        ":2:42, and no link or monitor observed it"
    assert lines[1] == "lp: actor 3 ended with 1 unmatched message in its mailbox"
    assert run_source(src, tmp_path, quiet=True, domains=1) == (0, "done\n", "")


@pytest.mark.parametrize("domains", [1, 2])
def test_cpu_bound_actors_are_preempted(tmp_path, domains):
    src = """
    Object subclass: #Spin.
    Spin class >> forever: n = Spin forever: n + 1.
    1 to: 4 do: [:i | Actor spawn: [:me | Spin forever: 0]].
    me := Actor self.
    Actor spawn: [:w | me ! 'others run'].
    me receive displayNl.
    (me receive: { #x -> [:x | 'x'] } after: 20 do: ['timer fired']) displayNl.
    """
    assert run_ok(src, tmp_path, domains=domains) == "others run\ntimer fired\n"


def test_receive_on_another_actor_is_an_error(tmp_path):
    src = "other := Actor spawn: [:me | me receive].\nother receive.\n"
    status, out, err = run_source(src, tmp_path)
    assert status == 1 and "only an actor can receive its own messages" in err


def test_no_unmatched_report_for_an_actor_stopped_by_a_signal(tmp_path):
    src = """
    a := Actor spawn: [:me | Actor sleep: 100. me receive: { #x -> [:m | m] }].
    a ! #x.
    Actor self monitor: a.
    a exit: (Error new: 'stop').
    Actor self receive: { Down -> [:d | d reason printNl] }.
    Actor sleep: 10.
    """
    assert run_source(src, tmp_path) == (0, "Error(message: 'stop')\n", "")
