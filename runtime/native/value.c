/* value.c — allocation, reference counts (plain for one owner, atomic once shared) and freeing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lprt.h"
#include "lpn.h"

void *lpn_alloc(uint32_t cls, size_t bytes) {
    lpn_obj *o = malloc(bytes);
    if (!o) {
        lpn_flush();
        fputs("lp: out of memory\n", stderr);
        exit(1);
    }
    o->rc = 1;
    o->cls = cls;
    return o;
}

/* The count's sign is read with a relaxed atomic load: a shared count (negative) is changed by
   other threads at the same time, and a plain read of it would be a data race (the same single
   load on x86). A positive count belongs to one thread, which alone reads and writes it. */
static inline int32_t count_of(lpn_obj *o) { return __atomic_load_n(&o->rc, __ATOMIC_RELAXED); }

void lpn_dup_obj(lpn_obj *o) {
    int32_t rc = count_of(o);
    if (rc > 0) o->rc = rc + 1;
    else if (rc < 0) __atomic_fetch_sub(&o->rc, 1, __ATOMIC_RELAXED);
}

/* Counting down to zero: plain for a positive count, atomic for a shared (negative) one. */
static int release(lpn_obj *o) {
    int32_t rc = count_of(o);
    if (rc > 0) return (o->rc = rc - 1) == 0;
    if (rc < 0) return __atomic_add_fetch(&o->rc, 1, __ATOMIC_ACQ_REL) == 0;
    return 0;
}

/* Freeing pushes children on a worklist, so a long chain does not recurse; its first items are
   on the stack, so freeing a small graph allocates nothing. */
enum { WORK_INLINE = 16 };
typedef struct { lpn_obj **items; size_t n, cap; lpn_obj *inline_items[WORK_INLINE]; } worklist;

static void push(worklist *w, lpn_value v) {
    if (!lpn_is_heap(v)) return;
    lpn_obj *o = lpn_ptr(v);
    if (!release(o)) return;
    if (w->n == w->cap) {
        size_t cap = w->cap * 2;
        lpn_obj **items = w->items == w->inline_items ? malloc(cap * sizeof *items)
                                                      : realloc(w->items, cap * sizeof *items);
        if (!items) abort();
        if (w->items == w->inline_items) memcpy(items, w->inline_items, sizeof w->inline_items);
        w->items = items;
        w->cap = cap;
    }
    w->items[w->n++] = o;
}

static void push_cb(lpn_value v, void *w) { push(w, v); }

static void free_one(worklist *w, lpn_obj *o) {
    switch (o->cls) {
    case LPN_DICT: case LPN_DNODE: case LPN_DLEAF: case LPN_DCOLL: lpn_dict_children(o, push_cb, w); break;
    case LPN_STRING: case LPN_HOME: case LPN_INTERVAL: break;
    case LPN_ARRAY: {
        lpn_arr *a = (lpn_arr *)o;
        for (uint64_t i = 0; i < a->len; i++) push(w, a->item[i]);
        break;
    }
    case LPN_ASSOC: push(w, ((lpn_assoc *)o)->key); push(w, ((lpn_assoc *)o)->value); break;
    case LPN_MAYBE: push(w, ((lpn_maybe *)o)->value); break;
    case LPN_BLOCK: {
        lpn_block *b = (lpn_block *)o;
        for (uint32_t i = 0; i < b->ncap; i++) push(w, b->cap[i]);
        if (b->home) push(w, lpn_ref(b->home));
        break;
    }
    default:
        if (lpn_is_foreign(o)) {
            const lpn_foreign_ops *ops = ((lpn_foreign *)o)->ops;
            ops->fin((lpn_foreign *)o);
            if (ops->in_place) return;
        } else if (o->cls >= LPN_FIRST_INST) {
            lpn_inst *in = (lpn_inst *)o;
            for (uint64_t i = 0; i < in->nfields; i++) push(w, in->field[i]);
        }
    }
    free(o);
}

void lpn_free(lpn_obj *o) {
    worklist w;
    w.items = w.inline_items;
    w.n = 0;
    w.cap = WORK_INLINE;
    free_one(&w, o);
    while (w.n) free_one(&w, w.items[--w.n]);
    if (w.items != w.inline_items) free(w.items);
}

void lpn_drop_obj(lpn_obj *o) {
    if (release(o)) lpn_free(o);
}

static void share(lpn_value v);

static void share_cb(lpn_value v, void *ud) { (void)ud; share(v); }

static void share_children(lpn_obj *o) {
    switch (o->cls) {
    case LPN_DICT: case LPN_DNODE: case LPN_DLEAF: case LPN_DCOLL: lpn_dict_children(o, share_cb, NULL); break;
    case LPN_ARRAY: {
        lpn_arr *a = (lpn_arr *)o;
        for (uint64_t i = 0; i < a->len; i++) share(a->item[i]);
        break;
    }
    case LPN_ASSOC: share(((lpn_assoc *)o)->key); share(((lpn_assoc *)o)->value); break;
    case LPN_MAYBE: share(((lpn_maybe *)o)->value); break;
    case LPN_BLOCK: {
        lpn_block *b = (lpn_block *)o;
        for (uint32_t i = 0; i < b->ncap; i++) share(b->cap[i]);
        if (b->home) share(lpn_ref(b->home));
        break;
    }
    default:
        if (o->cls >= LPN_FIRST_INST && !lpn_is_foreign(o)) {
            lpn_inst *in = (lpn_inst *)o;
            for (uint64_t i = 0; i < in->nfields; i++) share(in->field[i]);
        }
    }
}

static void share_deep(void *v) { share(*(lpn_value *)v); }

static void share(lpn_value v) {
    if (!lpn_is_heap(v)) return;
    lpn_obj *o = lpn_ptr(v);
    if (count_of(o) <= 0) return;   /* static, or already shared (and so is everything below it) */
    if (lpn_stack_low() && lpn_deep(share_deep, &v)) return;   /* a spawned actor's first stack is full */
    o->rc = -o->rc;
    share_children(o);
}

void lpn_share(lpn_value v) { share(v); }

lpn_arr *lpn_arr_new(uint64_t len) {
    lpn_arr *a = lpn_alloc(LPN_ARRAY, sizeof(lpn_arr) + len * sizeof(lpn_value));
    a->len = len;
    return a;
}

lpn_value lpn_assoc_new(lpn_value key, lpn_value value) {
    lpn_assoc *a = lpn_alloc(LPN_ASSOC, sizeof(lpn_assoc));
    a->key = key;
    a->value = value;
    return lpn_ref(a);
}

lpn_inst *lpn_inst_new(uint64_t cls, uint64_t nfields) {
    lpn_inst *o = lpn_alloc((uint32_t)cls, sizeof(lpn_inst) + nfields * sizeof(lpn_value));
    o->nfields = nfields;
    return o;
}

lpn_block *lpn_block_new(void *code, uint64_t arity, uint64_t ncap, lpn_home *home) {
    lpn_block *b = lpn_alloc(LPN_BLOCK, sizeof(lpn_block) + ncap * sizeof(lpn_value));
    b->code = code;
    b->home = home;
    b->arity = (uint32_t)arity;
    b->ncap = (uint32_t)ncap;
    return b;
}

lpn_home *lpn_home_new(void) {
    lpn_home *h = lpn_alloc(LPN_HOME, sizeof(lpn_home));
    h->alive = 1;
    h->owner = lprt_self();
    return h;
}

void lpn_home_end(lpn_home *h) {
    h->alive = 0;
    lpn_drop_obj(&h->h);
}

int lpn_is_kind_of(uint64_t cls, uint64_t ancestor) {
    while (cls < lpn_prog.nclasses) {
        if (cls == ancestor) return 1;
        cls = lpn_prog.superclass[cls];
    }
    return 0;
}

lpn_inst *lpn_copy_instance(lpn_value v) {
    lpn_inst *o = (lpn_inst *)lpn_ptr(v);
    if (o->h.rc == 1) return o;   /* the only reference: update in place (Perceus reuse) */
    lpn_inst *c = lpn_inst_new(o->h.cls, o->nfields);
    for (uint64_t i = 0; i < o->nfields; i++) {
        c->field[i] = o->field[i];
        lpn_dup(c->field[i]);
    }
    lpn_drop(v);
    return c;
}

lpn_value lpn_new_instance(uint64_t cls) {
    if (lpn_is_kind_of(cls, lpn_prog.error_class)) {   /* `E new` is `E new: 'E'`, as in lp run */
        const char *name = lpn_prog.class_names[cls];
        return lpn_error_new(cls, lpn_str_new(name, strlen(name)));
    }
    uint64_t n = lpn_prog.nfields[cls];
    lpn_inst *o = lpn_inst_new(cls, n);
    for (uint64_t i = 0; i < n; i++) o->field[i] = LPN_NIL_VALUE;
    return lpn_ref(o);
}

/* `obj with: { a: x. b: y }` where the compiler does not know obj's class (a generic method's
   parameter): a[0] the receiver, a[1..n] the new values of the fields named in `names` (each
   followed by a space), found by name in the receiver's class as lp/interp/prims_objects.py does;
   consumes them all. */
lpn_value lpn_with_named(lpn_value *a, const char *names, uint64_t n) {
    lpn_obj *o = lpn_is_heap(a[0]) ? lpn_ptr(a[0]) : NULL;
    if (!o || o->cls < LPN_FIRST_INST || lpn_is_foreign(o)) {
        for (uint64_t i = 0; i <= n; i++) lpn_drop(a[i]);
        return lpn_raise("#with: copies an instance with a record of new field values, not a Record");
    }
    uint64_t cls = o->cls, nf = lpn_prog.nfields[cls];
    int64_t idx[64];
    const char *p = names;
    for (uint64_t k = 0; k < n; k++) {
        const char *e = strchr(p, ' ');
        size_t len = (size_t)(e - p);
        idx[k] = -1;
        for (uint64_t f = 0; f < nf; f++)
            if (strlen(lpn_prog.field_names[cls][f]) == len && !memcmp(lpn_prog.field_names[cls][f], p, len)) idx[k] = (int64_t)f;
        if (idx[k] < 0) {
            for (uint64_t i = 0; i <= n; i++) lpn_drop(a[i]);
            return lpn_raise("%s has no field `%.*s`", lpn_prog.class_names[cls], (int)len, p);
        }
        p = e + 1;
    }
    lpn_inst *c = lpn_copy_instance(a[0]);
    for (uint64_t k = 0; k < n; k++) {
        lpn_drop(c->field[idx[k]]);
        c->field[idx[k]] = a[1 + k];
    }
    return lpn_ref(c);
}
