"""Waiting for the runtime thread while staying able to take Ctrl-C.

Python runs signal handlers only in the main thread and only between bytecodes;
with domain threads busy in callbacks a SIGINT could be missed. Instead SIGINT is
blocked in every thread (threads started meanwhile inherit the mask) and the main
thread takes it synchronously with sigtimedwait, so it can never be lost.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

_SYNC = hasattr(signal, "sigtimedwait") and hasattr(signal, "pthread_sigmask")


def run_interruptibly(target, on_interrupt, grace: float = 5.0):
    """Run target() on its own thread and answer what it answers (or raise what it raises),
    waiting for it. On SIGINT call on_interrupt(),
    give the thread `grace` seconds to finish, then raise KeyboardInterrupt; if it is
    still running then, end the process at once (a thread inside the runtime must not
    outlive the interpreter's shutdown)."""
    result = []

    def run():
        try:
            result.append((True, target()))
        except BaseException as e:   # raised again on the waiting thread
            result.append((False, e))

    runner = threading.Thread(target=run, name="lp-runtime", daemon=True)
    sync = _SYNC and threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if sync else None
    try:
        runner.start()
        # sigtimedwait cannot also wait for the thread: look at it after 1 ms, then twice as long each
        # time up to 0.2 s, so a short program ends within about its own time (was: a fixed 0.2 s)
        wait = 0.001
        while runner.is_alive():
            if sync:
                got = signal.sigtimedwait({signal.SIGINT}, wait)
                # CPython answers an unfilled siginfo when a stop (SIGSTOP, SIGCONT) outlasts the wait
                if got is not None and got.si_signo == signal.SIGINT:
                    raise KeyboardInterrupt
                wait = min(wait * 2, 0.2)
            else:
                runner.join(0.2)
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
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    ok, value = result[0]
    if not ok:
        raise value
    return value
