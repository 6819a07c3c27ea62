"""The machine that runs compiled LP code for one actor, on an explicit frame stack.

A Process is one actor's machine. The runtime calls `Process.step` on some
domain thread; `run` executes instructions until the actor blocks (a receive
with nothing to take, an await, a sleep), spends its reduction budget, or
ends, and reports which. All state lives in the frames, so the next step can
continue on any domain. Tail sends replace the current frame; other sends push
one, so deep recursion uses heap memory up to `Interpreter.stack_limit`.
"""
from __future__ import annotations

import itertools
import sys

from lp.interp import code as C
from lp.interp.code import FieldGetter, Method, Primitive
from lp.interp.errors import ActorExit, LPRaise, internal_error, make_error
from lp.interp.values import Closure, GrainRefValue, Instance, LPClass, Record, Symbol

YIELD, BLOCK, DONE = 0, 1, 2
BUDGET = 2000
_NO_VALUE = object()  # marks "this send has not answered yet" in the machine's send path
SUSPEND = object()   # a primitive's answer: "I registered a wait; run me again on wake"


_receive = None  # lp.interp.actors.receive, bound when that module loads (it imports this one)


class Call:
    """A primitive's answer asking the machine to call `closure` with `args` in its place; `closure`
    may be a Method, then args are its receiver and arguments (a send by name)."""
    __slots__ = ("closure", "args", "guard")

    def __init__(self, closure, args=(), guard=None):
        self.closure = closure
        self.args = args
        self.guard = guard


class Home:
    """The target of `^` in blocks: one per method activation that created such a block.

    Blocks hold this token, never the frame itself, so no frame can reach itself
    and reference counting frees every frame (and its registers) when it ends.
    """
    __slots__ = ("alive", "owner")

    def __init__(self, owner: int):
        self.alive = True
        self.owner = owner      # Process.uid of the actor running the method


class Frame:
    __slots__ = ("code", "regs", "pc", "dst", "home", "guard", "after", "wait")

    def __init__(self, code, regs, dst, home=None):
        self.code = code
        self.regs = regs
        self.pc = 0
        self.dst = dst
        # A method frame's own Home once it creates a block with `^` (None before);
        # a block frame's is its closure's (None when the block has no `^`).
        self.home = home
        self.guard = None   # ("try", handler, error_class) | ("ensure", block)
        self.after = None   # ("tail",) | ("value", v, after) | ("raise", err) | ("nlr", v, home) | ("exit", e)
        self.wait = None    # resumption state of a blocking instruction


def _end(f: Frame) -> None:
    """f's activation is over: blocks can no longer `^` from it."""
    h = f.home
    if h is not None and not f.code.is_block:
        h.alive = False


def _exiting(f: Frame) -> bool:
    """Is f a cleanup block run by `Actor exit:`? A `^` or an error leaving it goes on with the exit."""
    a = f.after
    return a is not None and a[0] == "exit"


def _replaceable(f: Frame) -> bool:
    """Can a tail call drop f? Not while it guards, nor while a block may still `^` from it."""
    if f.guard is not None:
        return False
    h = f.home
    if h is None or f.code.is_block:
        return True
    # Blocks that can return here and are held only by f's own registers die with f; one held
    # anywhere else (an argument of this very call, a data structure, a nested block) keeps f.
    # Reference counts tell which: h is referenced by f.home, the local `h`, getrefcount's
    # argument and each such block; a block c in f's registers by them (n times), by `mine`
    # (n times), the loop variable and getrefcount's argument.
    mine = [v for v in f.regs if type(v) is Closure and v.home is h]
    if sys.getrefcount(h) - 3 > len(set(map(id, mine))):
        return False
    for c in mine:
        n = mine.count(c)
        if sys.getrefcount(c) - 2 * n - 2 > 0:
            return False
    return True


_uids = itertools.count(1)


class Process:
    """One actor's machine state."""

    def __init__(self, interp, frame: Frame):
        self.uid = next(_uids)
        self.interp = interp
        self.stack: list[Frame] = [frame]
        self.ctx = None          # the runtime's view of this actor (set on first step)
        self.me = None           # this actor as an LP value
        self.result = None
        self.error = None        # the LP error that ended the actor, if any
        self.monitors: dict = {}  # monitored actor id -> runtime monitor ref

    # ---- frames
    def closure_frame(self, clo: Closure, args, dst) -> Frame:
        code = clo.code
        if len(args) != code.nparams:
            raise LPRaise(make_error(self.interp, f"this block takes {code.nparams} argument"
                                     f"{'' if code.nparams == 1 else 's'} but was given {len(args)}"))
        regs = code.template[:]
        n = code.nparams
        regs[:n] = args
        if code.ncaptured:
            regs[n:n + code.ncaptured] = clo.captured
        return Frame(code, regs, dst, clo.home)

    def method_frame(self, m: Method, recv, args, dst) -> Frame:
        regs = m.code.template[:]
        regs[0] = recv
        regs[1:1 + len(args)] = args
        return Frame(m.code, regs, dst)

    def push(self, frame: Frame):
        self.stack.append(frame)
        if len(self.stack) > self.interp.stack_limit:
            self.stack.pop()
            raise LPRaise(make_error(self.interp, f"stack overflow: more than {self.interp.stack_limit} "
                                     "nested calls (raise the limit with --stack-limit)"))

    def trace(self):
        out = []
        for i, f in enumerate(reversed(self.stack)):
            pc = f.pc if i == 0 else f.pc - 1
            node = f.code.instrs[pc][-1] if 0 <= pc < len(f.code.instrs) else None
            span = node.span if node is not None else f.code.span
            if span is not None:   # a primitive's sender block (prims_remote.sender) has no source
                out.append((f.code.name, span))
        return out

    # ---- the loop
    def run(self) -> int:
        stack = self.stack
        frame = stack[-1]
        instrs = frame.code.instrs
        regs = frame.regs
        pc = frame.pc
        budget = BUDGET
        classes = self.interp.type_classes
        int_ops = self.interp.int_ops
        while True:
            ins = instrs[pc]
            op = ins[0]
            try:
                if op == 0 or op == 1:   # SEND / TSEND
                    if op == 0:
                        _, dst, r, sel, args, node = ins
                    else:
                        _, r, sel, args, node = ins
                        dst = None
                    recv = regs[r]
                    t = type(recv)
                    v = _NO_VALUE
                    if t is int and len(args) == 1:
                        fast = int_ops.get(sel)
                        if fast is not None and type(regs[args[0]]) is int:
                            v = fast(recv, regs[args[0]])
                    if v is _NO_VALUE:
                        if t is Instance:
                            m = recv.cls.lookup(sel)
                        elif t is LPClass:
                            m = recv.lookup_class(sel)
                        else:
                            m = classes[t].lookup(sel)
                        mt = type(m)
                        if mt is Method:
                            budget -= 1
                            if budget <= 0:
                                frame.pc = pc
                                return YIELD
                            code = m.code
                            nregs = code.template[:]
                            nregs[0] = recv
                            n = len(args)
                            if n == 1:
                                nregs[1] = regs[args[0]]
                            elif n == 2:
                                nregs[1] = regs[args[0]]
                                nregs[2] = regs[args[1]]
                            elif n:
                                i = 1
                                for a in args:
                                    nregs[i] = regs[a]
                                    i += 1
                            if op == 1 and _replaceable(frame):
                                new = Frame(code, nregs, frame.dst)
                                new.after = frame.after
                                _end(frame)
                                stack[-1] = new
                            else:
                                frame.pc = pc + 1
                                new = Frame(code, nregs, dst if op == 0 else None)
                                if op == 1:
                                    new.after = ("tail",)
                                self.push(new)
                            frame = new
                            instrs, regs, pc = code.instrs, nregs, 0
                            new = nregs = None   # a finished callee's frame must not outlive it here
                            continue
                        if mt is Primitive:
                            n = len(args)
                            if n == 0:
                                v = m.fn(self, recv)
                            elif n == 1:
                                v = m.fn(self, recv, regs[args[0]])
                            else:
                                v = m.fn(self, recv, *[regs[a] for a in args])
                            if type(v) is Call:
                                frame.pc = pc
                                self._call_closure(v, dst, op == 1)
                                frame = stack[-1]
                                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                                continue
                            if v is SUSPEND:
                                frame.pc = pc
                                return BLOCK
                            frame.wait = None
                        elif mt is FieldGetter:
                            v = recv.values[m.index]
                    if v is not _NO_VALUE:
                        # the send answered v at once: store it, or (tail send) return it
                        if op == 0:
                            regs[dst] = v
                            pc += 1
                            continue
                        frame.pc = pc
                        if self._return(v):
                            return DONE
                        frame = stack[-1]
                        instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                        continue
                    if m is None:
                        if t is not GrainRefValue:
                            raise LPRaise(self.interp.not_understood(recv, sel, node))
                        # a grain call: the reference's block makes it (lp/interp/prims_grain.py)
                        frame.pc = pc
                        self._call_closure(Call(recv.block, (Symbol(sel), tuple(regs[a] for a in args))),
                                           dst, op == 1)
                        frame = stack[-1]
                        instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                        continue
                    # the block evaluator (value, value:, ...)
                    budget -= 1
                    if budget <= 0:
                        frame.pc = pc
                        return YIELD
                    frame.pc = pc
                    self._call_closure(Call(recv, tuple(regs[a] for a in args)), dst, op == 1)
                    frame = stack[-1]
                    instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                    continue
                if op == 2:   # MOVE
                    regs[ins[1]] = regs[ins[2]]
                    pc += 1
                    continue
                if op == 3:   # JF cond target fallback
                    c = regs[ins[1]]
                    if c is False:
                        pc = ins[2]
                    elif c is True:
                        pc += 1
                    else:
                        pc = ins[3]   # not a Boolean: the real send
                    continue
                if op == 4:   # JMP
                    if ins[1] <= pc:
                        budget -= 1
                        if budget <= 0:
                            frame.pc = ins[1]
                            return YIELD
                    pc = ins[1]
                    continue
                if op == 5:   # RET
                    frame.pc = pc
                    if self._return(regs[ins[1]]):
                        return DONE
                    frame = stack[-1]
                    instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                    continue
                if op == 14:  # FORLOOP i stop exit
                    if regs[ins[1]] > regs[ins[2]]:
                        pc = ins[3]
                    else:
                        pc += 1
                    continue
                if op == 17:  # FORNEXT i stop body: the last index is never incremented (no overflow)
                    i = regs[ins[1]]
                    if i >= regs[ins[2]]:
                        pc += 1
                        continue
                    regs[ins[1]] = i + 1
                    budget -= 1
                    if budget <= 0:
                        frame.pc = ins[3]
                        return YIELD
                    pc = ins[3]
                    continue
                frame.pc = pc
                r = self._slow(ins, op, frame)
                if r is not None:
                    return r
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
            except LPRaise as e:
                frame.pc = pc
                if self._raise(e.error):
                    return DONE
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
            except ActorExit as e:
                frame.pc = pc
                if e.where is None:
                    e.where = self.trace()
                    v = e.value
                    if type(v) is Instance and v.trace is None:
                        v.trace = e.where
                if not e.unwind:
                    raise
                self._exit(e)
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
            except MemoryError:
                frame.pc = pc
                if self._raise(make_error(self.interp, "out of memory: the program needs more memory than the "
                                          "machine gives it")):
                    return DONE
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
            except RecursionError:
                frame.pc = pc
                if self._raise(make_error(self.interp, "a value is nested too deeply to process")):
                    return DONE
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc
            except Exception as exc:  # a fault inside a primitive becomes an LP error at the send
                frame.pc = pc
                if self._raise(internal_error(self.interp, exc, ins)):
                    return DONE
                frame = stack[-1]
                instrs, regs, pc = frame.code.instrs, frame.regs, frame.pc

    def _slow(self, ins, op, frame: Frame):
        """The less frequent instructions. Returns a step result to stop, or None to continue at stack top."""
        regs = frame.regs
        if op == C.RECV:
            r = _receive(self, frame, ins)
            return BLOCK if r is SUSPEND else None
        if op == C.CLOSURE:
            _, dst, code, caps, _node = ins
            regs[dst] = self._closure(frame, code, caps)
        elif op == C.ARRAY:
            regs[ins[1]] = tuple(regs[r] for r in ins[2])
        elif op == C.RECORD:
            regs[ins[1]] = Record(ins[2], tuple(regs[r] for r in ins[3]))
        elif op == C.JT:
            c = regs[ins[1]]
            if c is True:
                frame.pc = ins[2]
                return None
            if c is not False:
                frame.pc = ins[3]   # not a Boolean: the real send
                return None
        elif op == C.INTCHECK:   # INTCHECK a b i receiver fallback: i := a, both Integers
            a, b = regs[ins[1]], regs[ins[2]]
            if type(a) is not int or type(b) is not int:
                if type(regs[ins[4]]) is not int:
                    frame.pc = ins[5]   # the receiver is no Integer: the real send
                    return None
                bad = a if type(a) is not int else b
                raise LPRaise(make_error(self.interp, f"a loop bound must be an Integer, not "
                                         f"{self.interp.describe(bad)}"))
            regs[ins[3]] = a
        elif op == C.FALLBACK:
            _, fb, dsts, _node = ins
            for (code, caps), r in zip(fb.closure_codes(), dsts):
                regs[r] = self._closure(frame, code, caps)
        elif op in (C.SUPER, C.TSUPER):
            return self._super(ins, op, frame)
        elif op == C.NLRET:
            return DONE if self._nonlocal_return(regs[ins[1]], frame) else None
        else:
            raise AssertionError(f"bad opcode {op}")
        frame.pc += 1
        return None

    def _closure(self, frame: Frame, code, caps) -> Closure:
        home = None
        if code.returns:
            home = frame.home
            if home is None:    # only a method frame lacks one: it becomes the target of `^`
                home = frame.home = Home(self.uid)
        return Closure(code, tuple(frame.regs[c] for c in caps), home)

    def _super(self, ins, op, frame: Frame):
        regs = frame.regs
        if op == C.SUPER:
            _, dst, r, sel, args, node = ins
        else:
            _, r, sel, args, node = ins
            dst = None
        owner = frame.code.owner
        recv = regs[r]
        start = owner.superclass if owner is not None else None
        m = None
        if type(recv) is LPClass:
            m = start.lookup_class(sel) if start is not None else None
        elif start is not None:
            m = start.lookup(sel)
        if m is None:
            raise LPRaise(self.interp.not_understood(recv, sel, node, via_super=True, start=start))
        argv = [regs[a] for a in args]
        if type(m) is Primitive:
            v = m.fn(self, recv, *argv)
            if v is SUSPEND:
                return BLOCK
            if type(v) is Call:
                self._call_closure(v, dst, op == C.TSUPER)
                return None
            if op == C.SUPER:
                regs[dst] = v
                frame.pc += 1
                return None
            return DONE if self._return(v) else None
        if type(m) is FieldGetter:
            v = recv.values[m.index]
            if op == C.SUPER:
                regs[dst] = v
                frame.pc += 1
                return None
            return DONE if self._return(v) else None
        new = self.method_frame(m, recv, argv, dst)
        if op == C.TSUPER and _replaceable(frame):
            new.dst = frame.dst
            new.after = frame.after
            _end(frame)
            self.stack[-1] = new
            return None
        frame.pc += 1
        if op == C.TSUPER:
            new.after = ("tail",)
        self.push(new)
        return None

    def _call_closure(self, call: Call, dst, tail: bool):
        """Replace the current SEND (at frame.pc) by a call of call.closure."""
        frame = self.stack[-1]
        clo = call.closure
        if type(clo) is Method:
            new = self.method_frame(clo, call.args[0], call.args[1:], dst)
        else:
            new = self.closure_frame(clo, call.args, dst)
        new.guard = call.guard
        frame.wait = None
        if tail and call.guard is None and _replaceable(frame):
            new.dst = frame.dst
            new.after = frame.after
            _end(frame)
            self.stack[-1] = new
            return
        frame.pc += 1
        if tail:
            new.after = ("tail",)
        self.push(new)

    def _return(self, v) -> bool:
        """The top frame answers v. True when the actor's outermost frame has returned."""
        stack = self.stack
        while True:
            f = stack[-1]
            g = f.guard
            if g is not None and g[0] == "ensure":
                f.guard = None
                _end(f)
                ens = self.closure_frame(g[1], (), f.dst)
                ens.after = ("value", v, f.after)
                stack[-1] = ens
                return False
            _end(f)
            stack.pop()
            after = f.after
            if after is not None:
                kind = after[0]
                if kind == "value":
                    v = after[1]
                    if after[2] is not None and after[2][0] == "tail":
                        if not stack:
                            self.result = v
                            return True
                        continue
                elif kind == "raise":
                    return self._raise(after[1])
                elif kind == "nlr":
                    return self._nonlocal_unwind(after[1], after[2])
                elif kind == "exit":
                    return self._exit(after[1])
                elif kind == "tail":
                    if not stack:
                        self.result = v
                        return True
                    continue
            if not stack:
                self.result = v
                return True
            caller = stack[-1]
            if f.dst is not None:
                caller.regs[f.dst] = v
            return False

    def _raise(self, err) -> bool:
        """Unwind to the nearest handler for err. True when no frame handles it (the actor dies)."""
        stack = self.stack
        if isinstance(err, Instance) and err.trace is None:
            err.trace = self.trace()
        while stack:
            f = stack[-1]
            g = f.guard
            if g is not None and g[0] == "try" and (g[2] is None or (isinstance(err, Instance)
                                                                   and err.cls.inherits(g[2]))):
                _end(f)
                stack.pop()
                handler = g[1]
                args = (err,) if handler.code.nparams == 1 else ()
                new = self.closure_frame(handler, args, f.dst)
                new.after = f.after
                self.push(new)
                return False
            if _exiting(f):
                return self._exit(f.after[1])
            _end(f)
            stack.pop()
            if g is None:
                continue
            if g[0] == "ensure" or g[0] == "curtailed":
                new = self.closure_frame(g[1], (), f.dst)
                new.after = ("raise", err)
                self.push(new)
                return False
        self.error = err
        return True

    def _nonlocal_return(self, v, frame: Frame) -> bool:
        home = frame.home
        if home.owner != self.uid:
            raise LPRaise(make_error(self.interp, "`^` in a block run by another actor: it can only return "
                                     "from a method of the actor that created the block"))
        if not home.alive:
            raise LPRaise(make_error(self.interp, "`^` returns from a method that has already returned"))
        return self._nonlocal_unwind(v, home)

    def _nonlocal_unwind(self, v, home: Home) -> bool:
        stack = self.stack
        while True:
            if not stack:
                raise LPRaise(make_error(self.interp, "`^` returns from a method that has already returned"))
            f = stack[-1]
            if f.home is home and not f.code.is_block:
                return self._return(v)
            if _exiting(f):
                return self._exit(f.after[1])
            stack.pop()
            _end(f)
            g = f.guard
            if g is not None and (g[0] == "ensure" or g[0] == "curtailed"):
                new = self.closure_frame(g[1], (), None)
                new.after = ("nlr", v, home)
                self.push(new)
                return False

    def _exit(self, e: ActorExit) -> None:
        """`Actor exit:` unwinds every frame, running `ensure:` and `ifCurtailed:` blocks on the
        way (try:onError: handlers do not catch it); then the actor ends with e's reason."""
        stack = self.stack
        while stack:
            f = stack.pop()
            _end(f)
            g = f.guard
            if g is not None and (g[0] == "ensure" or g[0] == "curtailed"):
                new = self.closure_frame(g[1], (), None)
                new.after = ("exit", e)
                self.push(new)
                return False
        raise e
