"""Reliable calls used wrongly (docs/reliable.md): hostile.lp, run with `lp run` and as a binary of
`lp build`, each in a directory of its own, must print the same, and each mistake must end clearly:
a call to an address that names no grain fails `no_handler` (it does not hang its lane), a run
waiting only on a timer ends `canceled` when cancelled, `when:` of a run that does not exist raises,
a root id started again with another op or input raises (with the same, it answers the run, and two
at once run it once), a letter whose op is a kernel method or answers no Step fails its run, and so
does a Step that ends a run with an outcome of its own or makes an awaited call for a run that has
ended or does not exist; a Step that ends, stops or asks for a run the grain does not have (or ends
one twice) fails, one that ends a run that has ended changes nothing; calls and timers made for a run
asked to cancel are not awaited; a second node, or durable server of a class, on a directory the
process uses raises at once. The node's answers are of their own types (`lp check`)."""
from __future__ import annotations

import shutil

import pytest

from tests.native import harness

HERE = harness.ROOT / "tests" / "reliable"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    runs = {}
    for mode in ("run", "build"):
        d = tmp_path_factory.mktemp(mode)
        prog = d / "hostile.lp"
        shutil.copy(HERE / "hostile.lp", prog)
        if mode == "run":
            r = harness.interpret(prog, "--domains", "2")
        else:
            b = harness.build(prog, d / "hostile")
            assert b.status == 0, b.stderr.decode()
            r = harness.native(d / "hostile", d, "--domains", "2")
        assert r.status == 0 and b"Traceback" not in r.stderr, r.stderr.decode()
        runs[mode] = r.stdout.decode()
        runs[mode + " stderr"] = r.stderr.decode()
    return runs


@pytest.fixture(scope="module")
def lines(outputs):
    return dict(line.split(": ", 1) for line in outputs["run"].splitlines())


def test_both_modes_print_the_same(outputs):
    assert outputs["run"] == outputs["build"]
    assert outputs["run stderr"] == outputs["build stderr"]


def test_a_call_to_an_address_naming_no_grain_fails_no_handler(lines):
    assert lines["dial 'nonsense'"] == "'no_handler: no reliable grain nonsense on this node'"
    assert lines["dial ''"] == "'no_handler: no reliable grain  on this node'"
    assert lines["dial 'Nope/x'"] == "'no_handler: no reliable grain Nope/x on this node'"
    assert lines["dial 'Box/a/b'"] == "'pong x'"   # the id is all after the first /
    assert lines["node on nonsense"] == \
        "no reliable grain 'nonsense' on this node: an address is Class/id, of a class it serves"


def test_a_run_waiting_on_a_timer_alone_is_cancelled(lines):
    assert lines["waiting"] == "1"
    canceled = "RunView(status: 'canceled', outcome: 'canceled', result: 'enough')"
    assert lines["cancel"] == lines["cancel again"] == lines["waited"] == canceled
    assert lines["pending"] == "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"


def test_queries_about_a_run_that_does_not_exist(lines):
    assert lines["when none"] == "no root run 'nope' of Box/a to wait for"
    assert lines["run none"] == "RunView(status: '', outcome: '', result: '')"
    assert lines["calls none"] == "#()"
    assert lines["pending none"] == "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"
    assert lines["cancel none"] == "no root run 'nope' of Box/a to cancel"
    assert lines["answer none"] == "the root run 'nope' of Box/a asks no question"


def test_a_root_id_started_again(lines):
    assert lines["first"] == lines["same"] == "'pong 1'"
    conflict = "the root run 'r' of Box/a was started with another op or input (conflict)"
    assert lines["other input"] == lines["other op"] == conflict
    assert lines["together"] == "#('once' 'once')" and lines["ran"] == "1"


def test_an_op_that_is_no_op_fails_its_run(lines):
    for op in ("callsOf:", "kernelX:", "kernelDeliver:"):
        assert lines[op] == f"'handler_error: {op} is a method of the reliable kernel, not an op or a handler'"
    assert lines["three:"] == "'handler_error: three: answered no Step but an instance of Integer'"
    assert lines["nope:"] == "'handler_error: a Box has no method #nope:'"
    assert lines["ping:"] == "'pong '"


def test_a_run_ends_with_one_of_the_three_outcomes(lines):
    assert lines["bad outcome"] == "'handler_error: a run ends completed, failed or canceled, not ''exploded'''"


def test_an_awaited_call_is_made_for_a_run_going_on(lines):
    assert lines["for an ended run"] == "'handler_error: the call to Box/b is for run Box/a r, which has ended'"
    no_run = "'handler_error: the call to Box/b is for run Box/a none, which is no run of Box/a'"
    assert lines["for no run"] == lines["detached for no run"] == no_run
    assert lines["detached for an ended run"] == "'detached'"


def test_a_step_ends_stops_or_asks_for_a_run_of_its_grain_once(lines):
    for what in ("end", "stop", "ask for"):
        assert lines[f"{what} no run"] == f"'handler_error: Box/a has no run Box/a nope to {what}'"
    assert lines["end twice"] == "'handler_error: run Box/a twice is ended twice in one Step'"
    # a run that has ended is left as it is: the Step that ends it again commits, changing nothing
    assert lines["end an ended run"] == "'again done'"
    assert lines["the ended run"] == "RunView(status: 'completed', outcome: 'completed', result: 'pong 1')"


def test_calls_and_timers_made_for_a_run_asked_to_cancel_are_not_awaited(lines):
    # cancel:reason: makes a call and a timer and ends the run; a later Step does the same for a
    # run whose cancel:reason: left it going; neither waits for them, and they run all the same
    canceled = "RunView(status: 'canceled', outcome: 'canceled', result: '{}')"
    assert lines["cancel that calls"] == canceled.format("enough")
    assert lines["cancel, lingers"] == "RunView(status: 'working', outcome: '', result: '')"
    assert lines["a later Step"] == "'finished'"
    assert lines["lingered"] == canceled.format("finished")
    assert lines["awaited after cancel"] == lines["awaited after the later Step"] == "0"
    assert lines["heard after cancel"] == \
        "#('pong after cancel' 'pong later' 'pong later timer' 'pong timer after cancel')"
    assert lines["tidy pending"] == "Dictionary('runs' -> 0, 'calls' -> 0, 'timers' -> 0, 'letters' -> 0)"


def test_one_node_per_directory_and_one_durable_server_per_class_and_directory(lines):
    # the second used to be made, and its first call waited 30 s for the first's lease
    assert lines["second node"] == \
        "a reliable node on the directory 'data' runs in this process already: one node per directory"
    assert lines["second node started"] == \
        "a reliable node on the directory 'other' runs in this process already: one node per directory"
    assert lines["second durable server"] == ("a durable grain server of Tally on the directory 'tally' runs in "
                                              "this process already: one server per class and directory")
    assert lines["first durable server"] == "1" and lines["first node"] == "'pong still'"


def test_a_result_handler_sees_its_own_call_in_calls_of(lines):
    assert lines["fan"] == "'all; listed 1'"   # the last of three results: the others have ended



def test_a_result_handler_that_raises_says_so_and_runs_again(outputs, lines):
    assert lines["shaky handler"] == "'pong shaken after 1'"
    assert outputs["run stderr"].count("warn: reliable: the result handler shaky: of the call Box/a#") == 1
    assert "raised; it runs again until its Step commits" in outputs["run stderr"]



def test_a_step_beyond_one_transaction_fails_its_run(lines):
    assert lines["flood"] == \
        "'handler_error: storage transaction: a transaction has 1 to 100 statements, not 122'"


PINNED = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> ping: run = Step none complete: run ref with: 'pong'.
node := ((ReliableServers dir: 'data') serve: Box new) start.
(Error try: [node pending: 'Box/a'] onError: [:e | e message]) displayNl.
(node when: 'Box/a' id: 'x') printNl.
"""


def _check_errors(tmp_path, name, src):
    """`lp check` of src, which must fail: its stderr and the headers of its diagnostics."""
    prog = tmp_path / name
    prog.write_text(src)
    r = harness.run([*harness.LP, "check", prog.name], cwd=tmp_path)
    err = r.stderr.decode()
    assert r.status == 1, err
    return err, [line for line in err.splitlines() if line.startswith("-- ")]


def test_a_query_used_at_a_type_of_its_own_is_an_error_at_the_program_s_line(tmp_path):
    # pending: answers a Dictionary of its own: the try: that answers a String is the program's
    # mistake, and it used to fix the type of every answer of the node (errors inside the library)
    err, headers = _check_errors(tmp_path, "pinned.lp", PINNED)
    assert len(headers) == 1, err
    assert "TYPE MISMATCH" in headers[0] and headers[0].endswith("pinned.lp:5:52")
    assert "does not understand" not in err


MIXED = """Import module: #Reliable.
ReliableHandler subclass: #Box.
Box >> ping: run = Step none complete: run ref with: 'pong'.
node := ((ReliableServers dir: 'data') serve: Box new) start.
(node root: 'Box/a' op: #ping: input: '' id: 'x') size printNl.
(node calls: 'Box/a' id: 'x') result printNl.
(node deliver: (Letter fields: { seq: 0. kind: 'call'. from: 'Box/z'. to: 'Box/a'. id: 'y'. op: 'ping:'. input: ''. outcome: ''. result: ''. lane: '' })) first printNl.
"""


def test_a_receipt_and_a_list_of_calls_are_of_their_own_types(tmp_path):
    # root:op:input:id:, calls:id: and deliver: answered the type every grain call of the node
    # shares, so a program could use a receipt as a list of calls and the other way round
    err, headers = _check_errors(tmp_path, "mixed.lp", MIXED)
    assert len(headers) == 3, err
    assert [h.split()[-1] for h in headers] == ["mixed.lp:5:51", "mixed.lp:6:31", "mixed.lp:7:155"], err
    assert "`Receipt` does not understand `size`." in err
    assert "`Array[ReliableCall]` does not understand `result`." in err
    assert "`Receipt` does not understand `first`." in err
    assert "Traceback" not in err
