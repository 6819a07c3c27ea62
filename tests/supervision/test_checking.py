"""The module type-checks, programs using it check, and the checker still refuses
what it should (the supervisor's protocol is a real one)."""
from __future__ import annotations

from tests.conftest import ROOT, run_lp

CHILDREN = """
Import module: #Supervision.
Object subclass: #Get fields: (reply).
Object subclass: #Put fields: (key value).
Object subclass: #Store.
Object subclass: #Clock.

"Two children with different protocols under one supervisor."
Store class >> start = Actor spawn: [:me | Store serve: me data: Dictionary new].
Store class >> serve: me data: d =
    me receive: {
        Put -> [:m | Store serve: me data: (d at: m key put: m value)].
        Get -> [:m | m reply ! d size. Store serve: me data: d] }.
Clock class >> start = Actor spawn: [:me | Clock tick: me n: 0].
Clock class >> tick: me n: n = me receive: { #tick -> [:t | Clock tick: me n: n + 1] }.

sup := Supervisor start: (SupervisorSpec name: #app strategy: #restForOne children: {
    ChildSpec id: #store start: [Store start].
    (ChildSpec id: #clock start: [Clock start]) shutdown: 100 }).
(sup at: #store) ! (Put fields: { key: #a. value: 1 }).
(sup at: #clock) ! #tick.
((sup at: #store) ask: Get new) await printNl.
(sup children collect: [:c | c id -> c restarts]) printNl.
sup stop.
"""


def check(tmp_path, src):
    f = tmp_path / "prog.lp"
    f.write_text(src)
    return run_lp("check", str(f))


def test_a_program_with_children_of_different_protocols_checks_and_runs(tmp_path):
    r = check(tmp_path, CHILDREN)
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    f = tmp_path / "prog.lp"
    r = run_lp("run", "--domains", "2", str(f))
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout == b"1\n#(#store -> 0 #clock -> 0)\n"


def test_the_module_alone_checks(tmp_path):
    r = check(tmp_path, "Import module: #Supervision.\n")
    assert r.returncode == 0, r.stdout.decode()


def test_the_example_checks():
    r = run_lp("check", str(ROOT / "examples" / "supervisor_tree.lp"))
    assert r.returncode == 0, r.stdout.decode()


def test_a_message_no_child_accepts_is_refused(tmp_path):
    r = check(tmp_path, CHILDREN + "(sup at: #store) ! 42.\n")
    assert r.returncode == 1
    assert "42" in r.stderr.decode()


def test_wrong_argument_types_are_refused(tmp_path):
    r = check(tmp_path, CHILDREN + "ChildSpec id: 'store' start: [Store start].\n")
    assert r.returncode == 1
    assert "Symbol" in r.stderr.decode()
    r = check(tmp_path, CHILDREN + "ChildSpec id: #x start: [42].\n")
    assert r.returncode == 1


# A child that takes its messages with a plain receive, next to a nested supervisor: the
# children's actor type is not the supervisors' (ChildInfo keeps a nested one as a Supervisor).
PLAIN = """
Import module: #Supervision.
Object subclass: #W.
W class >> plain = Actor spawnLink: [:me | W loopP: me].
W class >> loopP: me = (((me receive) + 1) printNl. W loopP: me).
inner := SupervisorSpec name: #inner strategy: #oneForOne children: { ChildSpec id: #q start: [W plain] }.
sup := Supervisor start: (SupervisorSpec name: #app strategy: #oneForOne children: {
    ChildSpec id: #p start: [W plain].
    ChildSpec supervisor: inner }).
(sup at: #p) ! 1.
((sup supervisorAt: #inner) at: #q) ! 41.
Actor sleep: 100.
(SupervisorError try: [sup at: #inner. #found] onError: [:e | e kind]) printNl.
(SupervisorError try: [sup supervisorAt: #p. #found] onError: [:e | e kind]) printNl.
((sup children collect: [:c | c sup isSome]) , (sup children collect: [:c | c isRunning])) printNl.
sup stop.
"""


def test_a_child_with_a_plain_receive_beside_a_nested_supervisor_checks_and_runs(tmp_path):
    r = check(tmp_path, PLAIN)
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    r = run_lp("run", "--domains", "2", str(tmp_path / "prog.lp"))
    assert (r.returncode, r.stderr) == (0, b"")
    lines = r.stdout.decode().splitlines()
    # The two children print from their own actors, on two domains: in either order.
    assert sorted(lines[:2]) == ["2", "42"]
    assert lines[2:] == ["#isSupervisor", "#notSupervisor", "#(false true true true)"]


def test_a_wrong_message_to_a_plain_receiving_child_is_refused(tmp_path):
    r = check(tmp_path, PLAIN + "(sup at: #p) ! #x.\n")
    assert r.returncode == 1
    assert "This message is `Symbol`, but the actor takes its messages with a plain `receive`" in r.stderr.decode()
