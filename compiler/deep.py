"""The prologue's cold path (docs/native.md "Depth" and "Stacks"): past --stack-limit, or with the
stack pointer below the fiber's floor, an LP function F tail-calls `F.cold` with its own arguments,
which stay where they came in, so F keeps no more registers and no larger frame for it. `F.cold`
answers the stack overflow error past the limit; below the floor it asks for the actor's deep stack
(`lpn_stack_grow`: a spawned actor not on it yet) and makes the same call of F again there, through
a packer per arity (`lpn.deep.N`) that puts the arguments in a frame of its own and has
`lpn_deep_call` run F on the deep stack; else the same error. Past the turn's reduction budget F
tail-calls `F.yield`, which yields and then makes the same call of F again: with no path from
either back into F's body, LLVM keeps the depth and reduction counts F stored in registers for
the frames it inlines into F (docs/native.md "Depth")."""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.layout import I32, I64, PTR, UNWIND

I8 = ir.IntType(8)


def _word(b: ir.IRBuilder, ctx, k: int):
    return b.gep(ctx, [ir.Constant(I64, 8 * k)], source_etype=I8)


def _packer(mod, fnty: ir.FunctionType) -> ir.Function:
    """`lpn.deep.N(fn, w1..wN)`: the tailcc LP function fn called with w1..wN on the deep stack.
    Its frame holds [fn, w1..wN, result cls, result bits] for `lpn.deep.N.run`, which
    `lpn_deep_call` calls there."""
    n = len(fnty.args)
    name = f"lpn.deep.{n}"
    f = mod.cfuncs.get(name)
    if f is not None:
        return f
    run = ir.Function(mod.module, ir.FunctionType(ir.VoidType(), [PTR]), name=name + ".run")
    run.linkage = "internal"
    run.attributes.add("nounwind")
    b = ir.IRBuilder(run.append_basic_block())
    ctx = run.args[0]
    fn = b.inttoptr(b.load(_word(b, ctx, 0), typ=I64), PTR)
    args = [b.load(_word(b, ctx, 1 + k), typ=I64) for k in range(n)]
    r = b.call(mod.indirect(fn, n // 2 - 1), args, cconv="tailcc")
    b.store(b.extract_value(r, 0), _word(b, ctx, n + 1))
    b.store(b.extract_value(r, 1), _word(b, ctx, n + 2))
    b.ret_void()

    f = mod.cfuncs[name] = ir.Function(mod.module, ir.FunctionType(fnty.return_type, [PTR] + list(fnty.args)),
                                       name=name)
    f.linkage = "internal"
    for a in ("nounwind", "noinline", "cold"):
        f.attributes.add(a)
    b = ir.IRBuilder(f.append_basic_block())
    ctx = b.inttoptr(b.ptrtoint(b.alloca(ir.ArrayType(I64, n + 3)), I64), PTR)
    b.store(b.ptrtoint(f.args[0], I64), _word(b, ctx, 0))
    for k, a in enumerate(f.args[1:]):
        b.store(a, _word(b, ctx, 1 + k))
    b.call(mod.c("lpn_deep_call"), [run, ctx])
    cls = b.load(_word(b, ctx, n + 1), typ=I64)
    bits = b.load(_word(b, ctx, n + 2), typ=I64)
    b.ret(b.insert_value(b.insert_value(ir.Constant(fnty.return_type, None), cls, 0), bits, 1))
    return f


def _beside(g, suffix: str) -> ir.Function:
    """A cold function with the prototype of the one g is generating (which tail-calls it with its
    own arguments), named after it."""
    f = ir.Function(g.mod.module, g.fn.function_type, name=g.fn.name + suffix)
    f.calling_convention = "tailcc"
    f.linkage = "internal"
    for a in ("nounwind", "noinline", "cold"):
        f.attributes.add(a)
    return f


def _drop_arguments(b: ir.IRBuilder, g, f: ir.Function) -> None:
    """Drop what g's prologue owned (its arguments), as f received them."""
    from lp.compiler.codegen import counted
    own = {id(a): c for a, c in zip(g.fn.args, f.args)}
    for v in reversed(g.owned):
        if counted(v.ty):
            b.call(g.mod.rt("drop"), [own.get(id(v.cls), v.cls), own.get(id(v.bits), v.bits)])


def cold_path(g) -> ir.Function:
    """`F.cold` for the function g is generating, whose prologue has counted its frame and owns
    g.owned (its arguments). A copy always inlined (compiler/variants.py) shares the stack pointer
    of the frame it is inlined in, whose own check passed, so its `.cold` never grows: taking its
    address for the packer would keep it out of line too (fib 37 took 40% longer)."""
    from lp.compiler.codegen import c64
    mod, fn = g.mod, g.fn
    f = _beside(g, ".cold")
    b = ir.IRBuilder(f.append_basic_block())
    w = b.load(mod.depth)
    deeper = b.icmp_unsigned(">", w, b.load(mod.depth_limit))
    overflow = f.append_basic_block("overflow")
    if "alwaysinline" in fn.attributes:
        b.branch(overflow)
    else:
        grow = f.append_basic_block("grow")
        deep = f.append_basic_block("deep")
        b.cbranch(deeper, overflow, grow)
        b.position_at_end(grow)
        grown = b.icmp_unsigned("!=", b.call(mod.c("lpn_stack_grow"), []), ir.Constant(I32, 0))
        b.cbranch(grown, deep, overflow)
        b.position_at_end(deep)
        b.store(b.sub(w, c64(1)), mod.depth)   # that call counts it
        b.store(b.sub(b.load(mod.reductions), c64(1)), mod.reductions)
        b.ret(b.call(_packer(mod, fn.function_type), [fn, *f.args]))
    b.position_at_end(overflow)
    b.call(mod.c("lpn_stack_overflow"), [])
    _drop_arguments(b, g, f)
    b.store(b.sub(b.load(mod.depth), c64(1)), mod.depth)
    b.ret(ir.Constant(fn.function_type.return_type, [c64(UNWIND), c64(0)]))
    return f


def yield_path(g) -> ir.Function:
    """`F.yield` for the function g is generating, whose prologue has counted its frame and a
    reduction that reached the budget: uncount the frame, yield (`lpn_preempt`), then make the
    same call again (an inlined copy's out-of-line method, the same frame). The reduction count is
    left at -1, so the call's prologue makes it 0, where `lp run` starts the new turn. An actor
    killed meanwhile drops the arguments and unwinds."""
    from dataclasses import replace

    from lp.compiler.codegen import c64
    mod, fn = g.mod, g.fn
    again = fn
    if g.method is not None and g.method[1].inline:
        again = mod.method_fn(g.method[0], replace(g.method[1], inline=0))
    f = _beside(g, ".yield")
    b = ir.IRBuilder(f.append_basic_block())
    b.store(b.sub(b.load(mod.depth), c64(1)), mod.depth)
    killed = b.icmp_signed("!=", b.call(mod.c("lpn_preempt"), []), c64(0))
    with b.if_then(killed, likely=False):
        _drop_arguments(b, g, f)
        b.ret(ir.Constant(fn.function_type.return_type, [c64(UNWIND), c64(0)]))
    b.store(c64(-1), mod.reductions)
    b.ret(b.call(again, list(f.args), tail="tail", cconv="tailcc"))
    return f
