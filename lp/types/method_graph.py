"""The order methods are inferred in: strongly connected components of "method m may run method n".

Each component is inferred monomorphically, then generalised (docs/types.md, "Inference"), so a
component must hold every method its members' sends may be typed against, and should hold no
other: a method grouped with one it does not call loses its polymorphism there.

A send `r sel` may reach every method named `sel` (the sound fallback) unless its receiver's
class is known from the syntax alone, as the checker will type it; then it reaches the methods of
that class's hierarchy (ancestors and descendants) on its side, and a class side also `Object`'s
instance methods (classes are objects). `Receivers` tells the class of:
- `self` (not on `Object` and `Number`, whose `self` is a variable); `super` is `self`, but its
  own sends reach only the superclass and its ancestors (on the class side the checker starts at
  the class itself);
- a class name (its class side), a literal, `X fields: {...}`, `r with: {...}` (what `r` is),
  `(a. b)` (what `b` is), both literal branches of `ifTrue:ifFalse:`;
- a send to a known class, as the checker's lookup answers it: a method answers what its body
  and its `^`s do, a library signature its receiver, a class, or what its literal blocks answer
  (`try: [...] onError: [...]`), `X new` an X, a field what every record writing a field of that
  name anywhere does;
- a name every binding of which in the method (`x := e`, never a parameter) is one of the above.
Answers and fields are solved as a least fixed point, so a recursive method answers what its
other branches do. A selector typed by rule (`parts.forms`: `spawn:`, `receive:` ...), a
cascade's messages, `Dynamic`, proxies, parameters and the selectors a send names by Symbol
(named_sends.py) keep the fallback.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.library import CLASS_SIGS, INSTANCE_SIGS, PARAMS, UNIVERSAL_SIGS
from lp.types.named_sends import selectors_named

UNKNOWN = None
OPEN_SELF = ("Object", "Number")   # classes whose methods' `self` is a type variable (infer.self_type)
# classes whose sends are typed as sends to another class (proxies.py), and the escape
NOT_NOMINAL = frozenset({"Dynamic", "Remote", "GrainRef"})
LITERALS = {A.IntLit: "Integer", A.FloatLit: "Float", A.StrLit: "String", A.CharLit: "Character",
            A.SymLit: "Symbol", A.LitArray: "Array", A.BraceArray: "Array", A.Block: "Block"}
BRANCHES = ("ifTrue:ifFalse:", "ifFalse:ifTrue:")


def _union(parts):
    """Every class of the parts (empty: none known yet), UNKNOWN if one part is."""
    out = set()
    for p in parts:
        if p is UNKNOWN:
            return UNKNOWN
        out |= p
    return frozenset(out)


class Receivers:
    """What the expressions of one method (or of the main program, `mi` None) are, as far as the
    syntax tells: a set of (class name, class side) roots, or UNKNOWN."""

    def __init__(self, graph, mi, body):
        self.graph, self.mi, self.nodes = graph, mi, body
        self.bindings: dict[str, list] = {}
        self.params: set[str] = {p.name for p in mi.decl.params} if mi is not None else set()
        for n in body:
            if type(n) is A.Assign:
                self.bindings.setdefault(n.name, []).append(n.value)
            elif type(n) is A.Block:
                self.params.update(p.name for p in n.params)
        self.memo: dict[int, object] = {}
        self.busy: set[str] = set()

    def of(self, node):
        key = id(node)
        if key not in self.memo:
            self.memo[key] = self._of(node)
        return self.memo[key]

    def _of(self, node):
        t = type(node)
        if t is A.Name:
            return self._name(node.name)
        lit = LITERALS.get(t)
        if lit is not None:
            return frozenset({(lit, False)})
        if t is A.Sequence:
            return self.of(node.body[-1]) if node.body else UNKNOWN
        if t is A.Return or t is A.Assign:
            return self.of(node.value)
        if t is A.Send:
            return self._send(node)
        return UNKNOWN

    def _name(self, name):
        mi = self.mi
        if name in ("self", "super"):
            # `super` is typed as `self` (infer.i_Name); only its own sends start higher (edges_of)
            if mi is None or mi.cls.name in OPEN_SELF:
                return UNKNOWN
            return frozenset({(mi.cls.name, mi.class_side)})
        if name in self.params:
            return UNKNOWN
        values = self.bindings.get(name)
        if values is not None:
            if name in self.busy:
                return UNKNOWN
            self.busy.add(name)
            try:
                return _union(self.of(v) for v in values)
            finally:
                self.busy.discard(name)
        if name in self.graph.ck.table.classes:
            return frozenset({(name, True)})
        return UNKNOWN

    def _send(self, node):
        graph = self.graph
        sel, args = node.selector, node.args
        if sel in BRANCHES and not graph.by_sel.get(sel) and all(type(a) is A.Block and a.body for a in args):
            return _union(self.block_value(a) for a in args)
        recv = self.of(node.receiver)
        if recv is UNKNOWN:
            return UNKNOWN
        if sel == "with:" and type(args[0]) is A.Record:
            return recv if all(not side for _, side in recv) else UNKNOWN
        if sel == "fields:" and type(args[0]) in (A.Record, A.BraceArray):
            return frozenset((c, False) for c, _ in recv) if all(side for _, side in recv) else UNKNOWN
        if graph.by_rule(sel):
            return UNKNOWN
        return _union(graph.answer(c, side, sel, node, self) for c, side in recv)

    def block_value(self, block):
        """What a literal block answers when it runs to its end."""
        if type(block) is not A.Block:
            return UNKNOWN
        if not block.body:
            return frozenset({("UndefinedObject", False)})
        last = block.body[-1]
        return UNKNOWN if type(last) is A.Return else self.of(last)


class MethodGraph:
    def __init__(self, ck, statements=()):
        self.ck = ck
        self.methods = ck.method_list
        self.statements = statements
        self.index = {id(mi): i for i, mi in enumerate(self.methods)}
        self.by_sel: dict[str, list[int]] = {}
        for i, mi in enumerate(self.methods):
            self.by_sel.setdefault(mi.decl.selector, []).append(i)
        self.nodes = [list(A.walk(mi.decl.body)) for mi in self.methods]
        self.hierarchy_memo: dict[str, list] = {}
        forms = ck.parts.forms
        prefixes = tuple(p for p, _ in ck.parts.prefix_forms)
        self.by_rule = lambda sel: sel in forms or sel.startswith(prefixes)
        self._receivers: dict[int, Receivers] = {}   # method index (None: the main program) -> its Receivers
        self._writes = None
        self.answers: dict[tuple, object] = {}   # ("method", index) or ("field", name) -> classes so far
        self.computes: dict[tuple, object] = {}
        self.solved = False

    def receivers(self, i):
        rec = self._receivers.get(i)
        if rec is None:
            if i is None:
                rec = Receivers(self, None, [n for s in self.statements for n in A.walk(s)])
            else:
                rec = Receivers(self, self.methods[i], self.nodes[i])
            self._receivers[i] = rec
        return rec

    def writes(self, f):
        """The values written to fields named f by a record anywhere, each with where it is written
        (a method's index, None for the main program)."""
        if self._writes is None:
            self._writes = {}
            main = self.receivers(None).nodes
            for i, nodes in [*enumerate(self.nodes), (None, main)]:
                for n in nodes:
                    if type(n) is A.RecordField:
                        self._writes.setdefault(n.name, []).append((n.value, i))
        return self._writes.get(f)

    def answer(self, cname, side, sel, node, rec):
        """What `sel` answers for a receiver of static class `cname` (its class side if `side`), typed as
        the checker's lookup (infer.send, class_send) would: the first definition up the chain."""
        if cname in NOT_NOMINAL:
            return UNKNOWN
        for info in self.ck.table.chain(cname):
            mi = (info.cmethods if side else info.methods).get(sel)
            if info.builtin and not (side and mi is not None):
                if info.name == "Object" and not side:   # typed by the universal signatures
                    if sel in UNIVERSAL_SIGS:
                        return UNKNOWN
                    sig = None
                else:
                    sig = (CLASS_SIGS if side else INSTANCE_SIGS).get(info.name, {}).get(sel)
                if sig is not None:
                    if sig.special:
                        return frozenset({(cname, False)}) if side and sel == "new" else UNKNOWN
                    return self._sig_answer(sig, cname, side, node, rec)
            if mi is not None:
                return self._method_answer(mi)
            if not side and sel in info.field_types:
                return UNKNOWN if info.builtin or sel == "reply" else self._field_answer(sel)
        return UNKNOWN

    def _sig_answer(self, sig, cname, side, node, rec):
        result = sig.result
        if result[0] == "var":   # what the literal blocks it runs answer (`try: Block[a] ... -> a`)
            blocks = [a for s, a in zip(sig.args, node.args)
                      if s[0] == "con" and s[1] == "Block" and s[2] and s[2][-1] == result]
            return _union(rec.block_value(b) for b in blocks) if blocks else UNKNOWN
        if result[0] == "self":
            return frozenset({(cname, False)}) if not (side and cname in PARAMS) else UNKNOWN
        if result[0] == "con" and result[1] in self.ck.table.classes and result[1] not in NOT_NOMINAL:
            return frozenset({(result[1], False)})
        return UNKNOWN

    def _approximation(self, key, compute):
        """The current value of a method's answer or a field's contents (solve): none known yet at first;
        once solved, none is UNKNOWN (nothing tells the class)."""
        if key not in self.answers:
            if self.solved:
                return UNKNOWN
            self.answers[key] = frozenset()
            self.computes[key] = compute
        r = self.answers[key]
        return UNKNOWN if self.solved and not r else r

    def _method_answer(self, mi):
        i = self.index[id(mi)]

        def compute():
            rec = self.receivers(i)
            return _union([rec.of(mi.decl.body)] + [rec.of(n.value) for n in self.nodes[i] if type(n) is A.Return])
        return self._approximation(("method", i), compute)

    def _field_answer(self, f):
        writes = self.writes(f)
        if not writes:
            return UNKNOWN
        return self._approximation(("field", f), lambda: _union(self.receivers(i).of(v) for v, i in writes))

    def solve(self, methods):
        """The least fixed point of the answers the sends of `methods` need: a recursive method
        answers what its other branches do (the checker unifies each `^` and the body's value with
        one result type)."""
        for i in methods:
            self.edges_of(i)
        while True:
            for rec in self._receivers.values():
                rec.memo.clear()
            known = len(self.computes)
            changed = False
            for key, compute in list(self.computes.items()):
                new = compute()
                if new != self.answers[key]:
                    self.answers[key] = new
                    changed = True
            if not changed and len(self.computes) == known:
                break
        self.solved = True
        for rec in self._receivers.values():
            rec.memo.clear()

    def hierarchy(self, cname):
        """The class, its ancestors and its descendants."""
        h = self.hierarchy_memo.get(cname)
        if h is None:
            table = self.ck.table
            h = list(table.chain(cname))
            todo = list(table.classes[cname].subclasses) if cname in table.classes else []
            while todo:
                c = table.classes.get(todo.pop())
                if c is not None:
                    h.append(c)
                    todo.extend(c.subclasses)
            self.hierarchy_memo[cname] = h
        return h

    def reached(self, roots, sel, exact_chain):
        """The methods named `sel` a receiver of one of `roots` may run."""
        out = []
        table = self.ck.table
        for cname, side in roots:
            infos = table.chain(cname) if exact_chain else self.hierarchy(cname)
            for info in infos:
                mi = (info.cmethods if side else info.methods).get(sel)
                if mi is not None:
                    out.append(self.index[id(mi)])
            if side:   # classes are objects: Object's instance methods answer them too
                om = table.classes["Object"].methods.get(sel)
                if om is not None:
                    out.append(self.index[id(om)])
        return out

    def edges_by_name(self, i):
        """The methods named as method i's sends."""
        out = set()
        by_sel = self.by_sel
        for n in self.nodes[i]:
            t = type(n)
            if t is A.Send or t is A.Message:
                sel = n.selector
                if sel not in UNIVERSAL_SIGS:   # see edges_of
                    out.update(by_sel.get(sel, ()))
                for named in selectors_named(n):
                    out.update(by_sel.get(named, ()))
        return sorted(out)

    def edges_of(self, i):
        """The methods method i's sends may run, narrowed by the receivers' classes."""
        mi = self.methods[i]
        receivers = self.receivers(i)
        out = set()
        for n in self.nodes[i]:
            t = type(n)
            if t is not A.Send and t is not A.Message:
                continue
            sel = n.selector
            # A universal selector is typed by its library signature, which every override must
            # have, so its senders need not wait for (or be grouped with) the overrides.
            if sel not in UNIVERSAL_SIGS:
                roots = receivers.of(n.receiver) if t is A.Send and not self.by_rule(sel) else UNKNOWN
                if roots is UNKNOWN:
                    out.update(self.by_sel.get(sel, ()))
                elif type(n.receiver) is A.Name and n.receiver.name == "super" and not mi.class_side:
                    out.update(self.reached({(mi.cls.superclass, False)}, sel, True))
                else:
                    out.update(self.reached(roots, sel, False))
            for named in selectors_named(n):
                out.update(self.by_sel.get(named, ()))
        return sorted(out)

    def groups(self):
        """The components, dependencies first, as lists of method indices. Narrowing only removes edges, so
        it can only split a component of the graph by name alone: only those with several methods
        are looked at again, and the pieces take their place, dependencies first. So the order of
        independent components stays the one by name: it matters, since the types of fields and of
        actor protocols are shared by every method (what one is taken to be first shows in the
        diagnostics)."""
        everything = list(range(len(self.methods)))
        by_name = components(everything, [self.edges_by_name(i) for i in everything])
        joined = [i for g in by_name if len(g) > 1 for i in g]
        if joined:
            self.solve(joined)
        out = []
        for g in by_name:
            if len(g) == 1:
                out.append(g)
                continue
            members = set(g)
            out.extend(components(sorted(g), {i: [j for j in self.edges_of(i) if j in members] for i in g}))
        return out


def components(vertices, edges):
    """Strongly connected components of the graph (edges[v]: v's successors), dependencies first
    (Tarjan, iterative)."""
    index = {}
    low = {}
    on = set()
    stack = []
    groups = []
    counter = 0
    for root in vertices:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            recurse = False
            es = edges[v]
            while i < len(es):
                w = es[i]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                g = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    g.append(w)
                    if w == v:
                        break
                groups.append(g)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return groups
