"""Deep stacks in the generated code (docs/native.md "Stacks"). A prologue that finds its fiber's
stack full (below `lpn_stack_floor`) asks for the actor's deep stack (`lpn_stack_grow`: a spawned
actor not on it yet) and makes the same call again there, through a thunk per arity
(`lpn.deep.N`) that packs the arguments in a frame of its own and has `lpn_deep_call` run the
function on the deep stack; it answers that call's result. The LP function's own frame is as it
was: the thunk and the deep call are out of line, on a path taken once per crossing. (A runner
per function calling it directly, so that its address is not taken, measured the same: fib 27
runs 3% more instructions either way, the arguments the cold path passes on staying live; it
made 4% more code and slower builds.)"""
from __future__ import annotations

from llvmlite import ir

from lp.compiler.layout import I32, I64, PTR

I8 = ir.IntType(8)


def _word(b: ir.IRBuilder, ctx, k: int):
    return b.gep(ctx, [ir.Constant(I64, 8 * k)], source_etype=I8)


def thunk(mod, fnty: ir.FunctionType) -> ir.Function:
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
    f.attributes.add("nounwind")
    f.attributes.add("noinline")
    f.attributes.add("cold")
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


def grow_or(g, overflow) -> None:
    """The prologue's cold path once the depth is within --stack-limit and the stack pointer below
    the floor: on a deep stack, the same call again there (this frame's entry undone first: that
    call counts it); else `overflow()`. A copy always inlined (compiler/variants.py) shares the
    stack pointer of the frame it is inlined in, whose own check passed, so it never gets here;
    its address taken by the thunk's call would keep it out of line too (fib 37 took 40% longer)."""
    from lp.compiler.codegen import FRAME_AND_REDUCTION, c64
    b = g.b
    if "alwaysinline" in g.fn.attributes:
        overflow()
        return
    grown = b.icmp_unsigned("!=", b.call(g.mod.c("lpn_stack_grow"), []), ir.Constant(I32, 0))
    with b.if_else(grown, likely=True) as (deep, full):
        with deep:
            b.store(b.sub(b.load(g.mod.depth), c64(FRAME_AND_REDUCTION)), g.mod.depth)
            b.ret(b.call(thunk(g.mod, g.fn.function_type), [g.fn, *g.fn.args]))
        with full:
            overflow()
    b.unreachable()

