"""The deadlock report: when the runtime finds every actor blocked with nothing
that could wake one (no timer, socket, DNS lookup or running actor), name each
actor, what it waits for, and where in the LP program."""
from __future__ import annotations

from lp.interp import code as C
from lp.interp.reason_text import bounded_print, cut


def report_deadlock(interp, runtime):
    """Runs on a domain thread while every actor stays blocked."""
    lines = ["deadlock: every actor is waiting and nothing can wake any of them"]
    main = interp.main_process
    for aid, st in sorted(runtime._states.items()):
        state = getattr(st.fn, "__self__", None)
        proc = getattr(state, "proc", None)
        if proc is None:
            continue
        who = f"actor {aid}{' (main)' if proc is main else ''}"
        lines.append(f"  {who} waits {describe_wait(interp, proc)}")
    interp.report("\n".join(lines), always=True)


def describe_wait(interp, proc) -> str:
    if not proc.stack:
        return "(finished)"
    frame = proc.stack[-1]
    instrs = frame.code.instrs
    ins = instrs[frame.pc] if 0 <= frame.pc < len(instrs) else None
    what = "for a message"
    if ins is not None and ins[0] == C.RECV:
        what = f"in {getattr(ins[6], 'selector', 'receive:')} for " + _keys(interp, [(k, frame.regs[r] if k != C.MATCH_ANY else None)
                                                   for k, r, _, _ in ins[3]])
    elif ins is not None and ins[0] in (0, 1):
        sel = ins[3] if ins[0] == 0 else ins[2]
        if sel in ("await", "await:"):
            asked = frame.wait[2] if frame.wait and len(frame.wait) == 4 else None
            what = f"in {sel} for a reply from Actor<{asked.id}>" if asked is not None and \
                hasattr(asked, "id") else f"in {sel} for a future no one has resolved"
        elif sel in ("receive", "receive:", "receive:after:do:"):
            what = f"in {sel} for a message"
    trace = proc.trace()
    return f"{what} at {trace[0][1]}" if trace else what


def _keys(interp, keys) -> str:
    names = []
    for kind, key in keys:
        if kind == C.MATCH_ANY:
            return "any message"
        names.append(key.name if kind == C.MATCH_CLASS and hasattr(key, "name") else bounded_print(interp, key, 60))
    return cut(" or ".join(names), 200)
