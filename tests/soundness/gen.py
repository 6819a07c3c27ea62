"""Random LP programs for the soundness fuzzer, built from the checker's own library signatures.

Every expression is generated for a type the generator believes it has (the
library's promise); each statement then sends its value a selector only that
type understands (a probe). If the checker accepts the program and the
primitive breaks the promise, the probe fails at run time with `does not
understand`, which the fuzzer reports. `draw(options)` picks one option; it is
backed by hypothesis in the test (so failures shrink) and by `random` in the
bench script.
"""
from __future__ import annotations

from lp.types.library import INSTANCE_SIGS, CLASS_SIGS, UNIVERSAL_SIGS

INT, FLOAT, STR, SYM, CHAR, BOOL = "Integer", "Float", "String", "Symbol", "Character", "Boolean"
BASE = [INT, FLOAT, STR, SYM, CHAR, BOOL]

# A selector only values of that type understand, and that cannot fail on any of them.
PROBES = {INT: "bitAnd: 1", FLOAT: "isNaN", STR: "trim", SYM: "numArgs", CHAR: "isVowel",
          BOOL: "not", "Array": "allButFirst", "Dictionary": "keys", "Maybe": "isSome",
          "Association": "key", "Block": "numArgs"}
NUMERIC = ["+", "-", "*", "/", "//", "\\\\", "max:", "min:", "<", "<=", "rem:"]
SKIP_CLASSES = {"Actor", "Future", "Promise", "Error", "ArrayBuilder", "Reason", "Block", "Remote",
                "TCP", "TCPSocket", "TCPListener", "UDPSocket", "TLS", "WebSocket"}  # the network: no sockets in fuzzing
# Selectors that block, print, loop without bound or need a live actor.
SKIP_SELECTORS = {"printNl", "displayNl", "timesRepeat:", "factorial", "sqrt", "at:put:", "signal",
                  "raise", "signal:", "isKindOf:", "respondsTo:", "ifNil:", "ifNotNil:",
                  "ifNil:ifNotNil:", "ifNotNil:ifNil:", "copyReplaceAll:with:", "bitShift:"}


def head(t):
    return t if isinstance(t, str) else t[0]


def show(t) -> str:
    if isinstance(t, str):
        return t
    return f"{t[0]}[{', '.join(show(a) for a in t[1:])}]"


def subst(sig_t, env: dict, fresh):
    """A signature type as a generator type; unbound variables get `fresh()`."""
    kind = sig_t[0]
    if kind == "self":
        return env["Self"]
    if kind == "var":
        if sig_t[1] not in env:
            env[sig_t[1]] = fresh()
        return env[sig_t[1]]
    if kind == "con":
        name, args = sig_t[1], sig_t[2]
        if not args:
            return name
        return (name, *[subst(a, env, fresh) for a in args])
    raise ValueError(sig_t)


def params_of(t) -> dict:
    names = {"Array": ("t",), "Dictionary": ("k", "v"), "Maybe": ("t",), "Association": ("k", "v")}
    if isinstance(t, str):
        return {"Self": t}
    env = dict(zip(names.get(t[0], ()), t[1:]))
    env["Self"] = t
    return env


class Gen:
    def __init__(self, draw, depth: int = 3):
        self.draw = draw          # draw(list) -> one element
        self.depth = depth
        self.counter = 0
        self.classes: list[dict] = []
        self.extra: list[str] = []    # statements the declarations ask for

    # ---- types
    def simple_type(self, depth=1):
        opts = list(BASE)
        if depth > 0:
            opts += ["Array", "Maybe", "Dictionary"]
        h = self.draw(opts)
        if h == "Array" or h == "Maybe":
            return (h, self.simple_type(depth - 1))
        if h == "Dictionary":
            return (h, self.draw([INT, STR, SYM]), self.simple_type(depth - 1))
        return h

    def name(self, base="v"):
        self.counter += 1
        return f"{base}{self.counter}"

    # ---- expressions of a given type
    def expr(self, t, depth, scope):
        if depth <= 0:
            return self.leaf(t, scope)
        kind = self.draw(["leaf", "lib", "lib", "num", "if", "user", "block", "var"])
        if kind == "var":
            names = [n for n, nt in scope if nt == t]
            if names:
                return self.draw(names)
        if kind == "lib":
            e = self.library_send(t, depth, scope)
            if e:
                return e
        if kind == "num" and t in (INT, FLOAT, BOOL):
            return self.numeric(t, depth, scope)
        if kind == "if":
            c = self.expr(BOOL, depth - 1, scope)
            return f"({c} ifTrue: [{self.expr(t, depth - 1, scope)}] ifFalse: [{self.expr(t, depth - 1, scope)}])"
        if kind == "user":
            e = self.user_expr(t, depth, scope)
            if e:
                return e
        if kind == "block":
            p = self.name("p")
            pt = self.simple_type(0)
            body = self.expr(t, depth - 1, scope + [(p, pt)])
            return f"([:{p} | {body}] value: {self.expr(pt, depth - 1, scope)})"
        return self.leaf(t, scope)

    def leaf(self, t, scope):
        h = head(t)
        names = [n for n, nt in scope if nt == t]
        if names and self.draw([True, False]):
            return self.draw(names)
        if t == INT:
            return self.draw(["0", "1", "2", "7", "-3", "16r1F", "100"])
        if t == FLOAT:
            return self.draw(["0.5", "1.0", "2.5", "-1.5", "1.5e3", "3.0"])
        if t == STR:
            return self.draw(["'a'", "'hello'", "''", "'3'", "'2.5'", "'a,b'", "' x '"])
        if t == SYM:
            return self.draw(["#a", "#ping", "#at:put:", "#+"])
        if t == CHAR:
            return self.draw(["$a", "$Z", "$3", "$ "])
        if t == BOOL:
            return self.draw(["true", "false"])
        if h == "Array":
            n = self.draw([0, 1, 2, 3])
            items = ". ".join(self.leaf(t[1], scope) for _ in range(n))
            if n == 0:
                return self.draw(["#()", "Array new"])
            return "{ " + items + " }"
        if h == "Maybe":
            if self.draw([True, False]):
                return f"(Maybe some: {self.leaf(t[1], scope)})"
            return "Maybe none"
        if h == "Dictionary":
            d = "Dictionary new"
            for _ in range(self.draw([0, 1, 2])):
                d = f"({d} at: {self.leaf(t[1], scope)} put: {self.leaf(t[2], scope)})"
            return d
        if h == "Association":
            return f"({self.leaf(t[1], scope)} -> {self.leaf(t[2], scope)})"
        if h == "Block":
            ps = [self.name("b") for _ in t[1:-1]]
            inner = scope + list(zip(ps, t[1:-1]))
            head_ = "".join(f":{p} " for p in ps)
            bar = "| " if ps else ""
            return f"[{head_}{bar}{self.leaf(t[-1], inner)}]"
        for c in self.classes:
            if c["name"] == t:
                return self.instance(c, 0, scope)
        return "nil"

    def numeric(self, t, depth, scope):
        op = self.draw(NUMERIC)
        a_t, b_t = self.draw([INT, FLOAT]), self.draw([INT, FLOAT])
        res = {"/": FLOAT, "<": BOOL, "<=": BOOL}.get(op)
        if res is None:
            res = INT if op == "//" else (FLOAT if FLOAT in (a_t, b_t) else INT)
        if res != t:
            return self.leaf(t, scope)
        a, b = self.expr(a_t, depth - 1, scope), self.expr(b_t, depth - 1, scope)
        if op in ("/", "//", "\\\\", "rem:"):
            b = f"({b} abs + 1)"
        return f"({a} {op} {b})"

    def library_send(self, t, depth, scope):
        """A send to a library receiver whose signature promises type `t`."""
        recv_t = self.draw([INT, FLOAT, STR, SYM, CHAR, BOOL, ("Array", INT), ("Array", FLOAT),
                            ("Array", STR), ("Array", self.simple_type(0)), ("Maybe", self.simple_type(0)),
                            ("Dictionary", self.draw([INT, SYM]), self.simple_type(0)), "class:Array",
                            "class:Maybe", "class:Association"])
        side = CLASS_SIGS if isinstance(recv_t, str) and recv_t.startswith("class:") else None
        cname = recv_t[6:] if side else head(recv_t)
        if cname in SKIP_CLASSES:
            return None
        table = dict(CLASS_SIGS.get(cname, {})) if side else {**UNIVERSAL_SIGS, **INSTANCE_SIGS.get(cname, {})}
        cands = []
        for sel, sig in table.items():
            if sig.special or sel in SKIP_SELECTORS:
                continue
            env = {} if side else params_of(recv_t)
            fresh_vars = []

            def fresh():
                fresh_vars.append(None)
                return self.simple_type(0)

            res = subst(sig.result, env, fresh) if sig.result[0] != "con" or sig.result[1] != "Dynamic" else None
            if res is None or res != t:
                continue
            cands.append((sel, sig, env))
        if not cands:
            return None
        sel, sig, env = self.draw(cands)
        recv = cname if side else self.expr(recv_t, depth - 1, scope)
        args = [self.arg(a, env, depth, scope) for a in sig.args]
        if not args:
            return f"({recv} {sel})" if sel[0].isalpha() else None
        parts = sel.split(":")[:-1] if sel.endswith(":") else [sel]
        if not sel.endswith(":"):
            return f"({recv} {sel} {args[0]})"
        return "(" + recv + " " + " ".join(f"{p}: {a}" for p, a in zip(parts, args)) + ")"

    def arg(self, sig_t, env, depth, scope):
        if sig_t[0] == "con" and sig_t[1] == "Block":
            params = [subst(a, env, lambda: self.simple_type(0)) for a in sig_t[2][:-1]]
            res = subst(sig_t[2][-1], env, lambda: self.simple_type(0))
            ps = [self.name("x") for _ in params]
            inner = scope + list(zip(ps, params))
            head_ = "".join(f":{p} " for p in ps)
            bar = "| " if ps else ""
            return f"[{head_}{bar}{self.expr(res, depth - 1, inner)}]"
        return self.expr(subst(sig_t, env, lambda: self.simple_type(0)), depth - 1, scope)

    # ---- user classes
    def declare_classes(self) -> str:
        out = []
        n = self.draw([0, 1, 2])
        for i in range(n):
            name = f"K{i}"
            parent = self.draw(["Object"] + [c["name"] for c in self.classes])
            pc = next((c for c in self.classes if c["name"] == parent), None)
            inherited = list(pc["fields"]) if pc else []
            own = [(f"f{i}{j}", self.simple_type(0)) for j in range(self.draw([0, 1, 2]))]
            c = {"name": name, "parent": pc, "fields": inherited + own, "methods": list(pc["methods"]) if pc else []}
            self.classes.append(c)
            decl = f"{parent} subclass: #{name}"
            if own:
                decl += f" fields: ({' '.join(f for f, _ in own)})"
            out.append(decl + ".")
            for k in range(self.draw([0, 1, 2])):
                sel, arg_t, res_t = f"m{i}{k}:", self.simple_type(0), self.simple_type(0)
                out.append(self.method(c, sel, arg_t, res_t))
                c["methods"].append((sel, arg_t, res_t))
            if pc and pc["methods"] and self.draw([True, False]):
                sel, arg_t, res_t = self.draw(pc["methods"])
                if self.draw([False, False, True]):  # hostile: an override of another type
                    arg_t, res_t = self.simple_type(0), self.simple_type(0)
                out.append(self.method(c, sel, arg_t, res_t))
        out += self.hostile_methods()
        return "\n".join(out)

    def hostile_methods(self) -> list[str]:
        """Methods on Object and on the class side, generic helpers, and sends only some classes understand."""
        out = []
        if self.classes and self.draw([True, False, False, False]):
            c = self.draw(self.classes)
            probes = [m[0] for m in c["methods"]] + [f for f, _ in c["fields"]]
            if probes:
                p = self.draw(probes)
                send = f"self {p} 1" if p.endswith(":") else f"self {p}"
                out.append(f"Object >> hostile = {send}.")
                self.extra.append(f"({self.leaf(self.simple_type(0), [])}) hostile printString.")
                self.extra.append(f"({self.instance(self.draw(self.classes), 1, [])}) hostile printString.")
        if self.classes and self.draw([True, False, False]):
            # a method run by `Remote perform:` with a literal selector, sometimes given another type
            c = self.draw(self.classes)
            if c["methods"]:
                sel, arg_t, _ = self.draw(c["methods"])
                t = self.draw([arg_t, arg_t, self.simple_type(0)])
                self.extra.append(f"(Remote perform: #{sel} on: {self.instance(c, 1, [])} "
                                  f"withArguments: {{ {self.leaf(t, [])} }}) printString.")
        if self.draw([True, False]):
            out.append("Object subclass: #Util.")
            out.append("Util class >> id: x = x.")
            out.append("Util class >> show: x = x printString , '!'.")
            out.append("Util class >> make: cls = cls new.")
            for _ in range(self.draw([1, 2])):
                t = self.simple_type(1)
                self.extra.append(f"(Util id: {self.leaf(t, [])}) {PROBES[head(t)]}.")
                self.extra.append(f"(Util show: {self.leaf(self.simple_type(0), [])}) trim.")
            plain = [c["name"] for c in self.classes if not c["fields"]]
            if plain:
                self.extra.append(f"(Util make: {self.draw(plain)}) printString.")
        if self.classes and self.draw([True, False]):
            c = self.draw(self.classes)
            if c["fields"]:
                f, ft = self.draw(c["fields"])
                copy = f"({self.instance(c, 1, [])} with: {{ {f}: {self.leaf(ft, [])} }})"
                self.extra.append(f"({copy} {f}) {PROBES[head(ft)]}.")
        if self.draw([True, False]):
            out += self.generic_part()
        if self.draw([False, False, True]):
            out.append("Error subclass: #Oops fields: (code).")
            t = self.simple_type(0)
            self.extra.append(f"(Oops try: [(Oops fields: {{ message: 'x'. code: {self.leaf(t, [])} }}) raise] "
                              f"onError: [:e | e code]) {PROBES[head(t)]}.")
            if self.draw([False, False, False, True]):   # hostile: leaves `code` nil, must be refused
                self.extra.append("(Error try: [Oops raise: 'x'] onError: [:e | e messageText]) trim.")
        return out

    def generic_part(self) -> list[str]:
        """A generic class used with contents of several types, copied with other contents, and probed
        (sometimes hostilely, with the probe of another type: the checker must refuse those)."""
        out = ["Object subclass: #Gb fields: (c).", "Gb >> get = self c.", "Gb >> put: x = self with: { c: x }.",
               "Gb class >> of: x = Gb fields: { c: x }.", "Gb >> map: blk = Gb of: (blk value: self c)."]
        for _ in range(self.draw([1, 2, 3])):
            t, u = self.simple_type(1), self.simple_type(1)
            probe = PROBES[head(self.draw([u, u, u, t]))]
            self.extra.append(self.draw([
                f"(Gb of: {self.leaf(t, [])}) get {PROBES[head(t)]}.",
                f"((Gb of: {self.leaf(t, [])}) put: {self.leaf(u, [])}) get {probe}.",
                f"((Gb fields: {{ c: {self.leaf(t, [])} }}) with: {{ c: {self.leaf(u, [])} }}) c {probe}.",
                f"((Gb of: {self.leaf(t, [])}) map: [:x | {self.leaf(u, [('x', t)])}]) get {probe}."]))
        return out

    def method(self, c, sel, arg_t, res_t):
        scope = [("a", arg_t)] + [(f"self {f}", ft) for f, ft in c["fields"]]
        classes, self.classes = self.classes, []  # no calls from methods: every program terminates
        body = self.expr(res_t, 2, scope)
        self.classes = classes
        return f"{c['name']} >> {sel} a = {body}."

    def instance(self, c, depth, scope):
        if not c["fields"]:
            return f"{c['name']} new"
        rec = ". ".join(f"{f}: {self.expr(ft, depth - 1, scope)}" for f, ft in c["fields"])
        return f"({c['name']} fields: {{ {rec} }})"

    def user_expr(self, t, depth, scope):
        if not self.classes:
            return None
        c = self.draw(self.classes)
        opts = [("field", f) for f, ft in c["fields"] if ft == t]
        opts += [("method", m) for m in c["methods"] if m[2] == t]
        if not opts:
            return None
        kind, what = self.draw(opts)
        inst = self.instance(self.draw([k for k in self.classes if k is c or self.descends(k, c)]), depth - 1, scope)
        if kind == "field":
            return f"({inst} {what})"
        sel, arg_t, _ = what
        return f"({inst} {sel} {self.expr(arg_t, depth - 1, scope)})"

    @staticmethod
    def descends(k, c):
        p = k["parent"]
        while p is not None:
            if p is c:
                return True
            p = p["parent"]
        return False

    # ---- actors: a server with a receive table, answered through ask: and !
    def actor_part(self) -> str:
        keys = []
        for _ in range(self.draw([1, 2, 3])):
            keys.append(self.draw(["1", "2", "#ping", "'s'", "$a", "Msg", "Req", "Block"]))
        keys = list(dict.fromkeys(keys))
        msg_t = self.simple_type(0)
        lines = [f"Object subclass: #Msg fields: (v).", "Object subclass: #Req fields: (v reply).",
                 "Req subclass: #SubReq.",
                 f"msgProbe := [:m | (m v) {PROBES[head(msg_t)]}]."]
        entries = []
        for k in keys:
            if k == "Msg":
                entries.append(f"Msg -> [:m | (m v) {PROBES[head(msg_t)]}]")
            elif k == "Req":
                entries.append(f"Req -> [:m | m reply ! (m v) {PROBES[head(msg_t)]}]")
            elif k == "Block":
                entries.append("Block -> [:b | b value: 3]")
            else:
                lit_t = {"1": INT, "2": INT, "#ping": SYM, "'s'": STR, "$a": CHAR}[k]
                entries.append(f"{k} -> [:m | m {PROBES[lit_t]}]")
        sends = []
        n = self.draw([1, 2, 3])
        for _ in range(n):
            # mostly what the server takes; sometimes a Float equal to an Integer key, a stray symbol,
            # or a request without a reply address
            s = self.draw(keys * 3 + ["1.0", "1", "#pong", "Req!", "SubReq", "SubReq!"])
            v_t = self.draw([msg_t, msg_t, msg_t, self.simple_type(0)])   # sometimes hostile
            if s == "Msg":
                sends.append(f"srv ! (Msg fields: {{ v: {self.leaf(v_t, [])} }})")
            elif s == "Req":
                sends.append(f"((srv ask: (Req fields: {{ v: {self.leaf(v_t, [])} }})) await: 2000) printString")
            elif s == "Req!":   # a request sent without a reply address
                sends.append(f"srv ! (Req fields: {{ v: {self.leaf(v_t, [])} }})")
            elif s == "SubReq":  # a subclass instance, taken by the Req entry
                sends.append(f"((srv ask: (SubReq fields: {{ v: {self.leaf(v_t, [])} }})) await: 2000) printString")
            elif s == "SubReq!":
                sends.append(f"srv ! (SubReq fields: {{ v: {self.leaf(v_t, [])} }})")
            elif s == "Block":
                sends.append(f"srv ! {self.draw(['[:x | x + 1]', '[:x :y | x]', '[7]'])}")
            else:
                sends.append(f"srv ! {s}")
        table = "{ " + ". ".join(entries) + " }"
        lines.append(f"srv := Actor spawn: [:me | {n} timesRepeat: [me receive: {table} after: 300 do: [nil]]].")
        lines += [s + "." for s in sends]
        return "\n".join(lines)

    # ---- a whole program
    def program(self) -> str:
        decls = self.declare_classes()
        stmts = []
        for _ in range(self.draw([1, 2, 3, 4])):
            t = self.simple_type(1)
            e = self.expr(t, self.depth, [])
            stmts.append(f"({e}) {PROBES[head(t)]}.")
        stmts += self.extra
        if self.draw([False, False, True]):
            stmts.append(self.actor_part())
        return decls + "\n" + "\n".join(stmts) + "\n"
