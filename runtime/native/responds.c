/* responds.c — `respondsTo:`: whether a value's class (or a class value's class side) has a method
   for a selector, from the per-class selector lists the compiler emits (docs/native.md "The C core"). */
#include <string.h>

#include "lpn.h"

/* own[2 * id + side] is " sel1 sel2 ... " (the selectors class id defines itself on that side) or NULL. */
static int defines(const char *const *own, uint64_t id, int side, const char *name, uint64_t len) {
    const char *row = id < lpn_prog.nclasses ? own[2 * id + side] : NULL;
    for (const char *p = row ? strstr(row, name) : NULL; p; p = strstr(p + 1, name))
        if (p[-1] == ' ' && p[len] == ' ') return 1;
    return 0;
}

static int chain(const char *const *own, uint64_t id, int side, const char *name, uint64_t len) {
    for (; id != UINT64_MAX && id < lpn_prog.nclasses; id = lpn_prog.superclass[id])
        if (defines(own, id, side, name, len)) return 1;
    return 0;
}

lpn_value lpn_responds_to(lpn_value v, lpn_value sel, const char *const *own, uint64_t object_id) {
    const char *name = "";
    uint64_t len = 0;
    if (sel.cls == LPN_SYMBOL) {
        const lpn_symbol *s = (const lpn_symbol *)lpn_ptr(sel);
        name = s->name;
        len = s->len;
    } else if (sel.cls == LPN_STRING) {
        name = ((lpn_str *)lpn_ptr(sel))->data;
        len = ((lpn_str *)lpn_ptr(sel))->len;
    }
    int r = len > 0 && !strchr(name, ' ') && (v.cls == LPN_CLASS
        ? chain(own, v.bits, 1, name, len) || chain(own, object_id, 0, name, len)
        : chain(own, v.cls, 0, name, len));
    lpn_drop(v);
    lpn_drop(sel);
    return lpn_bool(r);
}
