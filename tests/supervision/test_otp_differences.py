"""Issue 22: where LP follows OTP's supervisor and where it differs on purpose.

- `Supervisor start:` links the supervisor to its starter (OTP's start_link): the
  starter's end, even normal, stops the tree in reverse start order and ends the
  supervisor with the same reason; the supervisor's abnormal end reaches the
  starter. `Supervisor startUnlinked:` starts one with no parent.
- `startChild:` of an id whose child runs raises `#alreadyStarted` carrying the
  running actor; of a stopped one, `#alreadyPresent`.
- A child supervisor that spends its budget ends abnormally (a SupervisorError),
  so its parent restarts it even when it is transient (OTP: it ends `shutdown`
  and a transient one stays down).

Every program runs on 1 and on 2 domains.
"""
from __future__ import annotations

import pytest

from tests.conftest import run_lp
from tests.interp.helpers import SEEDS
from tests.supervision.helpers import lines, run_ok, run_raw

DOMAINS = [pytest.param(1, id="1dom"), pytest.param(2, id="2dom")]

# A starter actor: starts a supervisor over a and b, hands it to main, then waits
# for an order: #end (end normally), #crash (raise), #wait (receive forever).
STARTER = """
Object subclass: #Starter.

Starter class >> start: spec linked: linked into: p = Actor spawn: [:me |
    sup := linked ifTrue: [Supervisor start: spec] ifFalse: [Supervisor startUnlinked: spec].
    p resolve: sup.
    me receive: {
        #end -> [:m | nil].
        #crash -> [:m | Error raise: 'starter crashed'] }].

spec := (SupervisorSpec name: #s strategy: #oneForOne children: {
    ChildSpec id: #a start: [Worker start: 'a'].
    ChildSpec id: #b start: [Worker start: 'b'] }) onEvent: ev.
"""


@pytest.mark.parametrize("domains", DOMAINS)
def test_the_starters_normal_end_stops_the_tree_in_reverse_order(tmp_path, domains):
    out = run_ok(STARTER + """
    p := Promise new.
    starter := Starter start: spec linked: true into: p.
    sup := p future await.
    a := sup at: #a.
    b := sup at: #b.
    { sup actor. a. b } do: [:x | Actor self monitor: x].
    starter ! #end.
    reasons := T reasonsOf: { a. b. sup actor }.
    (reasons collect: [:r | T describe: r]) printNl.
    (SupervisorError try: [sup children. #answered] onError: [:e | e kind]) printNl.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        [s] started #a
        [s] started #b
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
        #('shutdown' 'shutdown' '#normal')
        #notRunning
        """)


@pytest.mark.parametrize("domains", DOMAINS)
def test_the_starters_crash_ends_the_supervisor_with_the_same_reason(tmp_path, domains):
    out = run_ok(STARTER + """
    p := Promise new.
    starter := Starter start: spec linked: true into: p.
    sup := p future await.
    Actor self monitor: sup actor.
    starter ! #crash.
    (T describe: (T reasonOf: sup actor)) displayNl.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        [s] started #a
        [s] started #b
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
        starter crashed
        """)


@pytest.mark.parametrize("domains", DOMAINS)
def test_the_starter_killed_ends_the_supervisor_killed(tmp_path, domains):
    out = run_ok(STARTER + """
    p := Promise new.
    starter := Starter start: spec linked: true into: p.
    sup := p future await.
    Actor self monitor: sup actor.
    starter exit: #killed.
    (T reasonOf: sup actor) printNl.
    """, tmp_path, domains)
    assert out.splitlines()[-3:] == ["[s] stopped #b (shutdown)", "[s] stopped #a (shutdown)", "#killed"]


@pytest.mark.parametrize("domains", DOMAINS)
def test_a_supervisor_that_gives_up_takes_its_starter_with_it(tmp_path, domains):
    # the link works both ways: a starter that does not trap exits ends with the
    # supervisor's SupervisorError; one that traps gets it as an Exit
    out = run_ok("""
    zero := (SupervisorSpec name: #z strategy: #oneForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'] }) maxRestarts: 0 within: 5000.
    plain := Actor spawn: [:me |
        sup := Supervisor start: zero.
        (sup at: #a) ! Crash new.
        me receive: { #never -> [:m | nil] }].
    Actor self monitor: plain.
    (T describe: (T reasonOf: plain)) displayNl.
    p := Promise new.
    trapping := Actor spawn: [:me |
        Actor trapExits: true.
        sup := Supervisor start: zero.
        (sup at: #a) ! Crash new.
        p resolve: (me receive: { Exit -> [:e | (e actor = sup actor) -> (T describe: e reason)] })].
    p future await printNl.
    """, tmp_path, domains)
    limit = "supervisor #z: restart limit reached (more than 0 restarts in 5000 ms); " \
            "last failure: child #a exited (Error: a crashed)"
    assert out.splitlines() == [limit, f"true -> '{limit}'"]


@pytest.mark.parametrize("domains", DOMAINS)
def test_main_is_a_starter_too(tmp_path, domains):
    # main does not trap exits: the supervisor's give-up ends it, reported as such
    status, out, err = run_raw("""
    sup := Supervisor start: ((SupervisorSpec name: #z strategy: #oneForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'] }) maxRestarts: 0 within: 5000).
    (sup at: #a) ! Crash new.
    Actor self receive: { #never -> [:m | nil] }.
    'not reached' displayNl.
    """, tmp_path, domains)
    assert status == 1 and out == ""
    assert err.startswith("lp: the main actor ended abnormally (SupervisorError: supervisor #z: "
                          "restart limit reached (more than 0 restarts in 5000 ms)")


@pytest.mark.parametrize("domains", DOMAINS)
@pytest.mark.parametrize("rep", range(3))
def test_when_main_ends_its_supervisors_write_nothing_more(tmp_path, domains, rep):
    # main's end reaches its supervisors through the link, but the program is over:
    # the output is what main saw, whatever the scheduling
    out = run_ok("""
    sup := Supervisor start: ((SupervisorSpec
        name: #s
        strategy: #oneForOne
        children: ((1 to: 20) collect: [:i | ChildSpec id: ('w' , i printString) asSymbol start: [Worker start: 'w']]))
        onEvent: [:e | e kind = #started ifFalse: [e displayNl]]).
    'main ends' displayNl.
    """, tmp_path, domains)
    assert out == "main ends\n"


@pytest.mark.parametrize("domains", DOMAINS)
def test_an_unlinked_supervisor_outlives_its_starter_and_ignores_its_signals(tmp_path, domains):
    out = run_ok(STARTER + """
    p := Promise new.
    starter := Starter start: spec linked: false into: p.
    sup := p future await.
    Actor self monitor: starter.
    starter ! #crash.
    T waitFor: starter.
    (sup children collect: [:c | c id -> c isRunning]) printNl.
    "no parent: an exit signal from the actor that started it is ignored like anyone's"
    q := Promise new.
    other := Starter start: spec linked: false into: q.
    sup2 := q future await.
    Actor self monitor: other.
    other exit: (Error new: 'go away').
    T waitFor: other.
    (sup2 children collect: [:c | c isRunning]) printNl.
    sup stop.
    sup2 stop.
    sup actor isAlive printNl.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        [s] started #a
        [s] started #b
        #(#a -> true #b -> true)
        [s] started #a
        [s] started #b
        #(true true)
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
        false
        """)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_failed_start_raises_in_the_starter_and_sends_it_no_exit(tmp_path, seed):
    # deterministic mode: 200 ms is more than any late Exit could take, exactly
    # the supervisor unlinks before it ends: the starter gets the error from start:,
    # and even a trapping starter finds no Exit in its mailbox
    out = run_ok("""
    Actor trapExits: true.
    r := SupervisorError try: [
        Supervisor start: ((SupervisorSpec name: #f strategy: #oneForOne children: {
            ChildSpec id: #a start: [Worker start: 'a'].
            ChildSpec id: #b start: [Error raise: 'b cannot start'] }) onEvent: ev).
        'started'] onError: [:e | e kind printString , ' ' , e message].
    r displayNl.
    (Actor self receive: { Exit -> [:e | 'an Exit'] } after: 200 do: ['no Exit']) displayNl.
    """, tmp_path, seed=seed)
    assert out.splitlines() == lines("""
        [f] started #a
        [f] startFailed #b (b cannot start)
        [f] stopped #a (shutdown)
        #startFailed supervisor #f: child #b failed to start: b cannot start
        no Exit
        """)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_starter_that_dies_while_children_start_leaves_no_orphans(tmp_path, seed):
    # deterministic mode: the 50 ms sleep surely lets the first child start and the second wait
    # the supervisor links before starting its children: when the starter dies during
    # the start, the Exit waits, and once started the supervisor stops them all
    out = run_ok("""
    Object subclass: #Slow.
    Object subclass: #Pass fields: (reply).
    Slow class >> start: name gate: gate = (
        (gate ask: Pass new) await.
        Worker start: name).
    gate := Actor spawn: [:me | me receive: { Pass -> [:m | me receive: { #open -> [:o | m reply ! #go] }] }].
    started := Promise new.
    watched := Promise new.
    starter := Actor spawn: [:me |
        Supervisor start: ((SupervisorSpec name: #s strategy: #oneForOne children: {
            ChildSpec id: #a start: [Worker start: 'a'].
            ChildSpec id: #slow start: [Slow start: 'slow' gate: gate].
            ChildSpec id: #c start: [Worker start: 'c'] }) onEvent: [:e |
                e displayNl.
                (e kind = #started and: [e child = #c]) ifTrue: [
                started resolve: Actor self.
                watched future await]]).
        me receive: { #never -> [:m | nil] }].
    Actor self monitor: starter.
    "the first child runs; the supervisor waits on the gate for the second"
    Actor sleep: 50.
    starter exit: #killed.
    T waitFor: starter.
    gate ! #open.
    "the event block runs in the supervisor: it answered the supervisor's actor"
    sup := started future await.
    Actor self monitor: sup.
    watched resolve: true.
    (T reasonOf: sup) printNl.
    """, tmp_path, seed=seed)
    assert out.splitlines() == lines("""
        [s] started #a
        [s] started #slow
        [s] started #c
        [s] stopped #c (shutdown)
        [s] stopped #slow (shutdown)
        [s] stopped #a (shutdown)
        #killed
        """)


@pytest.mark.parametrize("domains", DOMAINS)
def test_already_started_carries_the_running_actor_and_already_present_a_stopped_one(tmp_path, domains):
    out = run_ok("""
    sup := Supervisor start: (SupervisorSpec name: #s strategy: #oneForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'] }).
    again := ChildSpec id: #a start: [Worker start: 'a2'].
    "OTP's {error, {already_started, Pid}}: use the running one"
    a := SupervisorError try: [sup startChild: again] onError: [:e |
        e kind printNl.
        (e message includesSubstring: 'child #a is already started') printNl.
        e kind = #alreadyStarted ifTrue: [e actor value] ifFalse: [e signal]].
    (a = (sup at: #a)) printNl.
    (a ask: Ping new) await printNl.
    sup terminateChild: #a.
    SupervisorError try: [sup startChild: again] onError: [:e |
        e kind printNl.
        e message displayNl.
        e actor isNone printNl].
    "restartChild: is the way to start a stopped one again"
    ((sup restartChild: #a) ask: Ping new) await printNl.
    sup stop.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        #alreadyStarted
        true
        true
        'a'
        #alreadyPresent
        supervisor #s: there is already a child #a (stopped)
        true
        'a'
        """)


ALREADY_STARTED_PROGRAM = """
Import module: #Supervision.
Object subclass: #Get fields: (reply).
Object subclass: #Store.
Store class >> start = Actor spawn: [:me | Store serve: me n: 0].
Store class >> serve: me n: n = me receive: {
    Get -> [:m | m reply ! n. Store serve: me n: n + 1].
    #stop -> [:m | nil] }.

sup := Supervisor start: (SupervisorSpec name: #app strategy: #oneForOne children: {}).
spec := ChildSpec id: #store start: [Store start].
"start it, or use the one already running"
ensure := [SupervisorError try: [sup startChild: spec] onError: [:e |
    e kind = #alreadyStarted ifTrue: [e actor valueOr: (sup at: #store)] ifFalse: [e signal]]].
first := ensure value.
(first ask: Get new) await printNl.
second := ensure value.
(second = first) printNl.
(second ask: Get new) await printNl.
sup stop.
"""


@pytest.mark.parametrize("domains", DOMAINS)
def test_already_started_checks_and_runs_under_lp(tmp_path, domains):
    f = tmp_path / "ensure.lp"
    f.write_text(ALREADY_STARTED_PROGRAM)
    r = run_lp("check", str(f))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    r = run_lp("run", "--domains", str(domains), str(f))
    assert (r.returncode, r.stderr.decode(), r.stdout.decode()) == (0, "", "0\ntrue\n1\n")


def test_the_actor_of_already_started_is_typed_as_a_child(tmp_path):
    # the actor carried by the error has the children's protocol: a message no child
    # accepts is refused when sent to it
    f = tmp_path / "bad.lp"
    f.write_text(ALREADY_STARTED_PROGRAM + "second ! 42.\n")
    r = run_lp("check", str(f))
    assert r.returncode == 1 and "42" in r.stderr.decode()


@pytest.mark.parametrize("domains", DOMAINS)
@pytest.mark.parametrize("restart", ["transient", "permanent"])
def test_a_spent_child_supervisor_is_restarted_even_when_transient(tmp_path, domains, restart):
    # LP's escalation: a supervisor over budget ends with a SupervisorError, an
    # abnormal end, so a transient child supervisor is restarted like a permanent one
    # (in OTP it ends `shutdown`, and a transient one stays down)
    out = run_ok(f"""
    inner := ((SupervisorSpec name: #inner strategy: #oneForOne children: {{
        ChildSpec id: #w start: [Worker start: 'w'] }}) maxRestarts: 0 within: 5000) onEvent: ev.
    root := Supervisor start: ((SupervisorSpec name: #root strategy: #oneForOne children: {{
        (ChildSpec supervisor: inner) {restart} }}) onEvent: ev).
    old := (root supervisorAt: #inner) actor.
    Actor self monitor: old.
    T kill: #w of: (root supervisorAt: #inner).
    reason := T reasonOf: old.
    rs := root children.
    reason isError printNl.
    (reason error collect: [:e | (e isKindOf: SupervisorError) and: [e message includesSubstring: 'restart limit']]) printNl.
    (rs collect: [:c | c id -> c restarts]) printNl.
    (((root supervisorAt: #inner) at: #w) ask: Ping new) await printNl.
    root stop.
    """, tmp_path, domains)
    limit = "supervisor #inner: restart limit reached (more than 0 restarts in 5000 ms); " \
            "last failure: child #w exited (Error: w crashed)"
    assert out.splitlines() == lines(f"""
        [inner] started #w
        [root] started #inner
        [inner] exited #w (Error: w crashed)
        [inner] gave up: {limit}
        [root] exited #inner (SupervisorError: {limit})
        [inner] started #w
        [root] started #inner
        true
        Maybe some: true
        #(#inner -> 1)
        'w'
        [inner] stopped #w (shutdown)
        [root] stopped #inner (shutdown)
        """)


@pytest.mark.parametrize("domains", DOMAINS)
def test_a_stopped_transient_child_supervisor_stays_down(tmp_path, domains):
    # the other side: stopped by its parent (terminateChild:), a transient child
    # supervisor ends with the shutdown reason and is not restarted
    out = run_ok("""
    inner := (SupervisorSpec name: #inner strategy: #oneForOne children: {
        ChildSpec id: #w start: [Worker start: 'w'] }) onEvent: ev.
    root := Supervisor start: ((SupervisorSpec name: #root strategy: #oneForOne children: {
        (ChildSpec supervisor: inner) transient }) onEvent: ev).
    root terminateChild: #inner.
    (root children collect: [:c | c id -> c isRunning]) printNl.
    root stop.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        [inner] started #w
        [root] started #inner
        [inner] stopped #w (shutdown)
        [root] stopped #inner (shutdown)
        #(#inner -> false)
        """)


@pytest.mark.parametrize("domains", DOMAINS)
def test_a_nested_tree_goes_down_with_the_roots_starter(tmp_path, domains):
    out = run_ok("""
    inner := (SupervisorSpec name: #inner strategy: #oneForAll children: {
        ChildSpec id: #w1 start: [Worker start: 'w1'].
        ChildSpec id: #w2 start: [Worker start: 'w2'] }) onEvent: ev.
    p := Promise new.
    starter := Actor spawn: [:me |
        p resolve: (Supervisor start: ((SupervisorSpec name: #root strategy: #oneForOne children: {
            ChildSpec id: #a start: [Worker start: 'a'].
            ChildSpec supervisor: inner.
            ChildSpec id: #z start: [Worker start: 'z'] }) onEvent: ev)).
        me receive: { #end -> [:m | nil] }].
    root := p future await.
    sub := (root supervisorAt: #inner) actor.
    Actor self monitor: root actor.
    Actor self monitor: sub.
    starter ! #end.
    ((T reasonsOf: { sub. root actor }) collect: [:r | T describe: r]) printNl.
    """, tmp_path, domains)
    assert out.splitlines() == lines("""
        [root] started #a
        [inner] started #w1
        [inner] started #w2
        [root] started #inner
        [root] started #z
        [root] stopped #z (shutdown)
        [inner] stopped #w2 (shutdown)
        [inner] stopped #w1 (shutdown)
        [root] stopped #inner (shutdown)
        [root] stopped #a (shutdown)
        #('shutdown' '#normal')
        """)
