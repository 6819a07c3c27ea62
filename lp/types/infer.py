"""The inference engine: declarations, method groups, statements and expressions.

Algorithm W with level-based generalisation. Methods are inferred in groups
(strongly connected components of "sends a selector that method defines"),
each group monomorphically, then generalised; top-level and block bindings
`x := v` are generalised when v is a syntactic value (block, literal, name).
Sends to receivers whose class is not known yet are deferred (constraints.py).
"""
from __future__ import annotations

from lp.classdecls import validate
from lp.syntax import ast as A
from lp.types import constraints as C
from lp.types import problems as P
from lp.types import overrides
from lp.types import traps
from lp.types.classes import ClassInfo, ClassTable, MethodInfo
from lp.types.errors import Reporter, did_you_mean
from lp.types.generics import align, filled, own_template, param_of
from lp.types.method_graph import MethodGraph
from lp.types.reports import class_problem
from lp.types.library import (BRANCHING_SIGS, CLASS_SIGS, FIELD_SIGS, INSTANCE_SIGS, INTERNAL, PARAMS,
                              UNIVERSAL_SIGS, builtin_owners)
from lp.types.terms import DYN, ERR, TCon, TProto, TSpecial, TVar, con, free_vars, prune, show
from lp.types.unify import Clash, Instantiator, Unifier, generalize

VALUE_NODES = (A.Block, A.IntLit, A.FloatLit, A.StrLit, A.CharLit, A.SymLit, A.LitArray, A.Name)
class Typed:
    """A receiver already typed: a cascade's, as the receiver of the send made of one of its messages."""
    __slots__ = ("t", "span")

    def __init__(self, t, span):
        self.t, self.span = t, span


# How often a method may be instantiated again along one chain of deferred sends before its calls
# there share one instance (Checker.call_method).
UNFOLDINGS = 4


def _unfolded(chain, key) -> int:
    """How often `key` occurs in the linked chain (up to UNFOLDINGS)."""
    n = 0
    while chain is not None and n < UNFOLDINGS:
        if chain[0] == key:
            n += 1
        chain = chain[1]
    return n

# Selectors whose block arguments' values are thrown away.
DISCARDING = {"do:", "timesRepeat:", "to:do:", "keysDo:", "valuesDo:", "keysAndValuesDo:", "doWithIndex:",
              "reverseDo:", "do:separatedBy:", "associationsDo:", "ensure:", "ifCurtailed:", "whileTrue:",
              "whileFalse:", "ifTrue:", "ifFalse:", "ifPresent:", "ifNotNil:", "spawn:"}


# Equality and hashing are structural for every value (values are immutable): not redefinable.
STRUCTURAL_SELECTORS = frozenset({"=", "~=", "==", "~~", "hash"})


class Var:
    __slots__ = ("type", "generic", "span")

    def __init__(self, t, generic, span):
        self.type, self.generic, self.span = t, generic, span


class Scope:
    __slots__ = ("vars", "parent", "block")

    def __init__(self, parent=None, block=False):
        self.vars = {}
        self.parent = parent
        self.block = block      # the scope of a block's parameters and body

    def lookup(self, name):
        s = self
        while s is not None:
            v = s.vars.get(name)
            if v is not None:
                return v
            s = s.parent
        return None

    def names(self):
        out = set()
        s = self
        while s is not None:
            out.update(s.vars)
            s = s.parent
        return out


class Cx:
    """Where an expression is: the method's class and side, its result, and the current actor."""
    __slots__ = ("cls", "class_side", "self_t", "result", "actor", "in_spawn")

    def __init__(self, cls, class_side, self_t, result, actor, in_spawn=False):
        self.cls, self.class_side, self.self_t = cls, class_side, self_t
        self.result, self.actor, self.in_spawn = result, actor, in_spawn


def _demands(t):
    """What a method needs of an argument of type t: the deferred sends waiting on it, or None if fixed."""
    t = prune(t)
    if type(t) is not TVar:
        return None
    cs = [c.force() if type(c) is C.Lazy else c for c in (t.pending or ()) if type(c) is not C.Mark]
    return frozenset((type(c).__name__, getattr(c, "selector", None) or getattr(c, "op", None)) for c in cs)


def _overrides_nothing(mi) -> bool:
    """A method no override check compares (its class has no superclass but Object and no subclasses,
    and the selector is none of Object's): its deferred sends to a field may stay generic in their
    arguments (C.OuterSend), which makes its type more general than one an override could match."""
    cls = mi.cls
    if mi.class_side or cls.builtin or cls.subclasses or cls.superclass != "Object":
        return False
    sel = mi.decl.selector
    return sel not in UNIVERSAL_SIGS


RECEIVES = ("receive", "receive:", "receive:after:do:")


def _receives_on_first_param(block) -> bool:
    """Does the block take messages on its first parameter as an actor does: a plain `receive`, or
    `receive:` with a dispatch table (`ws receive: 2000` is a WebSocket's, typed like any send)?"""
    if not block.params:
        return False
    me = block.params[0].name
    return any(type(n) is A.Send and n.selector in RECEIVES and type(n.receiver) is A.Name
               and n.receiver.name == me and (not n.args or type(n.args[0]) is A.DispatchTable)
               for n in A.walk(block))


def _within(part, whole) -> bool:
    """Is the type `part` `whole` itself or one of its components?"""
    part, whole = prune(part), prune(whole)
    if part is whole:
        return True
    return type(whole) is TCon and any(_within(part, a) for a in whole.args)


class Checker(Unifier, Reporter):
    """One check of one program. `parts` (lp/types/parts.py) holds the sends typed by rule
    (special.py) and the actor sends and receives (actors.py): `parts.forms`, `parts.sends` and
    `parts.class_sends` are consulted in `i_Send`, `send` and `class_send`; constraints.py calls
    `parts.numeric`, `check_element`, `with_fields`, `check_reason` and `ask` when a variable is bound.
    `generic` names the fields that are type parameters (generics.py)."""

    def __init__(self, parts, generic=None):
        Unifier.__init__(self)
        Reporter.__init__(self)
        self.parts = parts
        self.table = ClassTable()
        self.generic: dict[str, list[str]] = generic or {}   # class -> its generic fields (generics.py)
        self.remote: set[str] = set()   # classes a Remote proxy names (proxies.proxied_classes)
        self.recursive_fields: dict = {}   # class -> field -> its first-pass type naming the class (generics.py)
        self.deep_instances: dict = {}   # id(MethodInfo) -> its one instance past UNFOLDINGS (call_method)
        self.stated = False   # the program's statements have been checked by this checker (check.py)
        self.level = 1
        self.outer_sends = False    # inside a method whose field sends may stay generic (C.OuterSend)
        self.types: dict[int, tuple] = {}
        self.discarded: set[int] = set()   # nodes whose value the last inference of them threw away
        self.protocols: list[TProto] = []
        self.owners: dict[str, set[str]] = {}
        self._user_selectors: set[str] | None = None
        self._class_selectors = None   # every selector some class itself understands, once declared
        self.method_list: list[MethodInfo] = []
        self.statements: list = []      # the main programs' statements (of every module), once declared
        self.plan = None                # the method groups, as indices into method_list (method_groups)
        self.proxied: set[str] = set()   # classes a literal proxy (Remote, Grain) names (lp/types/proxies.py)
        self.proxy_contexts: list = []   # (protocol, proxy class): the actors proxied calls run in (proxies.py)
        self.grain_states: dict = {}    # id(node) -> (node, type): `Grain for: C initial: node` (grain_shapes.py)
        self.constructions: list = []   # constructors sent to a class value, judged at the end (overrides.py)
        self.order = None               # statement order of the main program and spawn bodies (order.py)

    # ---- small helpers ------------------------------------------------------------
    def record(self, node, t):
        self.types[id(node)] = (node, t)
        return t

    def fresh(self):
        return TVar(self.level)

    def new_proto(self, why=None, origin=None):
        p = TProto(self.level)
        p.why = why
        if origin is not None:
            p.origins = (origin,)
        self.protocols.append(p)
        return p

    def instantiate(self, t):
        return Instantiator(self, self.level)(t)

    def copy_require(self, r, inst):
        from lp.types.terms import Require
        return Require(inst(r.msg), r.span, r.literal, r.runtime)

    def watch(self, var, constraint):
        # only a send whose arguments are the method's own (`self x + y`): one whose arguments are fixed
        # (`self name , ' of'`) answers one type, the field's, and stays a plain constraint
        if type(constraint) is C.Send and self.outer_sends and \
                any(v.level > var.level for v in free_vars(constraint.args)):
            o = C.OuterSend(constraint, var.level)
            Unifier.watch(self, var, C.Outer(o))
            self.mark_outer(o)
            return
        self.adjust_many(constraint.types(), var.level)
        Unifier.watch(self, var, constraint)

    def mark_outer(self, o):
        """Note the outer send on each of its variables that may be generalised (C.OuterSend)."""
        for v in free_vars(o.inner()):
            if v.level > o.level and not any(type(c) is C.Mark and c.outer is o for c in v.pending or ()):
                Unifier.watch(self, v, C.Mark(o))

    def outer_instance(self, o, each):
        """One instantiation's copy of an outer send (`each` maps the scheme's variables), watched
        on its receiver or fired now if the receiver's class is known."""
        copy = o.send.copy(each)
        r = prune(copy.recv)
        if type(r) is TVar:
            self.watch(r, copy)
        else:
            self.queue.append(copy)

    def instance_of_outer(self, o):
        """A copy of a generalised outer send with fresh variables: the method's own check of it."""
        inst = Instantiator(self, self.level)
        inst.outers.add(id(o))
        return o.send.copy(inst)

    def unify_result(self, expected, actual, node):
        clash = self.unify(expected, actual)
        if clash:
            self.report(P.Mismatch("use", (), clash, node.span, expected, actual))

    # ---- declarations ---------------------------------------------------------------
    def declare(self, items):
        self.statements = [i for i in items if not isinstance(i, (A.ClassDecl, A.MethodDecl, A.Import))]
        classes = [i for i in items if isinstance(i, A.ClassDecl)]
        builtins = {name: (info.superclass, tuple(info.fields)) for name, info in self.table.classes.items()}
        v = validate(classes, builtins)
        names = list(self.table.classes) + [d.name for d in v.kept]
        for p in v.problems:
            near = did_you_mean(p.decl.superclass, names) if p.kind == "unknown superclass" else None
            self.add(class_problem(p, near))
        for d in v.kept:
            self.table.classes[d.name] = ClassInfo(d.name, v.superclass[d.name], d)
        for d in v.kept:
            info = self.table.classes[d.name]
            self.table.classes[info.superclass].subclasses.append(d.name)
            info.fields = list(v.fields[d.name])
            info.field_types = {f: TVar(0) for f in info.fields}
        for d in v.kept:   # once every class has its fields: a subclass's parameters include inherited ones
            info = self.table.classes[d.name]
            info.params = [f for f in self.table.all_fields(d.name) if f in self.generic.get(d.name, ())]
            for f, t in self.recursive_fields.get(d.name, {}).items():
                info.field_types[f], info.templates[f] = own_template(info, t)
        for m in (i for i in items if isinstance(i, A.MethodDecl)):
            info = self.table.get(m.class_name)
            if info is None:
                self.report(P.MethodOnUnknownClass(m.class_name, m.span, did_you_mean(m.class_name,
                                                                                      self.table.classes)))
                continue
            if not m.class_side and m.selector in STRUCTURAL_SELECTORS:
                self.report(P.EqualityBuiltIn(m.selector, m.span))
                continue
            problem = overrides.primitive_redefinition(self, m, info)
            if problem is not None:
                self.report(problem)
                continue
            table = info.cmethods if m.class_side else info.methods
            if m.selector in table:
                self.report(P.DuplicateMethod(m.class_name, m.selector, m.class_side, m.span,
                                              table[m.selector].decl.span))
                continue
            mi = MethodInfo(m, info, m.class_side)
            table[m.selector] = mi
            self.method_list.append(mi)
        self.owners = builtin_owners()
        for info in self.table.classes.values():
            if info.builtin:
                continue
            for f in info.fields:
                self.owners.setdefault(f, set()).add(info.name)
        for mi in self.method_list:
            if not mi.class_side:
                self.owners.setdefault(mi.decl.selector, set()).add(mi.cls.name)

    # ---- method groups -------------------------------------------------------------------
    def method_groups(self):
        """Strongly connected components of the method graph, dependencies first (method_graph.py). They
        depend on the declarations only, so a second pass over the same program (check.py) reuses them."""
        if self.plan is None:
            self.plan = MethodGraph(self, self.statements).groups()
        return [[self.method_list[i] for i in g] for g in self.plan]

    def self_type(self, info: ClassInfo, class_side: bool):
        if class_side:
            t = TCon(info.name + " class")
            t.open = bool(info.subclasses)   # the receiver may be a subclass (overrides.inherited_construction)
            return t
        if info.name in ("Object", "Number"):
            # Number has no instances of its own: its methods run on Integers and Floats, so their
            # `self` is a variable, like Object's, constrained by what the body sends it
            return self.fresh()
        return self.table.instance_type(info.name, level=self.level)

    def infer_methods(self):
        for group in self.method_groups():
            self.level = 1
            for mi in group:
                d = mi.decl
                ctx = self.new_proto()
                args = [self.fresh() for _ in d.params]
                mi.mono = TCon("Method", (TCon("Actor", (ctx,)), self.self_type(mi.cls, mi.class_side),
                                          *args, self.fresh()))
            for mi in group:
                self.guard(mi.decl, self.infer_method, mi)
            self.level = 0
            for mi in group:
                generalize(mi.mono, 0)
                mi.scheme = mi.mono
            self.level = 1
        for mi in self.method_list:
            self.guard(mi.decl, self.check_override, mi)
            traps.warn_recursion_in_one_branch(self, mi.decl)
        overrides.check_fields(self)
        overrides.check_object_methods(self)

    def infer_method(self, mi: MethodInfo):
        d = mi.decl
        ctx_t, self_t, *args, result = mi.mono.args
        scope = Scope()
        for p, t in zip(d.params, args):
            scope.vars[p.name] = Var(t, False, p.span)
            self.record(p, t)
        cx = Cx(mi.cls, mi.class_side, self_t, result, prune(ctx_t.args[0]))
        self.outer_sends = _overrides_nothing(mi)
        try:
            t = self.infer(d.body, scope, cx)
        finally:
            self.outer_sends = False
        clash = self.unify(result, t)
        if clash:
            self.report(P.Mismatch("method body", (), clash, d.body.span, result, t))
            # its answer has no one type: callers are not told about it again
            mi.mono = TCon("Method", (*mi.mono.args[:-1], ERR))
        self.record(d, mi.mono)

    def check_override(self, mi: MethodInfo):
        sel = mi.decl.selector
        info = mi.cls
        sig = None
        for anc in self.table.chain(info.name):
            if anc.builtin:
                if mi.class_side:
                    sig = CLASS_SIGS.get(anc.name, {}).get(sel)
                else:
                    sig = (INSTANCE_SIGS.get(anc.name, {}).get(sel) if anc.name != "Object"
                           else UNIVERSAL_SIGS.get(sel))
                    if sig is None and sel in FIELD_SIGS.get(anc.name, {}):   # a builtin field's reader
                        sig = overrides.FieldReader(FIELD_SIGS[anc.name][sel])
                if sig is not None:
                    break
        if sig is not None and not sig.special and len(sig.args) == len(mi.decl.params):
            mine = self.instantiate(mi.scheme)
            self_t = mine.args[1]
            if mi.class_side:   # on the class side, `Self` in a signature is an instance (as in class_send)
                self_t = self.table.instance_type(info.name, level=self.level) if info.name not in PARAMS else None
            env = self.sig_env(prune(self_t)) if not mi.class_side else {}
            expected = [self.build(a, env, self_t) for a in sig.args] + [self.build(sig.result, env, self_t)]
            before = [_demands(x) if i < len(sig.args) and sig.args[i][0] == "var" else None
                      for i, x in enumerate(expected)]
            general = overrides.fresh_vars(expected, self.level)
            shown = overrides.texts(expected, mine.args[2:], self_t)
            for i, (x, y) in enumerate(zip(expected, mine.args[2:])):
                if i == len(expected) - 1 and self.narrower_arguments(mi, expected, before, P.MethodName(None, sel),
                                                                      None):
                    return
                clash = self.unify(overrides.blamed(x, y, mi, self.level), y)
                if clash:
                    self.report(P.Mismatch("library override", (overrides.method_name(mi), sel, i + 1,
                                                                i == len(expected) - 1),
                                           clash, mi.decl.span, x, y, title="incompatible override"))
                    return
            if overrides.less_general(general, self.level):
                overrides.report(self, mi, *shown, P.MethodName(None, sel), None)
            return
        for anc in self.table.chain(info.superclass) if info.superclass else []:
            if not mi.class_side and not anc.builtin and sel in anc.fields:
                return overrides.check_method_over_field(self, mi, anc, sel)
            table = anc.cmethods if mi.class_side else anc.methods
            parent = table.get(sel)
            if parent is not None and parent.scheme is not None:
                return self.check_against(mi, parent, P.MethodName(anc.name, sel, mi.class_side))
        om = self.table.classes["Object"].methods.get(sel)
        if mi.class_side and om is not None and om.scheme is not None:
            # classes are objects: a class-side method overrides, for its class, the method on Object
            self.check_against(mi, om, P.MethodName("Object", sel))

    def check_against(self, mi: MethodInfo, parent: MethodInfo, whose):
        """User method `mi` overrides the user method `parent` (named `whose`): at least as general."""
        mine = self.instantiate(mi.scheme)
        theirs = self.instantiate(parent.scheme)
        if type(prune(theirs.args[1])) is TVar:   # a method on Object: its self is the override's
            self.unify(theirs.args[1], mine.args[1])
        general = overrides.fresh_vars(theirs.args[2:], self.level)
        shown = overrides.texts(theirs.args[2:], mine.args[2:], theirs.args[1])
        before = [_demands(x) for x in theirs.args[2:-1]]
        for i, (x, y) in enumerate(zip(theirs.args[2:], mine.args[2:])):
            answer = i == len(mine.args) - 3
            if answer and self.narrower_arguments(mi, theirs.args[2:], before, whose, parent.decl):
                return
            if answer and overrides.covariant_answer(self, x, y):
                continue
            clash = self.unify(overrides.blamed(x, y, mi, self.level), y)
            if clash:
                self.report(P.Mismatch("override", (overrides.method_name(mi), whose, i + 1,
                                                    i == len(mine.args) - 3), clash, mi.decl.span, x, y,
                                       None if self._why_in(clash) else parent.decl.span, "incompatible override"))
                return
        if overrides.less_general(general, self.level):
            overrides.report(self, mi, *shown, whose, parent.decl)

    def narrower_arguments(self, mi: MethodInfo, theirs, before, whose, parent_decl):
        """An override must take every argument the overridden method takes: no new demands on them."""
        for i, (x, had) in enumerate(zip(theirs, before)):
            if had is None:
                continue
            now = prune(x)
            if type(now) is TCon:
                only, sels = show(now), []
            elif type(now) is TVar and _demands(now) - had:
                only, sels = None, sorted(s for _, s in _demands(now) - had if s)
            else:
                continue
            self.report(P.NarrowerOverride(overrides.method_name(mi), i + 1, only, sels, whose, mi.decl.span,
                                           parent_decl.span if parent_decl else None))
            return True
        return False

    def guard(self, node, fn, *args):
        """Run one unit of checking; an internal failure becomes a diagnostic, never a traceback."""
        try:
            return fn(*args)
        except RecursionError:
            self.report(P.InternalError("nesting", "", getattr(node, "span", None)))
        except Exception as e:  # noqa: BLE001 - the checker must never raise
            self.report(P.InternalError("code", f"{type(e).__name__}: {e}", getattr(node, "span", None)))
        self.queue.clear()
        return ERR

    # ---- statements ------------------------------------------------------------------------
    def infer_body(self, stmts, scope, cx, discard_last):
        t = TCon("UndefinedObject")
        n = len(stmts)
        for i, s in enumerate(stmts):
            t = self.infer_stmt(s, scope, cx, discard_last or i < n - 1)
            if discard_last or i < n - 1:
                traps.warn_discarded(self, s)
        return t

    def infer_stmt(self, s, scope, cx, discard):
        if type(s) is A.Assign:
            traps.check_rebinding(self, s, scope)
            self.level += 1
            t = self.infer(s.value, scope, cx)
            self.level -= 1
            generic = isinstance(s.value, VALUE_NODES)
            if generic:
                generalize(t, self.level)
            else:
                self.adjust(t, self.level)
            scope.vars[s.name] = Var(t, generic, s.name_span)
            self.record(s, t)
            return self.instantiate(t) if generic else t
        if type(s) is A.Return:
            t = self.infer(s.value, scope, cx)
            if cx.result is None:
                if cx.in_spawn:
                    self.report(P.ReturnOutsideMethod(True, s.span))
                else:
                    self.report(P.ReturnOutsideMethod(False, s.span))
            else:
                clash = self.unify(cx.result, t)
                if clash:
                    self.report(P.Mismatch("return", (), clash, s.value.span, cx.result, t))
            self.record(s, t)
            return self.fresh()
        return self.infer(s, scope, cx, discard)

    # ---- expressions ------------------------------------------------------------------------
    def infer(self, node, scope, cx, discard=False):
        m = getattr(self, "i_" + type(node).__name__, None)
        if m is None:
            self.report(P.InternalError("node", type(node).__name__, getattr(node, "span", None)))
            return ERR
        t = m(node, scope, cx, discard)
        self.types[id(node)] = (node, t)
        if discard:
            self.discarded.add(id(node))
        else:
            self.discarded.discard(id(node))
        return t

    def i_IntLit(self, n, scope, cx, discard):
        return TCon("Integer", (), n.span)

    def i_FloatLit(self, n, scope, cx, discard):
        return TCon("Float", (), n.span)

    def i_StrLit(self, n, scope, cx, discard):
        return TCon("String", (), n.span)

    def i_CharLit(self, n, scope, cx, discard):
        return TCon("Character", (), n.span)

    def i_SymLit(self, n, scope, cx, discard):
        return TCon("Symbol", (), n.span)

    def i_LitArray(self, n, scope, cx, discard):
        elem = self.fresh()
        first = None
        clashes = []   # (item, clash, its type): reported once, as one root cause
        for item in n.items:
            t = self.infer(item, scope, cx)
            clash = self.unify(elem, t)
            if clash:
                clashes.append((item, clash, t))
            first = first or item
        if len(clashes) == 1:
            item, clash, t = clashes[0]
            self.report(P.Mismatch("element", (), clash, item.span, elem, t,
                                   first.span if first and not self._why_in(clash) else None))
        elif clashes:
            kinds = []
            for t in [elem] + [t for _, _, t in clashes]:
                if show(t) not in kinds:
                    kinds.append(show(t))
            self.report(P.MixedArray(kinds, n.span, clashes[0][0].span))
        return TCon("Array", (elem,), n.span)

    def i_BraceArray(self, n, scope, cx, discard):
        return self.i_LitArray(n, scope, cx, discard)

    def i_Record(self, n, scope, cx, discard):
        for f in n.fields:
            self.infer(f.value, scope, cx)
        self.report(P.RecordOutOfPlace(n.span))
        return ERR

    def i_DispatchTable(self, n, scope, cx, discard):
        # outside receive: it is what it is written as, an array of Associations (the interpreter agrees)
        pairs = tuple(A.Send(e.key, "->", (e.handler,), e.span, e.span) for e in n.entries)
        return self.i_LitArray(A.BraceArray(pairs, n.span), scope, cx, discard)

    def i_Sequence(self, n, scope, cx, discard):
        return self.infer_body(n.body, Scope(scope), cx, discard)

    def i_Assign(self, n, scope, cx, discard):
        return self.infer_stmt(n, scope, cx, discard)

    def i_Return(self, n, scope, cx, discard):
        return self.infer_stmt(n, scope, cx, discard)

    def i_Block(self, n, scope, cx, discard, param_types=None, runner=None):
        """A block runs in the actor that runs it (`runner` when known: a spawn's, a receive handler's),
        which is its type's `ctx`: the body is checked with that as `Actor self`, and whoever runs the
        block (`value`, a library method, `spawn:`) unifies it with its own actor (`run_in`)."""
        if runner is None:
            runner = TProto(self.level)
        if param_types is None and _receives_on_first_param(n):
            # `body := [:me | me receive: ...]`: a spawn body written before its spawn; it is run by
            # the actor it receives on
            param_types = [TCon("Actor", (runner,), n.span)]
        cx = Cx(cx.cls, cx.class_side, cx.self_t, cx.result, runner, in_spawn=cx.in_spawn)
        inner = Scope(scope, block=True)
        ps = []
        for i, p in enumerate(n.params):
            t = param_types[i] if param_types is not None and i < len(param_types) else self.fresh()
            inner.vars[p.name] = Var(t, False, p.span)
            self.record(p, t)
            ps.append(t)
        if n.body and type(n.body[-1]) is A.Return:
            self.infer_body(n.body, inner, cx, True)
            r = self.fresh()
        else:
            r = self.infer_body(n.body, inner, cx, discard) if n.body else TCon("UndefinedObject", (), n.span)
            if discard:
                r = self.fresh()
        t = TCon("Block", (*ps, r), n.span)
        t.ctx = runner
        return t

    def run_in(self, t, actor):
        """A block of type t runs in `actor` (a protocol): its `Actor self` is that actor."""
        b = prune(t)
        if type(b) is TCon and b.name == "Block" and actor is not None:
            if b.ctx is None:
                b.ctx = actor
            else:
                self.unify(b.ctx, actor)

    def block_arg(self, node, scope, cx, discard):
        if type(node) is A.Block:
            t = self.i_Block(node, scope, cx, discard)
            self.types[id(node)] = (node, t)
            return t
        return self.infer(node, scope, cx)

    def i_Param(self, n, scope, cx, discard):
        return self.fresh()

    def i_Name(self, n, scope, cx, discard):
        name = n.name
        if name == "nil":
            return TCon("UndefinedObject", (), n.span)
        if name in ("true", "false"):
            return TCon("Boolean", (), n.span)
        if name in ("self", "super"):
            if cx.cls is None:
                self.report(P.SelfOutsideMethod(name, n.span))
                return ERR
            if name == "super" and cx.cls.superclass is None:
                self.report(P.NoSuperclass(cx.cls.name, n.span))
                return ERR
            return cx.self_t
        v = scope.lookup(name)
        if v is not None:
            return self.instantiate(v.type) if v.generic else v.type
        if name[:1].isupper():
            if name in self.table.classes:
                return TCon(name + " class", (), n.span)
            near = did_you_mean(name, list(self.table.classes) + list(scope.names()))
            self.report(P.UnknownName(name, near, n.span))
            return ERR
        near = did_you_mean(name, scope.names())
        field_of = cx.cls.name if cx.cls is not None and not cx.class_side and \
            self.table.field_owner(cx.cls.name, name) is not None else None
        self.report(P.UnknownVariable(name, near, field_of, n.span))
        scope.vars[name] = Var(ERR, False, n.span)
        return ERR

    def i_Cascade(self, n, scope, cx, discard):
        """Each message is typed as a send to a receiver already typed (`Typed`), so that the sends typed
        by their syntax (`fields:` and `with:` with a record, `receive:` with a table) are typed alike."""
        rt = self.infer(n.receiver, scope, cx)
        t = rt
        for part in n.parts:
            t, span = rt, n.receiver.span
            for msg in part:
                send = A.Send(Typed(t, span), msg.selector, msg.args, msg.span, msg.span)
                t = self.i_Send(send, scope, cx, False)
                self.types[id(msg)] = (msg, t)
                span = msg.span
        traps.cascade_warning(self, n, rt, discard)
        return t

    def i_Typed(self, n, scope, cx, discard):
        return n.t

    # ---- sends ------------------------------------------------------------------------------
    def i_Send(self, n, scope, cx, discard):
        sel = n.selector
        recv = n.receiver
        args = n.args
        special = self.parts.forms.get(sel)
        if special is not None:
            r = special(self, n, scope, cx, discard)
            if r is not None:
                return r
        for prefix, form in self.parts.prefix_forms:
            if sel.startswith(prefix):
                r = form(self, n, scope, cx, discard)
                if r is not None:
                    return r
        super_send = type(recv) is A.Name and recv.name == "super" and cx.cls is not None
        rt = self.infer(recv, scope, cx)
        arg_discard = (sel in DISCARDING or (discard and sel in BRANCHING_SIGS)) and self.library_runs(rt, sel)
        ats = [self.block_arg(a, scope, cx, arg_discard) for a in args]
        start = cx.cls.superclass if super_send else None
        return self.send(rt, sel, ats, n, cx.actor, discard, arg_nodes=args, start=start)

    def send(self, rt, sel, ats, node, actor, discard, arg_nodes=(), start=None, deferred=False):
        r = prune(rt)
        tr = type(r)
        if tr is TSpecial:
            return r
        if tr is TVar:
            usig = UNIVERSAL_SIGS.get(sel)
            if usig is not None:
                return self.apply_sig(usig, r, ats, node, arg_nodes, discard, actor=actor)
            om = self.table.classes["Object"].methods.get(sel)
            if om is not None:
                return self.call_method(om, r, ats, node, actor, arg_nodes)
            owners = self.owners.get(sel)
            if not owners and not self.class_side_selector(sel):
                self.unknown_anywhere(sel, node)
                return ERR
            if owners and len(owners) == 1 and not self.class_side_selector(sel):
                (owner,) = owners
                if owner == "Block" and sel.startswith("value"):
                    return self.parts.sends[("Block", sel)](self, r, ats, node, actor, arg_nodes, discard)
                if not self.table.has_subclasses(owner) and owner not in self.proxied:
                    self.unify(r, self.table.instance_type(owner, why=None, level=r.level))
                    return self.send(r, sel, ats, node, actor, discard, arg_nodes, start, deferred)
            result = self.fresh()
            self.watch(r, C.Send(r, sel, list(ats), result, actor, node, arg_nodes, discard))
            return result
        if tr is TProto:
            return self.unknown_selector(r, sel, node)
        name = r.name
        if name.endswith(" class"):
            return self.class_send(r, name[:-6], sel, ats, node, actor, discard, arg_nodes)
        if name == "Method":
            return self.unknown_selector(r, sel, node)
        if name in ("Remote", "GrainRef") and self.parts.proxy_send is not None:
            t = self.parts.proxy_send(self, r, sel, ats, node, arg_nodes)
            if t is not None:
                return t
        for info in self.table.chain(start or name):
            if info.builtin:
                sig = INSTANCE_SIGS.get(info.name, {}).get(sel) if info.name != "Object" else UNIVERSAL_SIGS.get(sel)
                if sig is not None:
                    if info.name == "Block" and sel != "numArgs":
                        self.run_in(r, actor)    # value, whileTrue:, ensure:, repeat ... run the block here
                    if sig.special:
                        return self.parts.sends[(info.name, sel)](self, r, ats, node, actor, arg_nodes, discard)
                    if discard and sel in BRANCHING_SIGS:
                        sig = BRANCHING_SIGS[sel]
                    if (info.name, sel) in self.parts.runtime_messages:
                        self.parts.runtime_messages[(info.name, sel)](self, node, actor, arg_nodes)
                    return self.apply_sig(sig, r, ats, node, arg_nodes, discard, actor=actor)
            mi = info.methods.get(sel)
            if mi is not None:
                return self.call_method(mi, r, ats, node, actor, arg_nodes)
            if info.field_types and sel in info.field_types:
                return self.field_type(info, sel, node, r)
        return self.unknown_selector(r, sel, node)

    def class_send(self, r, cname, sel, ats, node, actor, discard, arg_nodes):
        for info in self.table.chain(cname):
            mi = info.cmethods.get(sel)   # the program's own class method, on a builtin class too
            if mi is not None:
                return self.call_method(mi, r, ats, node, actor, arg_nodes)
            sig = CLASS_SIGS.get(info.name, {}).get(sel) if info.builtin else None
            if sig is not None:
                internal = INTERNAL.get((info.name, sel))
                files = internal and (internal[0] if type(internal[0]) is tuple else (internal[0],))
                if internal is not None and (node.span is None or node.span.file not in files):
                    self.report(P.InternalSelector(info.name, sel, " and ".join(files), *internal[1:],
                                                   getattr(node, "selector_span", None) or node.span))
                    return ERR
                if sig.special:
                    overrides.inherited_construction(self, cname, sel, node, r)
                    t = self.parts.class_sends[sel](self, cname, ats, node, actor, arg_nodes, discard)
                    if sel in overrides.CLASS_ITSELF and type(t) is TCon:
                        t.open = r.open   # `self yourself` in a class-side method may be a subclass too
                    return t
                if discard and sel in BRANCHING_SIGS:
                    sig = BRANCHING_SIGS[sel]
                if (info.name + " class", sel) in self.parts.runtime_messages:
                    self.parts.runtime_messages[(info.name + " class", sel)](self, node, actor, arg_nodes)
                inst = self.table.instance_type(cname, level=self.level) if cname not in PARAMS else None
                return self.apply_sig(sig, inst, ats, node, arg_nodes, discard, class_side=True, actor=actor)
        om = self.table.classes["Object"].methods.get(sel)
        if om is not None:  # classes are objects: the class-side chain ends in Object's instance methods
            return self.call_method(om, r, ats, node, actor, arg_nodes)
        usig = UNIVERSAL_SIGS.get(sel)
        if usig is not None:   # ... and in what every value understands (`P isNil`, `P -> 1`)
            return self.apply_sig(usig, r, ats, node, arg_nodes, discard, actor=actor)
        return self.unknown_selector(r, sel, node)

    def run_method_in(self, mi: MethodInfo, actor):
        """Method mi runs in `actor` with receiver and arguments not known here (`Remote perform:`):
        its receives, its sends to `Actor self` and the messages the run time brings it belong there."""
        t = mi.scheme if mi.scheme is not None else mi.mono
        if t is None:
            return
        if mi.scheme is not None:
            t = self.instantiate(t)
        self.unify(t.args[0], TCon("Actor", (actor,)))

    def call_method(self, mi: MethodInfo, recv, ats, node, actor, arg_nodes):
        t = mi.scheme if mi.scheme is not None else mi.mono
        if t is None:  # an override of a universal selector, inferred in a later group
            return self.apply_sig(UNIVERSAL_SIGS[mi.decl.selector], recv, ats, node, arg_nodes, False, actor=actor)
        if mi.scheme is not None:
            unfolded = _unfolded(self.firing_chain, id(mi))
            if self._draining:   # what the instance's sends queue, now or when bound, follows this call
                self.firing_chain = (id(mi), self.firing_chain)
            if unfolded >= UNFOLDINGS:
                # A deferred send reaching the method again through the sends its own instances defer
                # (`Tree >> values` sending `k values` to the field's elements, once the field is known to
                # hold Trees): each instantiation copies the sends again, without an end. Past a few such
                # unfoldings the method's calls share one instance, as a recursive call within one
                # method group shares its method's type.
                t = self.deep_instances.get(id(mi))
                if t is None:
                    t = self.deep_instances[id(mi)] = self.instantiate(mi.scheme)
            else:
                t = self.instantiate(t)
        ctx_t, self_t, *params, result = t.args
        self.unify(ctx_t, TCon("Actor", (actor,)))
        if (mi.cls.builtin or mi.cls.params) and not mi.class_side:
            clash = align(self, self_t, recv)
            if clash:
                self.receiver_clash(mi, self_t, recv, node)
                return ERR
        for i, (p, a) in enumerate(zip(params, ats)):
            clash = self.unify(p, a)
            if clash:
                where = arg_nodes[i].span if i < len(arg_nodes) else node.span
                self.report(P.Mismatch("method argument", (i + 1, overrides.method_name(mi)), clash, where, p, a,
                                       None if self._why_in(clash) else mi.decl.span))
        return result

    def receiver_clash(self, mi: MethodInfo, self_t, recv, node):
        """A method on a builtin class (or `Object`) whose body only works for some receivers."""
        span = getattr(node, "selector_span", None) or node.span
        self.report(P.ReceiverClash(mi.cls.name, mi.decl.selector, show(self_t), show(recv), span, mi.decl.span))

    @staticmethod
    def _why_in(clash):
        e = prune(clash.expected)
        return isinstance(e, TCon) and e.why is not None and e.why.line > 0

    def field_type(self, info: ClassInfo, f, node, inst):
        """The type of field f (declared by `info`) of an instance of type `inst`: a generic field is one of
        the instance type's parameters (generics.py), any other the field's one type."""
        p = param_of(self, inst, f)
        if p is not None:
            return p
        t = info.field_types[f]
        if isinstance(t, tuple):
            return self.build(t, {}, None, why=node.span)
        holes = info.templates.get(f)
        if holes:
            i = prune(inst) if inst is not None else None
            args = i.args if type(i) is TCon and i.name == info.name and len(i.args) == len(holes) else \
                [self.fresh() for _ in holes]
            return filled(t, dict(zip(map(id, holes), args)))
        return t

    # ---- signatures ---------------------------------------------------------------------
    def build(self, sig, env, self_t, why=None):
        k = sig[0]
        if k == "var":
            t = env.get(sig[1])
            if t is None:
                t = env[sig[1]] = self.fresh()
            return t
        if k == "self":
            return self_t if self_t is not None else self.fresh()
        if k == "proto":
            p = self.new_proto()
            if sig[1] == "!":
                p.opaque = why
            return p
        name = sig[1]
        if name == "Dynamic":
            return DYN
        return TCon(name, tuple(self.build(a, env, self_t, why if a[0] == "proto" else None) for a in sig[2]), why)

    def sig_env(self, recv):
        env = {}
        if recv is not None and type(recv) is TCon:
            for pname, a in zip(PARAMS.get(recv.name, ()), recv.args):
                env[pname] = a
        return env

    def apply_sig(self, sig, recv, ats, node, arg_nodes, discard, class_side=False, actor=None):
        env = self.sig_env(recv) if not class_side else {}
        sel = sig.selector
        for i, (s, a) in enumerate(zip(sig.args, ats)):
            expected = self.build(s, env, recv, why=node.span)
            clash = self.unify(expected, a)
            if clash:
                self.arg_clash(sel, i, clash, expected, a, node, arg_nodes, recv, class_side)
            elif s[0] == "con" and s[1] == "Block":
                self.run_in(expected, actor)   # a library method runs the blocks it is given at once
        return self.build(sig.result, env, recv, why=node.span)

    def arg_clash(self, sel, i, clash, expected, actual, node, arg_nodes, recv, class_side=False):
        an = arg_nodes[i] if i < len(arg_nodes) else None
        span = an.span if an is not None else node.span
        rname = show(recv) if recv is not None else "the receiver"
        if sel in BRANCHING_SIGS and i > 0 and type(an) is A.Block and clash.kind == "mismatch" \
                and prune(expected).name == "Block" and an.body \
                and _within(clash.expected, prune(expected).args[-1]):
            last = an.body[-1]
            e_r = prune(prune(expected).args[-1])
            a_r = prune(prune(actual).args[-1]) if type(prune(actual)) is TCon else actual
            first = arg_nodes[0]
            self.report(P.Mismatch("branch", (sel,), Clash(e_r, a_r), last.span, e_r, a_r,
                                   None if self._why_in(Clash(e_r, a_r)) else first.span))
            return
        self.report(P.Mismatch("argument", (i + 1, len(arg_nodes) == 1, sel, rname), clash, span, expected, actual))

    # ---- errors about selectors ---------------------------------------------------------------
    def understood(self, t) -> set[str]:
        out = set()
        name = t.name
        if name.endswith(" class"):
            for info in self.table.chain(name[:-6]):
                out.update(info.cmethods)
                if info.builtin:
                    out.update(s for s in CLASS_SIGS.get(info.name, {}))
            return out
        for info in self.table.chain(name):
            out.update(info.methods)
            out.update(info.field_types)
            if info.builtin:
                out.update(INSTANCE_SIGS.get(info.name, {}))
        out.update(UNIVERSAL_SIGS)
        return out

    def unknown_selector(self, t, sel, node, remote=False):
        t = prune(t)
        span = getattr(node, "selector_span", None) or node.span
        if type(t) is TProto or t.name == "Method":
            self.report(P.ValueNotUnderstood(sel, span))
            return ERR
        cands = self.understood(t)
        near = did_you_mean(sel, cands)
        name = t.name
        because = (show(t), t.why) if t.why is not None and t.why.line > 0 and t.why != node.span and \
            not name.endswith(" class") else None
        instance_side = class_side = None
        if not near and name.endswith(" class") and sel in self.understood(
                self.table.instance_type(name[:-6], level=self.level)):
            instance_side = name[:-6]
        elif not near and not name.endswith(" class") and name in self.table.classes and \
                sel in self.understood(TCon(name + " class")):
            class_side = name   # for `Class` (what `x class` answers) reports.py says to name the class
        if sel == "with:" and not name.endswith(" class") and name in self.table.classes \
                and self.table.all_fields(name):
            arg = node.args[0] if getattr(node, "args", None) else None
            self.report(P.WithNeedsRecord(name, arg.span if arg is not None else span,
                                          type(arg) is A.BraceArray and not arg.items))
            return ERR
        self.report(P.NotUnderstood(name[:-6] if name.endswith(" class") else show(t), sel, span, because, near,
                                    instance_side, class_side, "class" if name.endswith(" class") else "instance"))
        return ERR

    def library_runs(self, rt, sel) -> bool:
        """Is the `sel` a send to a receiver of type rt reaches the library's (whose block arguments'
        values it throws away), not a method of the program, which may use them (`Coll >> do: b =
        (b value: 1) , '!'`)? Not known yet (a variable): only when no method of the program has `sel`
        (stdlib/core.lp's implement library selectors, typed by their signatures)."""
        if self._user_selectors is None:
            self._user_selectors = {mi.decl.selector for mi in self.method_list if mi.decl.span is None
                                    or not mi.decl.span.file.replace("\\", "/").endswith("stdlib/core.lp")}
        if sel not in self._user_selectors:
            return True
        r = prune(rt)
        if type(r) is not TCon:
            return False
        if r.name.endswith(" class"):
            for info in self.table.chain(r.name[:-6]):
                if sel in info.cmethods:
                    return False
                if info.builtin and sel in CLASS_SIGS.get(info.name, {}):
                    return True
            return False
        for info in self.table.chain(r.name):
            if info.builtin and (INSTANCE_SIGS.get(info.name, {}).get(sel) if info.name != "Object"
                                 else UNIVERSAL_SIGS.get(sel)) is not None:
                return True
            if sel in info.methods:
                return False
        return False

    def class_side_selector(self, sel) -> bool:
        """Does some class itself (not its instances) understand `sel`, so a receiver may be a class?"""
        if self._class_selectors is None:
            self._class_selectors = {s for t in CLASS_SIGS.values() for s in t}
            for info in self.table.classes.values():
                self._class_selectors.update(info.cmethods)
        return sel in self._class_selectors

    def unknown_anywhere(self, sel, node):
        span = getattr(node, "selector_span", None) or node.span
        every = set(self.owners) | set(UNIVERSAL_SIGS)
        for info in self.table.classes.values():
            every.update(info.cmethods)
        near = did_you_mean(sel, every)
        self.report(P.NoClassUnderstands(sel, near, span))
