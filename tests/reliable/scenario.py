"""The bank scenario of docs/reliable.md, as crash tests run it: tests/reliable/bank.lp's
handlers and a main program that opens accounts and makes transfers as root runs of the ledger,
waits for all of them and for the pump to be quiet, then prints DONE. Every start of the
program re-issues the same root runs (same ids), so a restarted program resumes the scenario;
`crash_at` runs it with the runtime's LPRT_TEST_SQL_CRASH_AFTER hook (runtime/sql.c), which ends
the process right after its Nth commit. `check` reads the stores after the last run and answers
the broken invariants (none: an empty list)."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CRASHED = 86   # the exit status of the hook

ACCOUNTS = {"a": 100, "b": 50, "c": 0}
TRANSFERS = [("t1", "a", "b", 30), ("t2", "b", "c", 500), ("t3", "b", "a", 20), ("t4", "a", "c", 10)]
# transfers that hold money on an account until a timer cancels or abandons the hold
HOLDS = [("t5", "c", "cancel"), ("t6", "a", "abandon")]
# (id, root op, input): a transfer whose account asks its amount and a confirmation (questions
# and answers, status letters), one the first account pays on to the second (a nested call), and
# a note the ledger sends without waiting for it (a detached call); each always completes
OTHERS = [("m1", "move:", "b a 5"), ("f1", "forward:", "a b 15"), ("n1", "notify:", "c")]
QUESTIONS = ["how much?", "sure?"]


def program(data: Path | str, accounts: dict = ACCOUNTS, transfers: list = TRANSFERS, holds: list = HOLDS,
            others: list = OTHERS) -> str:
    return f"""{HANDLERS}
node := (((ReliableServers dir: '{data}') serve: Ledger new) serve: Account new) start.
{opens(accounts)}
{ledger_runs(transfers, holds, others)}
node quiet.
'DONE' displayNl.
"""


HANDLERS = (Path(__file__).with_name("bank.lp")).read_text()


def opens(accounts: dict = ACCOUNTS) -> str:
    """The root runs that open the accounts (a program's lines)."""
    return "\n".join(f"node root: 'Account/{a}' op: #open: input: '{n}' id: 'open'." for a, n in accounts.items())


def ledger_runs(transfers: list = TRANSFERS, holds: list = HOLDS, others: list = OTHERS) -> str:
    """The ledger's root runs, and the waits for each to end (a program's lines)."""
    starts = [f"node root: 'Ledger/main' op: #transfer: input: '{f} {t} {n}' id: '{i}'." for i, f, t, n in transfers]
    starts += [f"node root: 'Ledger/main' op: #hold: input: '{a} {how}' id: '{i}'." for i, a, how in holds]
    starts += [f"node root: 'Ledger/main' op: #{op} input: '{x}' id: '{i}'." for i, op, x in others]
    waits = [f"node when: 'Ledger/main' id: '{i}'." for i, *_ in transfers + holds + others]
    return "\n".join(starts + waits)


def run(prog: Path, crash_after: int | None = None, seed: int | None = None, timeout: float = 120):
    """(exit status, stdout, stderr) of `lp run` on prog, crashing after the Nth commit if asked."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("LPRT_TEST_SQL_CRASH_AFTER", None)
    if crash_after is not None:
        env["LPRT_TEST_SQL_CRASH_AFTER"] = str(crash_after)
    args = ["--seed", str(seed)] if seed is not None else ["--domains", "2"]
    r = subprocess.run([sys.executable, "-m", "lp", "run", *args, str(prog)], capture_output=True, cwd=ROOT,
                       env=env, timeout=timeout)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def crash_at(work: Path, n: int, seed: int | None = None, restart_seed: int | None = None):
    """Run the scenario in a fresh directory under work, crashing after its nth commit, then start
    it again without a crash. Answers (crashed, broken invariants); crashed is False when the
    scenario had fewer than n commits (it then ran to its end without a crash)."""
    data = work / f"data-{n}-{seed}"
    prog = work / f"bank-{n}-{seed}.lp"
    prog.write_text(program(data))
    rc, out, err = run(prog, crash_after=n, seed=seed)
    if rc == 0:
        assert out.endswith("DONE\n"), out + err
        return False, check(data)
    assert rc == CRASHED, f"crash point {n}: exit {rc}\n{out}{err}"
    rc, out, err = run(prog, seed=restart_seed)
    assert (rc, out.endswith("DONE\n")) == (0, True), f"restart after crash point {n}: exit {rc}\n{out}{err}"
    return True, check(data)


def _rows(db: Path, sql: str) -> list:
    if not db.exists():
        return []
    c = sqlite3.connect(db)
    try:
        return c.execute(sql).fetchall()
    except sqlite3.OperationalError:   # a table the grain never made
        return []
    finally:
        c.close()


def check(data: Path, accounts: dict = ACCOUNTS, transfers: list = TRANSFERS, holds: list = HOLDS,
          others: list = OTHERS) -> list[str]:
    """The invariants of docs/reliable.md ("Crash tests") that do not hold in data."""
    broken = []
    stores = sorted(data.glob("*/*.sqlite"))
    ledger = data / "Ledger" / "main.sqlite"
    total = sum(r[0] for a in accounts for r in _rows(data / "Account" / f"{a}.sqlite", "SELECT amount FROM balance"))
    if total != sum(accounts.values()):
        broken.append(f"money not conserved: {total} != {sum(accounts.values())}")
    for s in stores:
        if n := _rows(s, "SELECT count(*) FROM kernel_outbox")[0][0]:
            broken.append(f"{s.relative_to(data)}: {n} letters left in the outbox")
        if n := _rows(s, "SELECT count(*) FROM kernel_runs WHERE outcome IS NULL")[0][0]:
            broken.append(f"{s.relative_to(data)}: {n} runs not ended")
        if n := _rows(s, "SELECT count(*) FROM kernel_calls WHERE owed = 1")[0][0]:
            broken.append(f"{s.relative_to(data)}: {n} result handlers owed")
        for call, kind, n in _rows(s, "SELECT call, kind, count(*) FROM effects GROUP BY call, kind HAVING count(*) > 1"):
            broken.append(f"{s.relative_to(data)}: effect {kind} of {call} applied {n} times")
        broken += _calls(data, s)
    runs = dict(_rows(ledger, "SELECT id, outcome || ' ' || result FROM kernel_runs WHERE root = 1"))
    for i, *_ in transfers + holds:
        if (runs.get(i) or "").split(" ")[0] not in ("completed", "failed", "canceled"):
            broken.append(f"transfer {i}: {runs.get(i)}")
    for i, op, _ in others:   # each completes; a detached note does not hold its run up
        if runs.get(i) != ("completed notified" if op == "notify:" else "completed credited"):
            broken.append(f"{op} {i}: {runs.get(i)}")
    for cid, outcome in _rows(ledger, "SELECT id, outcome FROM kernel_calls WHERE detached = 1"):
        if outcome != "completed":
            broken.append(f"detached call {cid}: {outcome}")
    broken += _questions(data)
    return broken


def _calls(data: Path, store: Path) -> list[str]:
    """Every call the grain of store made has its callee's outcome, its result handler committed
    once, and its effect applied once if it completed (never if not)."""
    broken = []
    me = f"{store.parent.name}/{store.stem}"
    heard = dict(_rows(store, "SELECT call, count(*) FROM heard GROUP BY call"))
    for cid, to, op, outcome, abandoned, late in _rows(
            store, "SELECT id, to_addr, op, outcome, abandoned, late_outcome FROM kernel_calls"):
        callee = _rows(data / (to + ".sqlite"), f"SELECT outcome FROM kernel_runs WHERE from_addr = '{me}' AND id = '{cid}'")
        if abandoned:   # the callee's outcome came late, after the call ended 'abandoned'
            outcome = late
        if [(outcome,)] != callee:
            broken.append(f"call {cid}: the caller has {outcome}, the callee {callee}")
        if heard.get(cid) != 1:
            broken.append(f"call {cid}: its result handler committed {heard.get(cid, 0)} times")
        if not to.startswith("Account/"):   # a timer's call to the ledger itself moves no money
            continue
        effects = _rows(data / (to + ".sqlite"), f"SELECT count(*) FROM effects WHERE call = '{me} {cid}'")
        n = effects[0][0] if effects else 0
        if n != (1 if outcome == "completed" and op != "hold:" else 0):
            broken.append(f"call {cid} ({op} {outcome}): {n} effects")
    return broken


def _questions(data: Path) -> list[str]:
    """Every question of a withdraw: reached the ledger once, in order, and was answered once;
    the ledger's call shows the last question (its text, or none once the run works again)."""
    broken = []
    ledger = data / "Ledger" / "main.sqlite"
    asks: dict = {}
    for call, q, text in _rows(ledger, "SELECT call, q, text FROM asks ORDER BY rowid"):
        asks.setdefault(call, []).append((q, text))
    for cid, to, q, asked in _rows(ledger, "SELECT id, to_addr, question, asked FROM kernel_calls WHERE op = 'withdraw:'"):
        want = list(enumerate(QUESTIONS, 1))
        if asks.get(cid) != want:
            broken.append(f"call {cid}: the ledger heard the questions {asks.get(cid)}, not {want}")
        if q != len(want) or asked not in (want[-1][1], ""):
            broken.append(f"call {cid}: the last status recorded is question {q} {asked!r}")
        answers = _rows(data / (to + ".sqlite"), f"SELECT q FROM answers WHERE run = 'Ledger/main {cid}' ORDER BY rowid")
        if answers != [(n,) for n, _ in want]:
            broken.append(f"call {cid}: the account took the answers {answers}")
    if not asks:
        broken.append("no question was asked")
    return broken
