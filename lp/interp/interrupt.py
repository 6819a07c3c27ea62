"""Waiting for the runtime thread while staying able to take Ctrl-C.

Python runs signal handlers only in the main thread and only between bytecodes;
with domain threads busy in callbacks a SIGINT could be missed. Instead SIGINT is
blocked in every thread (threads started meanwhile inherit the mask) and the main
thread takes it synchronously with sigtimedwait, so it can never be lost. The
runtime thread ends the wait with SIGUSR2 (blocked the same way) when it finishes,
so a short run is not kept waiting for the poll (`lp test` runs thousands).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

_SYNC = hasattr(signal, "sigtimedwait") and hasattr(signal, "pthread_sigmask")


def run_interruptibly(target, on_interrupt, grace: float = 5.0, limit: float | None = None, on_limit=None):
    """Run target() on its own thread and answer what it answers (or raise what it raises),
    waiting for it. On SIGINT call on_interrupt(),
    give the thread `grace` seconds to finish, then raise KeyboardInterrupt; if it is
    still running then, end the process at once (a thread inside the runtime must not
    outlive the interpreter's shutdown). With a limit: after that many seconds call
    on_limit() (which should end the run) and keep waiting, as long again as `grace`."""
    end = time.monotonic() + limit if limit else None
    result = []
    waiter = threading.get_ident()
    sync = _SYNC and threading.current_thread() is threading.main_thread()

    def run():
        try:
            result.append((True, target()))
        except BaseException as e:   # raised again on the waiting thread
            result.append((False, e))
        if sync:
            signal.pthread_kill(waiter, signal.SIGUSR2)

    runner = threading.Thread(target=run, name="lp-runtime", daemon=True)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGUSR2}) if sync else None
    try:
        runner.start()
        while not result:
            if end is not None and time.monotonic() >= end:
                on_limit()
                end = None
                runner.join(grace)
                if runner.is_alive():
                    sys.stdout.flush()
                    sys.stderr.write("lp: the run did not stop after its time limit\n")
                    sys.stderr.flush()
                    os._exit(1)
                break
            wait = 0.2 if end is None else max(0.0, min(0.2, end - time.monotonic()))
            if sync:
                got = signal.sigtimedwait({signal.SIGINT, signal.SIGUSR2}, wait)
                if got is not None and got.si_signo == signal.SIGINT:
                    raise KeyboardInterrupt
            else:
                runner.join(wait)
    except KeyboardInterrupt:
        on_interrupt()
        runner.join(grace)
        if runner.is_alive():
            sys.stdout.flush()
            sys.stderr.write("lp: interrupted\n")
            sys.stderr.flush()
            os._exit(130)
        raise
    finally:
        if old is not None:
            runner.join()   # it has sent its SIGUSR2: take it before unblocking (its default kills)
            while signal.sigtimedwait({signal.SIGUSR2}, 0) is not None:
                pass
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    ok, value = result[0]
    if not ok:
        raise value
    return value
