"""Lowers a whole IR program to one LLVM module: the methods reachable from main, block bodies,
selector dispatch stubs, primitive wrappers, the print hook and the C entry `lp_program_main`.

Methods are emitted on demand (a worklist), so only what main can reach is compiled.
"""
from __future__ import annotations

import dataclasses
import functools
import platform

from llvmlite import ir

from lp.compiler import actors, net, observe, prims, pure, remote, storage
from lp.compiler.codegen import VAL, FunctionGen, V, c64, fn_type
from lp.compiler.dynamic import check_params, makes_dynamic
from lp.compiler.lastuse import LastUses
from lp.compiler.prim_table import one_call_prims
from lp.compiler.layout import CLASS_VALUE, FIRST_HEAP, I32, I64, PTR, UNWIND, Layout
from lp.compiler.sends import Sends
from lp.compiler.variants import GENERIC, Variant
from lp.ir import nodes as I
from lp.types.library import CLASS_SIGS, INSTANCE_SIGS, UNIVERSAL_SIGS

C_FUNCS = {
    # name: (return, [params]); "v" is an lpn_value (two i64 words), "V" a returned lpn_value
    "lpn_trace_push": ("void", ["p", "i32"]),
    "lpn_trace_frame": ("void", ["p"]),
    "lpn_stack_overflow": ("V", []),
    "lpn_stack_grow": ("i32", []),
    "lpn_deep_call": ("void", ["p", "p"]),
    "lpn_nlr_take": ("V", ["p"]),
    "lpn_nlr": ("V", ["v", "v"]),
    "lpn_home_new": ("p", []),
    "lpn_home_end": ("void", ["p"]),
    "lpn_dup_obj": ("void", ["p"]),
    "lpn_drop_obj": ("void", ["p"]),
    "lpn_arr_new": ("p", ["i64"]),
    "lpn_inst_new": ("p", ["i64", "i64"]),
    "lpn_block_new": ("p", ["p", "i64", "i64", "p"]),
    "lpn_int_overflow": ("V", ["p", "i64", "i64"]),
    "lpn_int_floordiv": ("V", ["i64", "i64"]),
    "lpn_int_mod": ("V", ["i64", "i64"]),
    "lpn_int_rem": ("V", ["i64", "i64"]),
    "lpn_int_quo": ("V", ["i64", "i64"]),
    "lpn_num_arith": ("V", ["i32", "v", "v"]),
    "lpn_num_compare": ("V", ["i32", "v", "v"]),
    "lpn_num_unary": ("V", ["i32", "v"]),
    "lpn_str_concat": ("V", ["v", "v"]),
    "lpn_str_size": ("V", ["v"]),
    "lpn_equal": ("V", ["v", "v"]),
    "lpn_identical": ("V", ["v", "v"]),
    "lpn_print_string": ("V", ["v"]),
    "lpn_display_string": ("V", ["v"]),
    "lpn_transcript": ("V", ["v", "i32"]),
    "lpn_raise_new": ("V", ["i64", "v"]),
    "lpn_raise_value": ("V", ["v"]),
    "lpn_catch": ("V", ["i64"]),
    "lpn_unwind_save": ("p", []),
    "lpn_unwind_restore": ("V", ["p"]),
    "lpn_unwind_discard": ("void", ["p"]),
    "lpn_dnu": ("V", ["v", "p"]),
    "lpn_dynamic_mismatch": ("V", ["v", "p"]),
    "lpn_dynamic_items": ("V", ["v", "p", "i64", "p"]),
    "lpn_unsupported": ("V", ["v", "p"]),
    "lpn_assoc_new": ("V", ["v", "v"]),
    "lpn_new_instance": ("V", ["i64"]),
    "lpn_copy_instance": ("p", ["v"]), "lpn_with_named": ("V", ["p", "p", "i64"]),
    "lpn_arr_at": ("V", ["v", "v"]), "lpn_arr_at_put": ("V", ["v", "v", "v"]), "lpn_arr_size": ("V", ["v"]),
    "lpn_arr_with": ("V", ["v", "v"]), "lpn_arr_concat": ("V", ["v", "v"]), "lpn_arr_end": ("V", ["v", "i32"]),
    "lpn_arr_index_of": ("V", ["v", "v"]), "lpn_arr_reversed": ("V", ["v"]), "lpn_arr_copy": ("V", ["v", "v", "v", "i32"]),
    "lpn_interval_new": ("V", ["i64", "v", "v", "p"]), "lpn_interval_op": ("V", ["i32", "v", "v"]),
    "lpn_text_op": ("V", ["i32", "v", "v"]), "lpn_str_copy": ("V", ["v", "v", "v"]),
    "lpn_int_as_char": ("V", ["i64"]),
    "lpn_maybe_new": ("V", ["i32", "v"]), "lpn_maybe_op": ("V", ["i32", "v", "v"]), "lpn_log": ("V", ["p", "v"]),
    "lpn_object_op": ("V", ["i32", "v", "v"]), "lpn_int_op": ("V", ["i32", "i64", "v"]),
    "lpn_responds_to": ("V", ["v", "v", "p", "i64"]),
    "lpn_float_op": ("V", ["i32", "v"]), "lpn_raised_to": ("V", ["v", "v"]), "lpn_print_base": ("V", ["i64", "v"]),
    "lpn_json_encode": ("V", ["v"]), "lpn_json_decode": ("V", ["v"]), "lpn_block_check": ("V", ["v", "p"]), "lpn_take": ("V", ["v", "v", "i32"]), "lpn_arr_new_with_all": ("V", ["v", "v"]), "lpn_arr_fold": ("V", ["i32", "v", "v"]),
    "lpn_lib_op": ("V", ["v", "v", "v", "i32"]),
    "lpn_dict_new": ("V", []), "lpn_dict_at": ("V", ["v", "v"]), "lpn_dict_at_put": ("V", ["v", "v", "v"]),
    "lpn_dict_lookup": ("V", ["v", "v"]), "lpn_dict_includes_key": ("V", ["v", "v"]),
    "lpn_dict_remove": ("V", ["v", "v"]), "lpn_dict_size": ("V", ["v"]), "lpn_dict_list": ("V", ["i32", "v"]),
}
C_FUNCS.update(actors.C_FUNCS)
# called only on the paths that raise, unwind or yield: LLVM lays those paths out of the hot code
COLD = {"lpn_trace_push", "lpn_trace_frame", "lpn_dynamic_mismatch", "lpn_stack_overflow", "lpn_int_overflow", "lpn_preempt",
        "lpn_nlr_take", "lpn_stack_grow", "lpn_deep_call"}
C_FUNCS.update(net.C_FUNCS)
C_FUNCS.update(remote.C_FUNCS)
C_FUNCS.update(storage.C_FUNCS)
C_FUNCS.update(observe.C_FUNCS)
ONE_CALL = frozenset(one_call_prims())
_TY = {"void": ir.VoidType(), "V": VAL, "p": PTR, "i64": I64, "i32": I32}


class _Indirect:
    """A call through a code pointer (a block's body), typed for llvmlite's CallInstr."""

    def __init__(self, ptr, fnty):
        self.ptr = ptr
        self.function_type = fnty
        self.type = ptr.type

    def get_reference(self):
        return self.ptr.get_reference()


class ModuleGen:
    def __init__(self, prog: I.Program, sources, name: str):
        self.prog = prog
        self.module = ir.Module(name=name)
        self.module.triple = ""
        self.layout = Layout(prog, self.module, sources)
        self.sends = Sends(self)
        self.cfuncs: dict[str, ir.Function] = {}
        self.methods: dict[int, ir.Function] = {}
        self.stubs: dict[tuple[str, int], ir.Function] = {}
        self.keeps_sender: dict[str, bool] = {}
        self.resolved: dict[tuple[str, bool, str], tuple | None] = {}
        self.prim_fns: dict = {}
        self.field_fns: dict = {}
        self.todo: list = []
        self.wants_perform = False   # the program sends `Remote perform:on:withArguments:`
        self.makes_dynamic = makes_dynamic(prog)   # compiler/dynamic.py
        self.nblocks = 0
        self.fast_fns: dict = {}
        self.depth = ir.GlobalVariable(self.module, I64, name="lpn_depth")
        self.depth.linkage = "external"
        self.depth_limit = ir.GlobalVariable(self.module, I64, name="lpn_depth_limit")
        self.depth_limit.linkage = "external"
        actors.thread_local(self.depth)
        self.reductions = ir.GlobalVariable(self.module, I64, name="lpn_reductions")
        self.reductions.linkage = "external"
        actors.thread_local(self.reductions)
        self.stack_floor = ir.GlobalVariable(self.module, I64, name="lpn_stack_floor")
        self.stack_floor.linkage = "external"
        actors.thread_local(self.stack_floor)
        self.send_frame = ir.GlobalVariable(self.module, PTR, name="lpn_tail_frame")
        self.send_frame.linkage = "external"
        actors.thread_local(self.send_frame)
        self.frames: dict = {}
        self._rt = {}

    # ---- declarations
    def c(self, name: str) -> ir.Function:
        f = self.cfuncs.get(name)
        if f is None:
            ret, params = C_FUNCS[name]
            args = []
            for p in params:
                args += [I64, I64] if p == "v" else [_TY[p]]
            f = ir.Function(self.module, ir.FunctionType(_TY[ret], args), name=name)
            f.attributes.add("nounwind")   # the C core never unwinds the machine stack
            if name in COLD:
                f.attributes.add("cold")
            self.cfuncs[name] = f
        return f

    def intrinsic(self, name: str) -> ir.Function:
        f = self.cfuncs.get(name)
        if f is None:
            ty = ir.LiteralStructType([I64, ir.IntType(1)])
            f = ir.Function(self.module, ir.FunctionType(ty, [I64, I64]), name=name)
            self.cfuncs[name] = f
        return f

    def stack_pointer(self, b: ir.IRBuilder):
        """The stack pointer as an i64, read with no side effect (x86-64: inline asm LLVM may
        merge within one frame, where `llvm.stacksave` would keep every later load of
        lpn_depth from reusing the value stored before it)."""
        if platform.machine() in ("x86_64", "AMD64"):
            asm = ir.InlineAsm(ir.FunctionType(I64, []), "mov %rsp, $0", "=r", side_effect=False)
            return b.call(asm, [], attrs=("nounwind", "readnone"))
        return b.ptrtoint(b.call(self.stacksave(), []), I64)

    def stacksave(self) -> ir.Function:
        f = self.cfuncs.get("llvm.stacksave.p0")
        if f is None:
            f = ir.Function(self.module, ir.FunctionType(PTR, []), name="llvm.stacksave.p0")
            self.cfuncs["llvm.stacksave.p0"] = f
        return f

    def rt(self, which: str) -> ir.Function:
        """dup/drop of a value whose class is not known: inline class test, count update in C."""
        f = self._rt.get(which)
        if f is None:
            f = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [I64, I64]), name=f"lpn.{which}")
            f.linkage = "internal"
            f.attributes.add("alwaysinline")
            b = ir.IRBuilder(f.append_basic_block())
            cls, bits = f.args
            heap = b.icmp_unsigned(">=", cls, c64(FIRST_HEAP))
            with b.if_then(heap):
                b.call(self.c("lpn_dup_obj" if which == "dup" else "lpn_drop_obj"), [b.inttoptr(bits, PTR)])
            b.ret_void()
            self._rt[which] = f
        return f

    def fabs(self) -> ir.Function:
        f = self.cfuncs.get("llvm.fabs.f64")
        if f is None:
            d = ir.DoubleType()
            f = self.cfuncs["llvm.fabs.f64"] = ir.Function(self.module, ir.FunctionType(d, [d]), name="llvm.fabs.f64")
        return f

    def indirect(self, ptr, nargs: int):
        return _Indirect(ptr, fn_type(nargs))

    # ---- LP functions
    def new_fn(self, name: str, nargs: int) -> ir.Function:
        f = ir.Function(self.module, fn_type(nargs), name=name)
        f.calling_convention = "tailcc"
        f.linkage = "internal"
        f.attributes.add("nounwind")
        return f

    def method_fn(self, md: I.MethodDef, variant: Variant = GENERIC) -> ir.Function:
        """The function of `md`, compiled for `variant` (compiler/variants.py)."""
        key = (id(md), variant)
        f = self.methods.get(key)
        if f is None:
            f = self.methods[key] = self.new_fn(f"lp.{md.name}{variant.suffix}", len(md.params))
            if variant.inline:
                f.attributes.add("alwaysinline")
            self.todo.append(("method", (md, variant), f))
        return f

    def block_fn(self, e: I.Closure, owner, class_side) -> ir.Function:
        self.nblocks += 1
        f = ir.Function(self.module, fn_type(len(e.params)), name=f"lp.block.{self.nblocks}")
        f.calling_convention = "tailcc"
        f.linkage = "internal"
        self.todo.append(("block", (e, owner, class_side), f))
        return f

    def set_send_frame(self, b, fn_name, site) -> None:
        """Before a call of a dispatch stub: the sender's frame when the call is a tail call
        (fn_name its trace name), else NULL (runtime/native/lpn.h lpn_tail_frame)."""
        if fn_name is None or site is None:
            b.store(ir.Constant(PTR, None), self.send_frame)
            return
        rec = self.frames.get((fn_name.name, site))
        if rec is None:
            t = ir.LiteralStructType([PTR, I32])
            rec = self.frames[(fn_name.name, site)] = ir.GlobalVariable(self.module, t, name=f"frame.{len(self.frames)}")
            rec.initializer = ir.Constant(t, [fn_name, ir.Constant(I32, site)])
            rec.global_constant = True
            rec.linkage = "private"
        b.store(rec, self.send_frame)

    def stub(self, sel: str, nargs: int) -> ir.Function:
        f = self.stubs.get((sel, nargs))
        if f is None:
            f = self.stubs[(sel, nargs)] = self.new_fn(f"lp.send.{sel}", nargs)
            self.todo.append(("stub", sel, f))
        return f

    def prim_fn(self, key, nargs: int) -> ir.Function:
        f = self.prim_fns.get(key)
        if f is None:
            cls, side, sel = key
            f = self.prim_fns[key] = self.new_fn(f"lp.prim.{cls}{' class' if side else ''}>>{sel}", nargs)
            self.todo.append(("prim", key, f))
        return f

    def field_fn(self, index: int) -> ir.Function:
        f = self.field_fns.get(index)
        if f is None:
            f = self.field_fns[index] = self.new_fn(f"lp.field.{index}", 0)
            self.todo.append(("field", index, f))
        return f

    # ---- method lookup (docs/native.md "Functions, calls and dispatch")
    def resolve(self, cname: str, side: bool, sel: str):
        """('method', md) | ('field', index) | ('prim', key) | ('missing', key) | None (not understood)."""
        key = (cname, side, sel)
        if key not in self.resolved:
            self.resolved[key] = self._resolve(cname, side, sel)
        return self.resolved[key]

    def _resolve(self, cname: str, side: bool, sel: str):
        c = self.prog.classes.get(cname)
        first = c
        missing = None
        while c is not None:
            md = self.prog.methods.get((c.name, side, sel))
            if md is not None:
                return ("method", md)
            if not side and sel in c.fields and first is not None:
                return ("field", first.fields.index(sel))
            key = (c.name, side, sel)
            if key in prims.PRIMS:
                return ("prim", key)
            if missing is None and c.builtin and sel in _library(c.name, side):
                missing = ("missing", key)
            c = self.prog.classes.get(c.superclass) if c.superclass else None
        if side:
            found = self.resolve("Object", False, sel)
            if found is not None and found[0] != "missing":
                return found
            return missing or found
        return missing

    def stub_keeps_sender(self, sel: str) -> bool:
        """Whether a send of sel through its stub is best called plainly even in tail position:
        every class answers a unary or binary sel with a primitive that calls no block, so the
        tail call saves no LP frame, and a plain call reports an error of the dispatch (not
        understood, a primitive's) in the sender's frame, as lp run does."""
        keep = self.keeps_sender.get(sel)
        if keep is None:
            keep = ":" not in sel and all(t is None or (t[0] == "prim" and t[1][0] != "Block")
                                          for name in self.prog.classes for side in (False, True)
                                          for t in [self.resolve(name, side, sel)])
            self.keeps_sender[sel] = keep
        return keep

    def only_missing(self, sel: str) -> str | None:
        """A class whose `sel` the library types but native code lacks, when no class at all
        implements `sel` natively: a send of it could only fail, so it is refused at build time."""
        missing = None
        for name in self.prog.classes:
            for side in (False, True):
                t = self.resolve(name, side, sel)
                if t is None:
                    continue
                if t[0] != "missing":
                    return None
                missing = missing or f"{t[1][0]}{' class' if t[1][1] else ''}"
        return missing

    def static_target(self, ty: I.Ty, sel: str):
        """The implementation a send to a receiver of type ty reaches, when it is the same for
        the class and every subclass; else None (dispatch at run time)."""
        from lp.compiler.codegen import kind
        k = kind(ty)
        if k is None:
            return None
        side = k.endswith(" class")
        cname = k[:-6] if side else k
        if cname not in self.prog.classes or cname in ("Object", "Number"):
            return None
        t = self.resolve(cname, side, sel)
        for sub in self.prog.subclasses(cname):
            if self.resolve(sub, side, sel) != t:
                return None
        return (t, cname, side) if t is not None else None

    # ---- emission
    def emit_all(self) -> None:
        self.emit_main()
        actors.emit_call_block(self)
        hook = self.emit_print_hook()
        self.emit_todo()
        perform = remote.emit_perform(self) if self.wants_perform else None
        self.emit_todo()
        self.layout.emit_program_table(hook, perform)

    def emit_todo(self) -> None:
        while self.todo:
            what, x, f = self.todo.pop()
            getattr(self, "emit_" + what)(x, f)

    def params(self, g: FunctionGen, f, types) -> list[V]:
        out = []
        for k, ty in enumerate(types):
            out.append(g.push(V(f.args[2 * k], f.args[2 * k + 1], ty)))
        return out

    @functools.cached_property
    def pure(self) -> set:
        """The pure Integer methods (compiler/pure.py)."""
        return pure.pure_methods(self)

    def emit_fast(self, x, f) -> None:
        pure.FastGen(self, *x, f).run()

    def emit_method(self, x, f) -> None:
        md, variant = x
        if md in self.pure and not variant.exact and not variant.inline:
            exact = self.method_fn(md, dataclasses.replace(variant, exact=True))
            return pure.emit_entry(self, md, exact, f)
        g = FunctionGen(self, f, "method", md.name, md.class_side, md.class_name)
        g.method = (md, variant)
        vs = self.params(g, f, [md.self_var.type] + variant.param_types(md))
        for var, v in zip([md.self_var, *md.params], vs):
            g.env[var.id] = v
        g.prologue()
        check_params(g, md.params, vs[1:])
        g.result_ty = md.type
        if md.returns:
            g.home = g.b.call(self.c("lpn_home_new"), [])
        g.last = LastUses().function(md.body).last
        self.finish(g, g.body(md.body, True))

    def finish(self, g: FunctionGen, v) -> None:
        if v is not None and not g.terminated():
            g.ret_owned(v)
        if not g.terminated():
            g.b.unreachable()

    def emit_block(self, x, f) -> None:
        e, owner, class_side = x
        g = FunctionGen(self, f, "block", e.name, class_side, owner)
        blk = g.push(V(f.args[0], f.args[1], I.Ty("Block")))
        g.block_ptr = g.b.inttoptr(blk.bits, PTR)
        for k, var in enumerate(e.captures):
            g.caps[var.id] = k
        vs = [g.push(V(f.args[2 + 2 * k], f.args[3 + 2 * k], p.type)) for k, p in enumerate(e.params)]
        for var, v in zip(e.params, vs):
            g.env[var.id] = v
        g.prologue()
        check_params(g, e.params, vs)
        if e.type.name == "Block" and e.type.args:
            g.result_ty = e.type.args[-1]
        g.last = LastUses().function(e.body).last
        self.finish(g, g.body(e.body, True))

    def emit_main(self) -> None:
        f = self.new_fn("lp.main", 0)
        g = FunctionGen(self, f, "main", "main")
        g.env[self.prog.main_self.id] = g.push(g.nil())
        g.prologue()
        g.last = LastUses().function(self.prog.main).last
        self.finish(g, g.body(self.prog.main, False))   # no tail call: the bindings live to the end
        entry = ir.Function(self.module, ir.FunctionType(VAL, []), name="lp_program_main")
        b = ir.IRBuilder(entry.append_basic_block())
        b.ret(b.call(f, [c64(0), c64(0)], cconv="tailcc"))

    def emit_stub(self, sel: str, f) -> None:
        nargs = len(f.args) // 2 - 1
        inst_cases, class_cases = {}, {}
        for name, cid in self.layout.ids.items():
            if name not in self.prog.classes:
                continue
            t = self.resolve(name, False, sel)
            if t is not None:
                inst_cases[cid] = t
            t = self.resolve(name, True, sel)
            if t is not None:
                class_cases[cid] = t
        b = ir.IRBuilder(f.append_basic_block("entry"))
        cls, bits = f.args[0], f.args[1]
        dnu = f.append_basic_block("dnu")
        inst_bb = f.append_basic_block("instance")
        side_bb = f.append_basic_block("class_side")
        b.cbranch(b.icmp_unsigned("==", cls, c64(CLASS_VALUE)), side_bb, inst_bb)
        for bb, scrutinee, cases in ((inst_bb, cls, inst_cases), (side_bb, bits, class_cases)):
            b.position_at_end(bb)
            sw = b.switch(scrutinee, dnu)
            targets: dict = {}
            for cid, t in cases.items():
                tgt = self.target_fn(t, nargs, sel)
                key = id(tgt) if tgt is not None else ("missing", t[1])
                if key not in targets:
                    case_bb = f.append_basic_block(f"case{len(targets)}")
                    targets[key] = case_bb
                    b.position_at_end(case_bb)
                    if tgt is None:
                        r = b.call(self.c("lpn_unsupported"), [cls, bits, self.layout.cstring(sel)])
                        self.drop_args(b, f, nargs)
                        b.ret(r)
                    elif t[0] == "prim" and t[1] in ONE_CALL:
                        # it calls no block, so no LP frame is saved by a tail call: a plain call, and
                        # its error is recorded in the tail-calling sender's frame
                        frame = b.load(self.send_frame, typ=PTR)
                        r = b.call(tgt, list(f.args), cconv="tailcc")
                        with b.if_then(b.icmp_unsigned("==", b.extract_value(r, 0), c64(UNWIND)), likely=False):
                            b.call(self.c("lpn_trace_frame"), [frame])
                        b.ret(r)
                    else:
                        b.ret(b.call(tgt, list(f.args), tail="tail", cconv="tailcc"))
                    b.position_at_end(bb)
                sw.add_case(c64(cid), targets[key])
        b.position_at_end(dnu)
        if remote.forwarding_classes(self):
            not_understood = f.append_basic_block("not_understood")
            remote.emit_forward_case(self, b, f, sel, nargs, not_understood)
            b.position_at_end(not_understood)
        r = b.call(self.c("lpn_dnu"), [cls, bits, self.layout.cstring(sel)])
        b.call(self.c("lpn_trace_frame"), [b.load(self.send_frame, typ=PTR)])
        self.drop_args(b, f, nargs)
        b.ret(r)

    def drop_args(self, b, f, nargs: int) -> None:
        for k in range(nargs):
            b.call(self.rt("drop"), [f.args[2 + 2 * k], f.args[3 + 2 * k]])

    def target_fn(self, t, nargs: int, sel: str):
        what = t[0]
        if what == "method":
            return self.method_fn(t[1])
        if what == "prim":
            return self.prim_fn(t[1], nargs)
        if what == "field":
            return self.field_fn(t[1])
        return None

    def emit_prim(self, key, f) -> None:
        cls, side, sel = key
        nargs = len(f.args) // 2 - 1
        g = FunctionGen(self, f, "prim", None, side, cls)
        from lp.compiler.codegen import IMMEDIATE_CLASSES
        self_ty = I.Ty(f"{cls} class") if side else (I.Ty(cls) if cls in IMMEDIATE_CLASSES or cls in (
            "String", "Array", "Block", "Association", "Dictionary", "Interval", "Symbol", "Character", "Maybe") else I.UNKNOWN)
        self.params(g, f, [self_ty] + [I.UNKNOWN] * nargs)
        v = prims.PRIMS[key](g, sel, nargs, None, True, I.UNKNOWN)
        self.finish(g, v)

    def emit_field(self, index: int, f) -> None:
        g = FunctionGen(self, f, "prim", None)
        recv = g.push(V(f.args[0], f.args[1], I.UNKNOWN))
        self.finish(g, self.sends.field_get(g, recv, index, I.UNKNOWN))

    def emit_print_hook(self):
        """lpn_prog.print_hook: the program's own printString for a class that defines one."""
        cases = {}
        for name, cid in self.layout.ids.items():
            if name in self.prog.classes:
                t = self.resolve(name, False, "printString")
                if t is not None and t[0] == "method":
                    cases[cid] = t[1]
        if not cases:
            return None
        f = ir.Function(self.module, ir.FunctionType(VAL, [I64, I64, I32]), name="lpn.print_hook")
        f.linkage = "internal"
        b = ir.IRBuilder(f.append_basic_block("entry"))
        none = f.append_basic_block("none")
        sw = b.switch(f.args[0], none)
        for cid, md in cases.items():
            bb = f.append_basic_block(f"c{cid}")
            sw.add_case(c64(cid), bb)
            b.position_at_end(bb)
            b.call(self.rt("dup"), [f.args[0], f.args[1]])
            b.ret(b.call(self.method_fn(md), [f.args[0], f.args[1]], cconv="tailcc"))
        b.position_at_end(none)
        b.ret(ir.Constant(VAL, [c64(0), c64(0)]))
        return f


@functools.cache
def _library(cname: str, side: bool) -> dict:
    """The selectors the checker's library types for cname's instances (side: the class); read only."""
    if side:
        return CLASS_SIGS.get(cname, {})
    sigs = dict(INSTANCE_SIGS.get(cname, {}))
    if cname == "Object":
        sigs.update(UNIVERSAL_SIGS)
    return sigs


def lower(prog: I.Program, sources, name: str = "lp") -> ir.Module:
    m = ModuleGen(prog, sources, name)
    m.emit_all()
    return m.module
