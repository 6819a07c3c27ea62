"""`lp build`: typed IR → LLVM module → optimised object (llvmlite, or the object cache) →
executable (system cc)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from lp.compiler import objcache
from lp.compiler.progress import Progress
from lp.compiler.toolchain import BuildError, find_cc, link

PIPELINE = Path(__file__).read_bytes()   # this file turns IR into an object: part of the cache key


def _target_machine(opt: int):
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()   # the stack pointer read (module.stack_pointer) is inline asm
    target = llvm.Target.from_default_triple()
    return llvm.get_default_triple(), target.create_target_machine(
        cpu="", features="", opt=opt, reloc="pic", codemodel="default")


def compile_object(module, opt: int, obj: Path, llvm_out: Path | None = None,
                   progress: Progress | None = None) -> None:
    import llvmlite
    import llvmlite.binding as llvm
    progress = progress or Progress()
    triple, tm = _target_machine(opt)
    module.triple = triple
    text = str(module)
    key = objcache.key(text, str(opt), triple, llvmlite.__version__, repr(llvm.llvm_version_info), PIPELINE)
    if llvm_out is None:     # --emit-llvm writes the optimised IR, which the cache does not keep
        cached = objcache.lookup(key)
        if cached is not None:
            progress.phase("reusing the cached object")
            obj.write_bytes(cached)
            return
    progress.phase(f"optimising (-O{opt})")
    mod = llvm.parse_assembly(text)
    mod.verify()
    if opt > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
    if llvm_out is not None:
        llvm_out.write_text(str(mod))
    progress.phase("generating machine code")
    data = tm.emit_object(mod)
    obj.write_bytes(data)
    objcache.store(key, data)


def build(main, imports, check_result, sources, args, progress: Progress | None = None) -> int:
    from lp.compiler.module import lower
    from lp.ir import build_program
    progress = progress or Progress()
    out = Path(args.output or os.path.splitext(args.file)[0])
    if out.resolve() == Path(args.file).resolve():
        out = out.with_suffix(".bin")
    opt = 2 if args.opt is None else args.opt
    progress.phase("lowering to LLVM IR")
    prog = build_program(main, imports, check_result)
    module = lower(prog, sources, name=str(args.file))
    if getattr(args, "observable", False):    # the binary takes --observe (runtime/native/main.c)
        from llvmlite import ir
        flag = ir.GlobalVariable(module, ir.IntType(32), name="lpn_observable")
        flag.initializer, flag.global_constant = ir.Constant(ir.IntType(32), 1), True
    try:
        cc = find_cc()
        tmp = Path(tempfile.mkdtemp(prefix="lp-build-"))
        obj = tmp / (out.name + ".o")
        compile_object(module, opt, obj, Path(str(out) + ".ll") if args.emit_llvm else None, progress)
        progress.phase("linking")
        sanitize = os.environ.get("LP_SANITIZE")   # e.g. "address": the tests' LeakSanitizer runs
        link(cc, obj, out, [f"-fsanitize={sanitize}", "-g"] if sanitize else [])
    except BuildError as e:
        progress.message(f"lp: cannot build {args.file}: {e}\n")
        return 2
    finally:
        if not args.keep_temps:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True) if "tmp" in locals() else None
        else:
            progress.message(f"lp: temporary files kept in {tmp}\n")
    return 0
