"""Child specs: strategies, restart types, shutdown, start failures and the run-time API."""
from __future__ import annotations

import pytest

from tests.supervision.helpers import lines, run_ok, run_raw

REPEAT = [pytest.param(i, id=f"run{i}") for i in range(3)]

THREE = """
sup := Supervisor start: ((SupervisorSpec name: #s strategy: #{strategy} children: {{
    ChildSpec id: #a start: [Worker start: 'a'].
    ChildSpec id: #b start: [Worker start: 'b'].
    (ChildSpec id: #t start: [Worker start: 't']) temporary.
    ChildSpec id: #c start: [Worker start: 'c'] }}) onEvent: ev).
T crash: #b of: sup.
(T ids: sup) printNl.
(T restarts: sup) printNl.
sup stop.
"""


@pytest.mark.parametrize("rep", REPEAT)
@pytest.mark.parametrize("strategy, events", [
    ("oneForOne", """
        [s] exited #b (Error: b crashed)
        [s] started #b
        #(#a #b #t #c)
        #(0 1 0 0)
        [s] stopped #c (shutdown)
        [s] stopped #t (shutdown)
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
     """),
    ("oneForAll", """
        [s] exited #b (Error: b crashed)
        [s] stopped #c (shutdown)
        [s] stopped #t (shutdown)
        [s] stopped #a (shutdown)
        [s] started #a
        [s] started #b
        [s] started #c
        #(#a #b #c)
        #(1 1 1)
        [s] stopped #c (shutdown)
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
     """),
    ("restForOne", """
        [s] exited #b (Error: b crashed)
        [s] stopped #c (shutdown)
        [s] stopped #t (shutdown)
        [s] started #b
        [s] started #c
        #(#a #b #c)
        #(0 1 1)
        [s] stopped #c (shutdown)
        [s] stopped #b (shutdown)
        [s] stopped #a (shutdown)
     """),
])
def test_strategies_restart_in_order_and_drop_temporary_siblings(tmp_path, rep, strategy, events):
    out = run_ok(THREE.format(strategy=strategy), tmp_path)
    start = lines("""
        [s] started #a
        [s] started #b
        [s] started #t
        [s] started #c
        """)
    assert out.splitlines() == start + lines(events)


@pytest.mark.parametrize("rep", REPEAT)
def test_restart_types(tmp_path, rep):
    out = run_ok("""
    sup := Supervisor start: ((SupervisorSpec name: #r strategy: #oneForOne children: {
        ChildSpec id: #perm start: [Worker start: 'perm'].
        (ChildSpec id: #trans start: [Worker start: 'trans']) transient.
        (ChildSpec id: #temp start: [Worker start: 'temp']) temporary }) onEvent: ev).
    "a transient child that ends normally stays stopped, and keeps its spec"
    a := sup at: #trans.
    Actor self monitor: a.
    a ! #quit.
    T waitFor: a.
    (sup whereIs: #trans) printNl.
    (T ids: sup) printNl.
    "after an abnormal end it is restarted"
    sup restartChild: #trans.
    T crash: #trans of: sup.
    "a permanent child is restarted even after a normal end"
    a := sup at: #perm.
    Actor self monitor: a.
    a ! #quit.
    T waitFor: a.
    sup children.
    "a temporary child is never restarted and its spec is removed"
    T crash: #temp of: sup.
    (T ids: sup) printNl.
    (T restarts: sup) printNl.
    sup stop.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [r] started #perm
        [r] started #trans
        [r] started #temp
        [r] exited #trans (#normal)
        Maybe none
        #(#perm #trans #temp)
        [r] started #trans
        [r] exited #trans (Error: trans crashed)
        [r] started #trans
        [r] exited #perm (#normal)
        [r] started #perm
        [r] exited #temp (Error: temp crashed)
        #(#perm #trans)
        #(1 1)
        [r] stopped #trans (shutdown)
        [r] stopped #perm (shutdown)
        """)


@pytest.mark.parametrize("rep", REPEAT)
def test_transient_killed_or_shut_down(tmp_path, rep):
    # #killed is abnormal (restarted); ending with the supervisor's own shutdown
    # reason is not (a transient child may pass it on).
    out = run_ok("""
    sup := Supervisor start: ((SupervisorSpec name: #k strategy: #oneForOne children: {
        (ChildSpec id: #t start: [Worker start: 't']) transient }) onEvent: ev).
    a := sup at: #t.
    Actor self monitor: a.
    a exit: #killed.
    T waitFor: a.
    a := sup at: #t.
    Actor self monitor: a.
    a exit: (SupervisorShutdown new: 'shutdown').
    T waitFor: a.
    (sup whereIs: #t) printNl.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [k] started #t
        [k] exited #t (#killed)
        [k] started #t
        [k] exited #t (shutdown)
        Maybe none
        """)


WORKERS = """
Object subclass: #Ready fields: (reply).

"Workers that trap exits. Their start blocks wait until the worker is trapping
(the handshake a start block uses for any initialisation that must finish, or
fail, before the supervisor goes on)."
Worker class >> started: worker = (
    (worker ask: Ready new) await.
    worker
).

Worker class >> stubborn = Worker started: (Actor spawn: [:me |
    Actor trapExits: true.
    me receive: { Ready -> [:r | r reply ! true] }.
    me receive: { Exit -> [:e |
        'stubborn ignores the shutdown' displayNl.
        me receive: { #never -> [:m | nil] }] }]).

Worker class >> tidy = Worker started: (Actor spawn: [:me |
    Actor trapExits: true.
    me receive: { Ready -> [:r | r reply ! true] }.
    me receive: { Exit -> [:e |
        'tidy cleans up' displayNl.
        Actor exit: e reason] }]).
"""


@pytest.mark.parametrize("rep", REPEAT)
def test_shutdown_times(tmp_path, rep):
    out = run_ok(WORKERS + """
    sup := Supervisor start: ((SupervisorSpec name: #sd strategy: #oneForOne children: {
        (ChildSpec id: #stubborn start: [Worker stubborn]) shutdown: 30.
        (ChildSpec id: #tidy start: [Worker tidy]) shutdown: -1.
        (ChildSpec id: #brutal start: [Worker start: 'b']) shutdown: 0.
        ChildSpec id: #plain start: [Worker start: 'p'] }) onEvent: ev).
    sup stop.
    sup actor isAlive printNl.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [sd] started #stubborn
        [sd] started #tidy
        [sd] started #brutal
        [sd] started #plain
        [sd] stopped #plain (shutdown)
        [sd] stopped #brutal (#killed)
        tidy cleans up
        [sd] stopped #tidy (shutdown)
        stubborn ignores the shutdown
        [sd] stopped #stubborn (#killed)
        false
        """)


@pytest.mark.parametrize("rep", REPEAT)
def test_initial_start_failure_is_raised_with_its_reason(tmp_path, rep):
    out = run_ok("""
    spec := (SupervisorSpec name: #bad strategy: #oneForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'].
        ChildSpec id: #b start: [Worker start: 'b'].
        ChildSpec id: #db start: [Error raise: 'no database'].
        ChildSpec id: #c start: [Worker start: 'c'] }) onEvent: ev.
    (SupervisorError try: [Supervisor start: spec. 'started'] onError: [:e |
        e kind printNl.
        e supervisor printNl.
        e child printNl.
        (e cause collect: [:c | c message]) printNl.
        e message]) displayNl.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [bad] started #a
        [bad] started #b
        [bad] startFailed #db (no database)
        [bad] stopped #b (shutdown)
        [bad] stopped #a (shutdown)
        #startFailed
        #bad
        #db
        Maybe some: 'no database'
        supervisor #bad: child #db failed to start: no database
        """)


def test_uncaught_start_failure_names_the_reason(tmp_path):
    status, out, err = run_raw("""
    Supervisor start: (SupervisorSpec name: #bad strategy: #oneForOne children: {
        ChildSpec id: #db start: [Error raise: 'no database'] }).
    """, tmp_path)
    assert status == 1
    assert "SupervisorError: supervisor #bad: child #db failed to start: no database" in err


@pytest.mark.parametrize("rep", REPEAT)
def test_nested_start_failure_keeps_the_chain_of_reasons(tmp_path, rep):
    out = run_ok("""
    inner := SupervisorSpec name: #inner strategy: #oneForOne children: {
        ChildSpec id: #db start: [Error raise: 'no database'] }.
    r := SupervisorError
        try: [
            Supervisor start: (SupervisorSpec name: #root strategy: #oneForOne children: {
                ChildSpec supervisor: inner }).
            'started']
        onError: [:e | e message].
    r displayNl.
    """, tmp_path)
    assert out == ("supervisor #root: child #inner failed to start: "
                   "supervisor #inner: child #db failed to start: no database\n")


FLAKY = """
Object subclass: #Toggle.
Object subclass: #Flip fields: (reply).
"An actor that makes the next n starts fail: each #fail adds one."
Toggle class >> start = Actor spawn: [:me | Toggle serve: me failures: 0].
Toggle class >> serve: me failures: n =
    me receive: {
        Flip -> [:m | m reply ! (n > 0). Toggle serve: me failures: (n - 1 max: 0)].
        #fail -> [:m | Toggle serve: me failures: n + 1] }.
Toggle class >> startWorker: name via: toggle =
    (toggle ask: Flip new) await
        ifTrue: [Error raise: name , ' cannot start']
        ifFalse: [Worker start: name].
"""


@pytest.mark.parametrize("rep", REPEAT)
def test_failed_restarts_spend_the_budget_and_are_reported(tmp_path, rep):
    out = run_ok(FLAKY + """
    toggle := Toggle start.
    sup := Supervisor startUnlinked: (((SupervisorSpec name: #f strategy: #oneForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'].
        ChildSpec id: #w start: [Toggle startWorker: 'w' via: toggle] }) maxRestarts: 3 within: 5000) onEvent: ev).
    Actor self monitor: sup actor.
    toggle ! #fail; ! #fail; ! #fail.
    (sup at: #w) ! Crash new.
    (T describe: (T reasonOf: sup actor)) displayNl.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [f] started #a
        [f] started #w
        [f] exited #w (Error: w crashed)
        [f] startFailed #w (w cannot start)
        [f] startFailed #w (w cannot start)
        [f] startFailed #w (w cannot start)
        [f] stopped #a (shutdown)
        [f] gave up: supervisor #f: restart limit reached (more than 3 restarts in 5000 ms); last failure: child #w failed to start: w cannot start
        supervisor #f: restart limit reached (more than 3 restarts in 5000 ms); last failure: child #w failed to start: w cannot start
        """)


@pytest.mark.parametrize("rep", REPEAT)
def test_a_failed_restart_is_retried_with_the_rest_of_its_group(tmp_path, rep):
    # rest for one: #b crashes, #c (after it) fails to start once; the retry (which
    # spends one more restart) starts #c again and #d, which had not been started yet.
    out = run_ok(FLAKY + """
    toggle := Toggle start.
    sup := Supervisor start: ((SupervisorSpec name: #g strategy: #restForOne children: {
        ChildSpec id: #a start: [Worker start: 'a'].
        ChildSpec id: #b start: [Worker start: 'b'].
        ChildSpec id: #c start: [Toggle startWorker: 'c' via: toggle].
        ChildSpec id: #d start: [Worker start: 'd'] }) onEvent: ev).
    toggle ! #fail.
    T crash: #b of: sup.
    (T restarts: sup) printNl.
    sup stop.
    """, tmp_path)
    assert out.splitlines() == lines("""
        [g] started #a
        [g] started #b
        [g] started #c
        [g] started #d
        [g] exited #b (Error: b crashed)
        [g] stopped #d (shutdown)
        [g] stopped #c (shutdown)
        [g] started #b
        [g] startFailed #c (c cannot start)
        [g] started #c
        [g] started #d
        #(0 1 1 1)
        [g] stopped #d (shutdown)
        [g] stopped #c (shutdown)
        [g] stopped #b (shutdown)
        [g] stopped #a (shutdown)
        """)


@pytest.mark.parametrize("rep", REPEAT)
def test_run_time_api(tmp_path, rep):
    out = run_ok("""
    sup := Supervisor start: ((SupervisorSpec name: #api strategy: #oneForOne children: {}) onEvent: ev).
    try := [:block | (SupervisorError try: [block value. 'ok'] onError: [:e | e kind printString , ' ' , e message]) displayNl].
    x := sup startChild: (ChildSpec id: #x start: [Worker start: 'x']).
    (x ask: Ping new) await printNl.
    ((sup at: #x) = x) printNl.
    ((sup whereIs: #x) = (Maybe some: x)) printNl.
    "the id is taken by a running child: #alreadyStarted, with that child's actor"
    (SupervisorError try: [sup startChild: (ChildSpec id: #x start: [Worker start: 'x2']). #started -> false]
        onError: [:e | e kind -> (e actor = (Maybe some: x))]) printNl.
    try value: [sup startChild: (ChildSpec id: #y start: [Error raise: 'y broke'])].
    try value: [sup startChild: ((ChildSpec id: #z start: [Worker start: 'z']) restart: #sometimes)].
    sup startChild: (ChildSpec id: #w start: [Worker start: 'w']).
    (sup children collect: [:c | c id -> c isRunning]) printNl.
    sup terminateChild: #x.
    x isAlive printNl.
    (sup whereIs: #x) printNl.
    try value: [sup at: #x].
    "the id is taken by a stopped child: #alreadyPresent"
    try value: [sup startChild: (ChildSpec id: #x start: [Worker start: 'x2'])].
    try value: [sup at: #nope].
    try value: [sup terminateChild: #nope].
    try value: [sup deleteChild: #w].
    try value: [sup restartChild: #w].
    x2 := sup restartChild: #x.
    (x2 ask: Ping new) await printNl.
    (sup children collect: [:c | c id -> c isRunning]) printNl.
    sup terminateChild: #x.
    sup deleteChild: #x.
    try value: [sup restartChild: #x].
    (T ids: sup) printNl.
    sup stop.
    try value: [sup children].
    """, tmp_path)
    assert out.splitlines() == lines("""
        [api] started #x
        'x'
        true
        true
        #alreadyStarted -> true
        [api] startFailed #y (y broke)
        #startFailed supervisor #api: child #y failed to start: y broke
        #badSpec supervisor #api: child #z has restart #sometimes, not #permanent, #transient or #temporary
        [api] started #w
        #(#x -> true #w -> true)
        [api] stopped #x (shutdown)
        false
        Maybe none
        #notRunning supervisor #api: child #x is not running
        #alreadyPresent supervisor #api: there is already a child #x (stopped)
        #noSuchChild supervisor #api: there is no child #nope
        #noSuchChild supervisor #api: there is no child #nope
        #running supervisor #api: child #w is running
        #running supervisor #api: child #w is running
        [api] started #x
        'x'
        #(#x -> true #w -> true)
        [api] stopped #x (shutdown)
        #noSuchChild supervisor #api: there is no child #x
        #(#w)
        [api] stopped #w (shutdown)
        #notRunning supervisor #api is not running
        """)


@pytest.mark.parametrize("rep", REPEAT)
def test_clients_reach_the_restarted_child_through_the_supervisor(tmp_path, rep):
    # Requests to a supervisor are answered after it has handled every death it
    # can know of, so a client that saw the old actor die gets the new one.
    out = run_ok("""
    sup := Supervisor start: ((SupervisorSpec name: #reg strategy: #oneForOne children: {
        ChildSpec id: #svc start: [Worker start: 'svc'] }) maxRestarts: 100 within: 60000).
    first := sup at: #svc.
    ok := (1 to: 20 collect: [:i |
        old := sup at: #svc.
        Actor self monitor: old.
        old ! Crash new.
        T waitFor: old.
        new := sup at: #svc.
        (new ~= old) & ((new ask: Ping new) await = 'svc')]) allSatisfy: [:b | b].
    ok printNl.
    (T restarts: sup) printNl.
    "a killed child is also replaced before the next answer"
    old := sup at: #svc.
    old exit: #killed.
    [old isAlive] whileTrue: [Actor sleep: 1].
    ((sup at: #svc) ~= old) printNl.
    """, tmp_path)
    assert out.splitlines() == ["true", "#(20)", "true"]


@pytest.mark.parametrize("spec, message", [
    ("SupervisorSpec name: #v strategy: #sideways children: {}",
     "supervisor #v: strategy #sideways is not #oneForOne, #oneForAll or #restForOne"),
    ("SupervisorSpec name: #v strategy: #oneForOne children: { "
     "ChildSpec id: #a start: [Worker start: 'a']. ChildSpec id: #a start: [Worker start: 'b'] }",
     "supervisor #v: two children have the id #a"),
    ("(SupervisorSpec name: #v strategy: #oneForOne children: {}) maxRestarts: -1 within: 10",
     "supervisor #v: maxRestarts must not be negative"),
    ("(SupervisorSpec name: #v strategy: #oneForOne children: {}) maxRestarts: 1 within: 0",
     "supervisor #v: the restart period must be at least 1 ms"),
    ("SupervisorSpec name: #v strategy: #oneForOne children: { "
     "(ChildSpec id: #a start: [Worker start: 'a']) restart: #always }",
     "supervisor #v: child #a has restart #always, not #permanent, #transient or #temporary"),
])
def test_bad_specs_are_refused(tmp_path, spec, message):
    out = run_ok(f"""
    (SupervisorError try: [Supervisor start: ({spec}). 'started'] onError: [:e |
        e kind printString , ' ' , e message]) displayNl.
    """, tmp_path)
    assert out == f"#badSpec {message}\n"
