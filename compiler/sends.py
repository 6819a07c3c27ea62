"""Message sends: direct calls when the receiver's class is proven and no subclass overrides
the method, inline primitives, field reads, instance building (`fields:` / `with:` with a
literal record), and otherwise a call of the selector's dispatch stub (docs/native.md "Functions, calls and dispatch")."""
from __future__ import annotations

from lp.compiler import net, prims
from lp.compiler.codegen import INST_FIELDS, V, c64, kind
from lp.compiler.dynamic import answer_type, class_ids, is_dynamic, settle, settle_library_args, trusted_read
from lp.compiler.layout import I64
from lp.compiler.unsupported import Unsupported
from lp.compiler.variants import choose
from lp.ir import nodes as I


class Sends:
    def __init__(self, mod):
        self.mod = mod

    def emit(self, g, e: I.Send, tail: bool):
        sel = e.selector
        if g.home is not None or (is_dynamic(e.type) and g.result_ty is not None
                                  and class_ids(self.mod, g.result_ty) is not None):
            tail = False    # the answer is checked before it is returned (compiler/dynamic.py)
        if sel == "fields:" and isinstance(e.args[0], I.MakeArray) and not e.args[0].items:
            e = I.Send(e.receiver, sel, (I.MakeRecord((), (), e.args[0].type, e.args[0].span),), e.type, e.span,
                       e.tail, e.super_from)   # `Get fields: {}`: the empty brace is the empty record
        if sel == "fields:" and isinstance(e.args[0], I.MakeRecord):
            return self.build_instance(g, e)
        if sel == "with:" and isinstance(e.args[0], I.MakeRecord):
            return self.copy_instance(g, e)
        r = self.borrowing_prim(g, e, tail)
        if r is not None:
            return r
        for x in (e.receiver, *e.args):
            if g.value(x, False) is None:
                g.dead()
        n = len(e.args)
        recv = g.owned[-(n + 1)]
        site = g.site(e.span)
        if e.super_from is not None:
            sup = self.mod.prog.classes[e.super_from].superclass
            t = self.mod.resolve(sup, g.class_side, sel) if sup else None
            if t is None:
                raise Unsupported(f"`super {sel}` where no superclass defines it", e.span)
            target = (t, sup, g.class_side)
        else:
            target = self.mod.static_target(recv.ty, sel)
        if target is None:
            missing = self.mod.only_missing(sel)
            if missing is not None:
                raise Unsupported(f"#{sel} (on {missing} and the other classes that have it)", e.span)
            tail = tail and not self.mod.stub_keeps_sender(sel) and g.can_tail_call(2 * (n + 1))
            self.mod.set_send_frame(g.b, g.trace_name if tail else None, site)
            return g.call_lp(self.mod.stub(sel, n), None, recv, g.owned[len(g.owned) - n:], site, tail, e.type)
        (what, x), cname, side = target[0][:2], target[1], target[2]
        if what == "method":
            args = g.owned[len(g.owned) - n:]
            variant = choose(g, x, args, tail)
            return g.call_lp(self.mod.method_fn(x, variant), None, recv, args, site, tail,
                             answer_type(self.mod, x, variant.result_type(x, e.type)))
        if what == "field":
            return self.field_get(g, recv, x, e.type, site)
        if what == "prim":
            settle_library_args(g, e, recv.ty, g.owned[len(g.owned) - n:], site)
            return prims.PRIMS[x](g, sel, n, site, tail, e.type)
        raise Unsupported(f"#{sel} on {x[0]}{' class' if x[1] else ''}", e.span)

    def borrowing_prim(self, g, e: I.Send, tail: bool):
        """A primitive that borrows its receiver (prims.BORROWING: `!`) sent to a variable that
        lives on: the binding's value is passed as it is, no dup before the call nor drop after
        (an Actor's count is atomic). None when the send is not one."""
        recv = g.borrowed(e.receiver, e.args) if e.super_from is None else None
        target = self.mod.static_target(recv.ty, e.selector) if recv is not None else None
        if target is None or target[0][0] != "prim" or target[0][1] not in prims.BORROWING:
            return None
        for x in e.args:
            if g.value(x, False) is None:
                g.dead()
        n = len(e.args)
        site = g.site(e.span)
        settle_library_args(g, e, recv.ty, g.owned[len(g.owned) - n:], site)
        g.owned.insert(len(g.owned) - n, recv)   # popped, never dropped: the primitive borrows it
        return prims.BORROWING[target[0][1]](g, e.selector, n, site, tail, e.type)

    def field_get(self, g, recv: V, index: int, ty: I.Ty, site: int | None = None) -> V:
        ptr = g.as_ptr(recv)
        v = g.load_value(ptr, INST_FIELDS + 16 * index, ty)
        g.dup(V(v.cls, v.bits, I.UNKNOWN))
        g.pop()
        g.drop(recv)
        if site is None or not self.mod.makes_dynamic:
            return g.push(v)
        # a field may have been given a Dynamic value (`fields:`, `with:`): tested where it is read
        return trusted_read(g, v.cls, v.bits, ty, site)

    def build_instance(self, g, e: I.Send):
        """`C fields: { ... }`, or `self fields: { ... }` on the class side, where the class is the
        receiver's at run time: a subclass inheriting the constructor (it adds no fields: the
        checker's rule) gets an instance of itself with the same layout."""
        rec: I.MakeRecord = e.args[0]
        if isinstance(e.receiver, I.ClassRef):
            cname, cid = e.receiver.name, c64(self.mod.layout.class_id(e.receiver.name))
        else:
            k = kind(e.receiver.type)
            cname = k[:-len(" class")] if k is not None and k.endswith(" class") else None
            if g.value(e.receiver, False) is None:
                g.dead()
            if cname is not None:
                settle(g, g.owned[-1], I.Ty(f"{cname} class"), g.site(e.receiver.span))
            cid = g.pop().bits
        if cname is None or not self.mod.layout.is_instance_class(cname):
            raise Unsupported("`fields:` on this receiver", e.span)
        fields = self.mod.layout.fields(cname)
        for x in rec.values:
            if g.value(x, False) is None:
                g.dead()
        vals = dict(zip(rec.names, g.pop_n(len(rec.values))))
        obj = g.b.call(self.mod.c("lpn_inst_new"), [cid, c64(len(fields))])
        for k, f in enumerate(fields):
            g.store_value(obj, INST_FIELDS + 16 * k, vals.get(f) or g.nil())
        return g.push(V(cid, g.b.ptrtoint(obj, I64), I.Ty(cname)))

    def copy_named(self, g, e: I.Send, rec: I.MakeRecord):
        """`with:` on a receiver of a class not known here (a generic method's parameter): the
        fields are found by name at run time (runtime/native/value.c lpn_with_named)."""
        if len(rec.names) > 64:
            raise Unsupported("`with:` of more than 64 fields on a receiver whose class is not known", e.span)
        for x in (e.receiver, *rec.values):
            if g.value(x, False) is None:
                g.dead()
        vs = g.pop_n(len(rec.values) + 1)
        arr = net._frame_array(g, len(vs))
        for k, v in enumerate(vs):
            g.store_value(arr, 16 * k, v)
        names = self.mod.layout.cstring("".join(n + " " for n in rec.names))
        return g.call_c("lpn_with_named", [arr, names, c64(len(rec.names))],
                        e.type if e.type.known else I.UNKNOWN, g.site(e.span), may_fail=True)

    def copy_instance(self, g, e: I.Send):
        rec: I.MakeRecord = e.args[0]
        k = kind(e.receiver.type)
        if k is None or k not in self.mod.prog.classes or not self.mod.layout.is_instance_class(k):
            return self.copy_named(g, e, rec)
        fields = self.mod.layout.fields(k)
        if g.value(e.receiver, False) is None:
            g.dead()
        for x in rec.values:
            if g.value(x, False) is None:
                g.dead()
        settle(g, g.owned[-(len(rec.values) + 1)], I.Ty(k), g.site(e.receiver.span))
        vals = g.pop_n(len(rec.values))
        recv = g.pop()
        obj = g.b.call(self.mod.c("lpn_copy_instance"), [recv.cls, recv.bits])
        for name, v in zip(rec.names, vals):
            idx = fields.index(name)
            old = g.load_value(obj, INST_FIELDS + 16 * idx, I.UNKNOWN)
            g.drop(old)
            g.store_value(obj, INST_FIELDS + 16 * idx, v)
        return g.push(V(recv.cls, g.b.ptrtoint(obj, I64), e.type if e.type.known else recv.ty))
