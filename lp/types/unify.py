"""Unification with occurs check and level adjustment, protocol merging, and the constraint queue.

`unify(expected, actual)` never raises: it answers the first clash it met (or
None) and keeps unifying the other components, so one wrong argument does not
leave the rest of a type unconstrained (no cascades). ERR and DYN unify with
anything; a variable unified with them is bound to them.
"""
from __future__ import annotations

from lp.types.constraints import Lazy, Mark
from lp.types.terms import DYN, ERR, GENERIC, TCon, TProto, TSpecial, TVar, prune


class Clash:
    __slots__ = ("expected", "actual", "kind")

    def __init__(self, expected, actual, kind="mismatch"):
        self.expected = expected
        self.actual = actual
        self.kind = kind      # "mismatch", "arity", "occurs"


class WorkQueue:
    """Constraints to fire, each with the chain of method instantiations whose firings led to its being
    queued (a linked list, newest first: infer.call_method). Whatever kind each constraint on the way
    is, the chain goes on through it."""
    __slots__ = ("items", "owner")

    def __init__(self, owner):
        self.items, self.owner = [], owner

    def append(self, c):
        self.items.append((c, self.owner.firing_chain))

    def extend(self, cs):
        chain = self.owner.firing_chain
        self.items.extend((c, chain) for c in cs)

    def pop(self):
        return self.items.pop()

    def clear(self):
        self.items.clear()

    def __bool__(self):
        return bool(self.items)


class Unifier:
    def __init__(self):
        self.queue = WorkQueue(self)   # constraints whose watched variable got bound
        self._draining = False
        self.firing_chain = None   # the instantiations that led to the firing now (WorkQueue)

    # ---- levels -----------------------------------------------------------------
    def adjust(self, t, level, seen=None):
        """Lower every level inside `t` to at most `level` (the type escaped to an outer scope)."""
        stack = [t]
        seen = set()    # types are DAGs: a shared constructor is walked once, never once per path
        while stack:
            t = prune(stack.pop())
            tt = type(t)
            if tt is TVar:
                if t.level > level:
                    t.level = level
                    if t.pending:
                        for c in t.pending:
                            if type(c) is Lazy and c.done is None:
                                c.level = min(c.level, level)
                            else:
                                stack.extend(c.types())
            elif tt is TCon:
                if t.args and id(t) not in seen:
                    seen.add(id(t))
                    stack.extend(t.args)
                    if t.ctx is not None:
                        stack.append(t.ctx)
            elif tt is TProto:
                if t.level > level:
                    t.level = level
                    stack.extend(proto_types(t))

    def _occurs_adjust(self, v, t) -> bool:
        """Adjust levels in `t` to v's level; answer True if v occurs in t (outside protocols)."""
        level = v.level
        stack = [t]
        seen = set()
        found = False
        while stack:
            t = prune(stack.pop())
            tt = type(t)
            if tt is TVar:
                if t is v:
                    found = True
                elif t.level > level:
                    t.level = level
                    if t.pending:
                        for c in t.pending:
                            stack.extend(c.types())
            elif tt is TCon:
                if t.args and id(t) not in seen:
                    seen.add(id(t))
                    stack.extend(t.args)
                    if t.ctx is not None:
                        self.adjust(t.ctx, level)
            elif tt is TProto:
                if t.level > level:
                    t.level = level
                    self.adjust_many(proto_types(t), level)
        return found

    def adjust_many(self, types, level):
        for x in types:
            self.adjust(x, level)

    # ---- unification -----------------------------------------------------------------
    def unify(self, expected, actual):
        clashes = []
        self._u(expected, actual, clashes)
        self.drain()
        return clashes[0] if clashes else None

    def _u(self, a, b, out):
        a = prune(a)
        b = prune(b)
        if a is b:
            return
        if a is DYN or b is DYN:
            return      # Dynamic fits anything and binds nothing: it does not spread into variables
        ta, tb = type(a), type(b)
        if ta is TVar:
            if tb is TVar:
                if a.level < b.level:
                    self._bind_var(b, a)
                else:
                    self._bind_var(a, b)
            else:
                self._bind(a, b, out, True)
            return
        if tb is TVar:
            self._bind(b, a, out, False)
            return
        if ta is TSpecial or tb is TSpecial:
            return
        if ta is TCon and tb is TCon:
            if a.name != b.name:
                out.append(Clash(a, b))
                return
            if len(a.args) != len(b.args):
                out.append(Clash(a, b, "arity"))
                return
            if a.open is not b.open:
                a.open = b.open = True
            if a.ctx is not b.ctx:
                if a.ctx is None:
                    a.ctx = b.ctx
                elif b.ctx is None:
                    b.ctx = a.ctx
                else:
                    self._u(a.ctx, b.ctx, out)
            for x, y in zip(a.args, b.args):
                self._u(x, y, out)
            return
        if ta is TProto and tb is TProto:
            self.merge(a, b, out)
            return
        out.append(Clash(a, b))

    def _bind_var(self, v, w):
        """Bind variable v to variable w (w.level <= v.level)."""
        lower = w.level < v.level
        if v.level < w.level:
            w.level = v.level
        v.ref = w
        if v.pending:
            # v's constraints mention nothing above v's level (watch and adjust keep it so): they need
            # walking only when w is lower; else a long cycle of methods walks them at every bind
            for c in v.pending if lower else ():
                if type(c) is Lazy and c.done is None:
                    c.level = min(c.level, w.level)
                else:
                    self.adjust_many(c.types(), w.level)
            if w.pending is None:
                w.pending = []
            w.pending.extend(v.pending)
            v.pending = None

    def _bind(self, v, t, out, v_is_expected):
        if type(t) is not TSpecial and self._occurs_adjust(v, t):
            out.append(Clash(v, t, "occurs") if v_is_expected else Clash(t, v, "occurs"))
            return
        v.ref = t
        if v.pending:
            self.queue.extend(v.pending)
            v.pending = None

    def merge(self, p, q, out):
        """Merge protocol q into p: the union of what both accept and require."""
        if p.level > q.level:
            p, q = q, p
        q.ref = p
        level = p.level
        if q.level > level:
            q.level = level
            self.adjust_many(proto_types(q), level)
        for tag, (pay, span) in q.accepts.items():
            mine = p.accepts.get(tag)
            if mine is None:
                p.accepts[tag] = (pay, span)
            else:
                self._u(mine[0], pay, out)
        for kind, vals in q.lits.items():
            d = p.lits.setdefault(kind, {})
            for v, s in vals.items():
                d.setdefault(v, s)
        if q.computed:
            p.computed = p.computed + q.computed
        if q.plain is not None:
            if p.plain is None:
                p.plain = q.plain
            else:
                self._u(p.plain[0], q.plain[0], out)
                if q.plain[2] and not p.plain[2]:
                    p.plain = (p.plain[0], q.plain[1], True)
        if q.plain_sites:
            p.plain_sites = p.plain_sites + q.plain_sites
        if p.asked is None:
            p.asked = q.asked
        if q.requires:
            p.requires = p.requires + q.requires
        if q.origins:
            p.origins = p.origins + tuple(o for o in q.origins if o not in p.origins)
        if p.opaque is None:
            p.opaque = q.opaque
        if q.owner_checks:
            p.owner_checks = p.owner_checks + q.owner_checks
        if p.why is None:
            p.why = q.why

    # ---- pending constraints ---------------------------------------------------------
    def watch(self, var, constraint):
        if var.pending is None:
            var.pending = []
        var.pending.append(constraint)

    def drain(self):
        if self._draining:
            return
        self._draining = True
        try:
            while self.queue:
                c, self.firing_chain = self.queue.pop()
                c.fire(self)
        finally:
            self._draining = False
            self.firing_chain = None


def proto_types(p):
    out = [pay for pay, _ in p.accepts.values()]
    out.extend(k for k, _ in p.computed)
    if p.plain is not None:
        out.append(p.plain[0])
    out.extend(r.msg for r in p.requires)
    out.extend(c for c, _ in p.owner_checks)
    return out


# ---- generalisation and instantiation ------------------------------------------------

def generalize(t, level):
    """Mark every variable and protocol in t above `level` as generic."""
    stack = [t]
    seen = set()
    while stack:
        t = prune(stack.pop())
        tt = type(t)
        if tt is TVar:
            if t.level > level and t.level != GENERIC:
                t.level = GENERIC
                if t.pending:
                    for c in t.pending:
                        if type(c) is Lazy and c.done is None:
                            if c.level > level:
                                c.level = GENERIC
                        elif type(c) is Mark:
                            stack.extend(c.outer.inner())
                        else:
                            stack.extend(c.types())
        elif tt is TCon:
            if t.args and id(t) not in seen:
                seen.add(id(t))
                stack.extend(t.args)
                if t.ctx is not None:
                    stack.append(t.ctx)
        elif tt is TProto:
            if t.id in seen:
                continue
            seen.add(t.id)
            if t.level > level and t.level != GENERIC:
                t.level = GENERIC
                stack.extend(proto_types(t))


def is_generic(t) -> bool:
    stack = [t]
    seen = set()
    while stack:
        t = prune(stack.pop())
        tt = type(t)
        if tt is TVar:
            if t.level == GENERIC:
                return True
        elif tt is TCon:
            if t.args and id(t) not in seen:
                seen.add(id(t))
                stack.extend(t.args)
                if t.ctx is not None:
                    stack.append(t.ctx)
        elif tt is TProto:
            if t.level == GENERIC:
                return True
    return False


class Instantiator:
    """Copies the generic parts of a scheme, sharing everything else.

    A type is a DAG: a constructor reached by two paths is copied once (`cons`), so
    instantiating `Association[a, a]` nested n deep costs n, not 2^n."""

    def __init__(self, checker, level):
        self.checker = checker
        self.level = level
        self.map = {}
        self.cons = {}      # id of a constructor -> its copy (the original is kept alive in the value)
        self.top = Cell(self, None)
        self.composed = {}  # id of a variable -> [(Cell, image)]: images made through this one by a Cell
        self.outers = set()  # ids of the outer sends (constraints.OuterSend) this instantiation copied

    def at(self, level):
        """This instantiation, its fresh variables made at `level` (a `Lazy` copied late)."""
        if level == self.level:
            return self
        view = Instantiator.__new__(Instantiator)
        view.__dict__.update(self.__dict__)
        view.level = level
        return view

    def __call__(self, t):
        t = prune(t)
        tt = type(t)
        if tt is TVar:
            if t.level != GENERIC:
                return t
            n = self.map.get(t.id)
            if n is None:
                n = self.map[t.id] = TVar(self.level)
                if t.pending:
                    n.pending = [wrap(c, self.top, self.level) for c in t.pending if type(c) is not Mark] or None
                for rest, r in self.composed.pop(t.id, ()):
                    rest.memo[n.id] = r
                if t.pending:
                    outer_copies(self.checker, t.pending, self.outers, self)
            return n
        if tt is TCon:
            return copy_con(t, self.cons, self)
        if tt is TProto:
            if t.level != GENERIC:
                return t
            n = self.map.get(t.id)
            if n is None:
                n = self.map[t.id] = TProto(self.level)
                n.accepts = {k: (self(pay), s) for k, (pay, s) in t.accepts.items()}
                n.lits = {k: dict(v) for k, v in t.lits.items()}
                n.computed = [(self(k), s) for k, s in t.computed]
                n.plain = (self(t.plain[0]), t.plain[1], t.plain[2]) if t.plain is not None else None
                n.plain_sites = list(t.plain_sites)
                n.asked = t.asked
                n.requires = [self.checker.copy_require(r, self) for r in t.requires]
                n.origins = t.origins
                n.opaque = t.opaque
                n.owner_checks = [(self(c), s) for c, s in t.owner_checks]
                n.why = t.why
                self.checker.protocols.append(n)
                t.copies.append(n)
                for late in t.late:   # a deferred send of the method that fired after it was generalised
                    self.checker.queue.append(late.run_in(n))
            return n
        return t


def copy_con(t, cons, each):
    """Constructor t with `each` applied to its arguments and context, copied once per constructor
    (`cons`: id -> (original, copy)) however many paths reach it; t itself if it has no arguments."""
    if not t.args:
        return t
    done = cons.get(id(t))
    if done is not None and done[0] is t:
        return done[1]
    n = TCon(t.name, tuple(each(a) for a in t.args), t.why)
    if t.ctx is not None:
        n.ctx = each(t.ctx)
    cons[id(t)] = (t, n)
    return n


def wrap(c, cell, level):
    """Constraint c of a generic variable, copied through `cell` and what follows it (a `Lazy`)."""
    if type(c) is Lazy:
        if c.done is None and c.level == GENERIC:
            return Lazy(c.base, c.chain.onto(cell), level)
        c = c.force()
    return Lazy(c, cell, level)


class Cell:
    """One instantiation a `Lazy` goes through (`inst`), then the ones in `rest` (None: none).

    Cells are shared (`onto` answers the same cell for the same path), so the image of a variable
    through a path is made once (`memo`) and a chain of lazy constraints copied through the same
    instantiations costs one step per link, not one per link and instantiation."""
    __slots__ = ("inst", "rest", "memo", "cons", "kids", "outers")

    def __init__(self, inst, rest):
        self.inst, self.rest = inst, rest
        self.memo, self.cons, self.kids, self.outers = {}, {}, {}, set()

    def child(self, inst):
        c = self.kids.get(id(inst))
        if c is None or c.inst is not inst:
            c = self.kids[id(inst)] = Cell(inst, self)
        return c

    def onto(self, cell):
        """This path followed by `cell`'s."""
        insts = []
        c = self
        while c is not None:
            insts.append(c.inst)
            c = c.rest
        out = cell
        for inst in reversed(insts):
            out = out.child(inst)
        return out

    def apply(self, t, level):
        t = prune(t)
        tt = type(t)
        if self.rest is None:
            return self.inst.at(level)(t)
        if tt is TVar or tt is TProto:
            if t.level != GENERIC:
                return t
            r = self.memo.get(t.id)
            if r is not None:
                return r
            w = self.inst.map.get(t.id)
            if w is None and tt is TVar:
                r = TVar(level)
                if t.pending:
                    r.pending = [wrap(c, self, level) for c in t.pending if type(c) is not Mark] or None
                self.inst.composed.setdefault(t.id, []).append((self.rest, r))
                self.memo[t.id] = r
                if t.pending:
                    outer_copies(self.inst.checker, t.pending, self.outers, lambda x: self.apply(x, level))
                return r
            else:
                if w is None:
                    w = self.inst.at(GENERIC)(t)
                r = self.rest.apply(w, level)
            self.memo[t.id] = r
            return r
        if tt is TCon:
            return copy_con(t, self.cons, lambda a: self.apply(a, level))
        return t


def outer_copies(checker, pending, done, each):
    """The copies one instantiation makes of the outer sends marked on a generic variable
    (constraints.OuterSend), once each (`done`), their variables mapped by `each`."""
    for c in pending:
        if type(c) is Mark and not c.outer.done and id(c.outer) not in done:
            done.add(id(c.outer))
            checker.outer_instance(c.outer, each)
