"""Class ids, field layouts, interned symbols and error sites, and the `lpn_prog` table that
tells the C core about them (runtime/native/lpn.h, docs/native.md "Values" and "Errors and non-local return")."""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.dnu_names import candidates, own_selectors
from lp.diagnostics import Diagnostic, render
from lp.ir import nodes as I

I64 = ir.IntType(64)
I32 = ir.IntType(32)
I8 = ir.IntType(8)
PTR = ir.PointerType()

FIXED_IDS = {"UndefinedObject": 0, "Boolean": 1, "Integer": 2, "Float": 3, "Character": 4, "Symbol": 5,
             "String": 16, "Array": 17, "Dictionary": 18, "Interval": 19, "Association": 20, "Maybe": 21,
             "Block": 22, "ByteArray": 27}
CLASS_VALUE, UNWIND, FIRST_HEAP, FIRST_INST = 6, 7, 16, 32
IMMEDIATE_CLASSES = {n for n, i in FIXED_IDS.items() if i < FIRST_HEAP}


class Layout:
    def __init__(self, prog: I.Program, module: ir.Module, sources):
        self.prog = prog
        self.module = module
        self.sources = sources
        self.ids: dict[str, int] = dict(FIXED_IDS)
        nxt = FIRST_INST
        for name in prog.classes:
            if name not in self.ids:
                self.ids[name] = nxt
                nxt += 1
        self.names = {i: n for n, i in self.ids.items()}
        self.nclasses = nxt
        self.strings: dict[str, ir.GlobalVariable] = {}
        self.symbols: dict[str, ir.GlobalVariable] = {}
        self.sites: list[tuple[str, str]] = []
        self.site_ids: dict = {}
        self.static_strings: dict[str, ir.GlobalVariable] = {}

    # ---- classes
    def class_id(self, name: str) -> int:
        return self.ids[name]

    def fields(self, name: str) -> tuple[str, ...]:
        return self.prog.classes[name].fields

    def is_instance_class(self, name: str) -> bool:
        return self.ids.get(name, 0) >= FIRST_INST

    def concrete_classes(self) -> list[str]:
        return list(self.ids)

    # ---- constants
    def cstring(self, text: str) -> ir.Constant:
        """A pointer to a NUL-terminated constant."""
        g = self.strings.get(text)
        if g is None:
            data = text.encode("utf-8") + b"\0"
            ty = ir.ArrayType(I8, len(data))
            g = ir.GlobalVariable(self.module, ty, name=f"str.{len(self.strings)}")
            g.initializer = ir.Constant(ty, bytearray(data))
            g.global_constant = True
            g.linkage = "private"
            g.unnamed_addr = True
            self.strings[text] = g
        return g

    def symbol(self, name: str) -> ir.GlobalVariable:
        """The interned lpn_symbol of `#name` (one per program: `==` compares pointers)."""
        g = self.symbols.get(name)
        if g is None:
            ty = ir.LiteralStructType([PTR, I64])
            g = ir.GlobalVariable(self.module, ty, name=f"sym.{len(self.symbols)}")
            g.initializer = ir.Constant(ty, [self.cstring(name), ir.Constant(I64, len(name.encode("utf-8")))])
            g.global_constant = True
            g.linkage = "private"
            self.symbols[name] = g
        return g

    def static_string(self, text: str) -> ir.GlobalVariable:
        """A string literal as a static lpn_str (count 0: never counted, never freed)."""
        g = self.static_strings.get(text)
        if g is None:
            data = text.encode("utf-8")
            nchars = len(text)
            ty = ir.LiteralStructType([I32, I32, I64, I64, ir.ArrayType(I8, len(data) + 1)])
            g = ir.GlobalVariable(self.module, ty, name=f"lit.{len(self.static_strings)}")
            g.initializer = ir.Constant(ty, [ir.Constant(I32, 0), ir.Constant(I32, FIXED_IDS["String"]),
                                             ir.Constant(I64, len(data)), ir.Constant(I64, nchars),
                                             ir.Constant(ir.ArrayType(I8, len(data) + 1), bytearray(data + b"\0"))])
            g.global_constant = True
            g.linkage = "private"
            self.static_strings[text] = g
        return g

    # ---- error sites
    def site(self, span) -> int:
        key = (span.file, span.line, span.col, span.end_line, span.end_col)
        k = self.site_ids.get(key)
        if k is None:
            excerpt = ""
            if self.sources is not None and span.line > 0:
                lines = render(Diagnostic("uncaught error", "", span), self.sources).split("\n")[2:-3]
                excerpt = "".join(x + "\n" for x in lines)
            k = self.site_ids[key] = len(self.sites)
            self.sites.append((str(span), excerpt))
        return k

    # ---- the table for the C core
    def dnu_names_table(self, table) -> ir.GlobalVariable:
        """By class id * 2 + (1 on the class side): the NUL-ended selectors a "does not understand"
        report may suggest (compiler/dnu_names.py)."""
        own = own_selectors(self.prog)
        lists: dict[tuple, ir.GlobalVariable] = {}
        rows = []
        for i in range(self.nclasses):
            for side in (False, True):
                names = tuple(candidates(self.prog, own, self.names[i], side)) if i in self.names else ()
                if names not in lists:
                    lists[names] = table(f"dnu_names.{len(lists)}", PTR,
                                         [self.cstring(x) for x in names] + [ir.Constant(PTR, None)])
                rows.append(lists[names])
        return table("dnu_names", PTR, rows)

    def emit_program_table(self, print_hook: ir.Function | None, perform=None) -> None:
        """perform: (selectors sorted, class ids answering each, the generated call) when the program
        sends `Remote perform:on:withArguments:` (compiler/remote.py)."""
        n = self.nclasses
        names = [self.cstring(self.names[i]) if i in self.names else ir.Constant(PTR, None) for i in range(n)]
        sup, nf, fnames = [], [], []
        for i in range(n):
            name = self.names.get(i)
            cdef = self.prog.classes.get(name) if name else None
            s = self.ids.get(cdef.superclass) if cdef and cdef.superclass else None
            sup.append(ir.Constant(I64, s if s is not None else (1 << 64) - 1))
            fields = cdef.fields if cdef else ()
            nf.append(ir.Constant(I64, len(fields)))
            arr_t = ir.ArrayType(PTR, len(fields))
            g = ir.GlobalVariable(self.module, arr_t, name=f"fields.{i}")
            g.initializer = ir.Constant(arr_t, [self.cstring(f) for f in fields])
            g.global_constant = True
            g.linkage = "private"
            fnames.append(g)
        site_t = ir.LiteralStructType([PTR, PTR])
        sites = [ir.Constant(site_t, [self.cstring(w), self.cstring(x)]) for w, x in self.sites] or \
            [ir.Constant(site_t, [ir.Constant(PTR, None), ir.Constant(PTR, None)])]

        def table(name, ty, items):
            arr_t = ir.ArrayType(ty, len(items))
            g = ir.GlobalVariable(self.module, arr_t, name=name)
            g.initializer = ir.Constant(arr_t, items)
            g.global_constant = True
            g.linkage = "private"
            return g

        syms = list(self.symbols.values())
        user = [ir.Constant(I8, int(bool(self.names.get(i) in self.prog.classes
                                             and not self.prog.classes[self.names[i]].builtin))) for i in range(n)]
        names_t = classes_t = fn = ir.Constant(PTR, None)
        sels = []
        if perform is not None:
            sels, answering, fn = perform
            names_t = table("perform_names", PTR, [self.cstring(x) for x in sels] or [ir.Constant(PTR, None)])
            end = ir.Constant(I64, (1 << 64) - 1)
            lists = [table(f"perform_classes.{k}", I64, [ir.Constant(I64, c) for c in ids] + [end])
                     for k, ids in enumerate(answering)]
            classes_t = table("perform_classes", PTR, lists or [ir.Constant(PTR, None)])
        prog_t = ir.LiteralStructType([I64, PTR, PTR, PTR, PTR, PTR, I64, PTR, PTR, I64, PTR, PTR, PTR, I64, PTR,
                                       PTR])
        g = ir.GlobalVariable(self.module, prog_t, name="lpn_prog")
        g.initializer = ir.Constant(prog_t, [
            ir.Constant(I64, n), table("class_names", PTR, names), table("superclass", I64, sup),
            table("nfields", I64, nf), table("field_names", PTR, fnames), table("sites", site_t, sites),
            ir.Constant(I64, self.ids["Error"]), print_hook if print_hook is not None else ir.Constant(PTR, None),
            table("symbols", PTR, syms) if syms else ir.Constant(PTR, None), ir.Constant(I64, len(syms)),
            table("user_class", I8, user), names_t, classes_t, ir.Constant(I64, len(sels)), fn,
            self.dnu_names_table(table)])
        g.global_constant = True
