"""Which compiled copy of a method a direct call uses (docs/native.md "Functions, calls and dispatch").

A method the checker leaves generic (`Mandel class >> iter: x ...` with `x : 't`) has one
generic function, whose open parameters are tested at run time, and one copy per tuple of
scalar classes (Integer, Float, Boolean, Character) that direct callers prove for those
parameters: in that copy the arguments are unboxed, so Float arithmetic is inline.
A method that calls itself outside tail position also gets an inline copy: the method's
non-tail self-calls call the copy and the copy's call the method, so LLVM unrolls one level
of the recursion. Every copy keeps its own frame (depth count, call-stack entry), so
behaviour, errors and `--stack-limit` are the same whichever copy runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from lp.compiler.codegen import kind
from lp.ir import nodes as I

SCALARS = ("Integer", "Float", "Boolean", "Character")
UNROLL = 2


@dataclass(frozen=True, slots=True)
class Variant:
    args: tuple[str | None, ...] = ()   # per parameter: the scalar class callers prove, or None
    inline: int = 0                      # >0: an unrolled copy of a self-recursive method
    exact: bool = False                  # a pure method's exact function (compiler/pure.py)

    @property
    def suffix(self) -> str:
        s = f"<{','.join(a or '_' for a in self.args)}>" if self.args else ""
        return s + (f".unrolled{self.inline}" if self.inline else "") + (".exact" if self.exact else "")

    def param_types(self, md: I.MethodDef) -> list[I.Ty]:
        if not self.args:
            return [p.type for p in md.params]
        return [I.Ty(a) if a else p.type for p, a in zip(md.params, self.args)]

    def result_type(self, md: I.MethodDef, ty: I.Ty) -> I.Ty:
        """The call's type: the checker's, or the class of the argument whose type variable
        the method answers."""
        if ty.known or not self.args:
            return ty
        for p, a in zip(md.params, self.args):
            if a and p.type.var is not None and p.type == md.type:
                return I.Ty(a)
        return ty


GENERIC = Variant()


def choose(g, md: I.MethodDef, args, tail: bool) -> Variant:
    """The copy of md a direct call from the function g makes with these argument values."""
    spec = tuple(kind(a.ty) if p.type.var is not None and kind(a.ty) in SCALARS else None
                 for p, a in zip(md.params, args))
    here = g.method
    # an exact function calls exact functions: a call that gave up the fast copy stays exact below
    exact = here is not None and here[1].exact and md in g.mod.pure
    v = Variant(spec if any(spec) else (), exact=exact)
    if here is not None and here[0] is md and here[1].args == v.args and not tail and g.home is None:
        return Variant(v.args, (here[1].inline + 1) % (UNROLL + 1), exact)
    return v
