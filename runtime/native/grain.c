/* grain.c — the primitives under stdlib/grain.lp in native binaries (docs/grains.md;
 * lp/interp/prims_grain.py, whose messages these are): the grain reference (a foreign cell:
 * its label and the block that makes a call, which a send the reference does not answer
 * itself reaches: compiler/remote.py), the state's exact JSON and the checks a stored state
 * gets, node ids and the hash that places an id among a member list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lpnet.h"

static const char *str_of(lpn_value v) { return ((lpn_str *)lpn_ptr(v))->data; }

typedef struct grainref {
    lpn_foreign f;
    lpn_value label, block;   /* shared */
} grainref;

static void ref_fin(lpn_foreign *f) {
    grainref *g = (grainref *)f;
    lpn_drop(g->label);
    lpn_drop(g->block);
}
static int ref_print(lpn_foreign *f, char *buf, size_t cap) {
    return snprintf(buf, cap, "GrainRef(%s)", str_of(((grainref *)f)->label));
}
/* Two references to one grain (the same class and id: the label) are equal, as in lp/interp/values.py. */
static uint64_t ref_identity(lpn_foreign *f) {
    const char *s = str_of(((grainref *)f)->label);
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}
static const lpn_foreign_ops ref_ops = {ref_fin, ref_print, ref_identity, 0};

lpn_value lpn_grain_ref(lpn_value *a) {   /* GrainRef label: l like: sample on: [:sel :args | ...] */
    if (a[1].cls != LPN_STRING || a[3].cls != LPN_BLOCK || ((lpn_block *)lpn_ptr(a[3]))->arity != 2) {
        lpnet_drop_all(a, 4);
        return lpn_raise("GrainRef label:like:on: takes a String, a state and a two-argument Block");
    }
    grainref *g = lpn_alloc((uint32_t)lpnet_class("GrainRef"), sizeof *g);
    g->f.h.rc = -1;   /* shared from birth: references travel in messages */
    g->f.nfields = LPN_FOREIGN;
    g->f.ops = &ref_ops;
    g->label = a[1];
    g->block = a[3];
    lpn_share(g->label);
    lpn_share(g->block);
    lpn_drop(a[0]);
    lpn_drop(a[2]);
    return lpn_ref(g);
}

lpn_value lpn_grain_label(lpn_value *a) {
    lpn_value l = ((grainref *)lpn_ptr(a[0]))->label;
    lpn_dup(l);
    lpn_drop(a[0]);
    return l;
}

/* The block a forwarded send calls (compiler/remote.py); consumes the reference. */
lpn_value lpn_grain_block(lpn_value v) {
    lpn_value b = ((grainref *)lpn_ptr(v))->block;
    lpn_dup(b);
    lpn_drop(v);
    return b;
}

lpn_value lpn_grain_node_id(lpn_value *a) {
    char host[256] = "", id[400];
    unsigned char r[4] = {0};
    gethostname(host, sizeof host - 1);
    if (getrandom(r, sizeof r, 0) != sizeof r) abort();
    int n = snprintf(id, sizeof id, "%s-%ld-%02x%02x%02x%02x", host, (long)getpid(), r[0], r[1], r[2], r[3]);
    lpn_drop(a[0]);
    return lpn_str_new(id, (uint64_t)n);
}

lpn_value lpn_grain_hash_of(lpn_value *a) {   /* CRC-32 of the UTF-8, as zlib.crc32 */
    lpn_value s = a[1];
    lpn_drop(a[0]);
    if (s.cls != LPN_STRING) {
        lpn_value d = lpn_describe(s);
        lpn_value e = lpn_raise("GrainRef hashOf: expects a String, not %s", str_of(d));
        lpn_drop(d);
        return e;
    }
    lpn_str *t = (lpn_str *)lpn_ptr(s);
    uint32_t c = 0xFFFFFFFFu;
    for (uint64_t i = 0; i < t->len; i++) {
        c ^= (unsigned char)t->data[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    lpn_drop(s);
    return lpn_int((int64_t)(c ^ 0xFFFFFFFFu));
}

/* ---- the state: the one JSON form of LP values, exact */

static int is_instance(lpn_value v) { return v.cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(v)); }

/* How deep a state may nest (prims_grain.MAX_LEVELS, docs/grains.md): values, and arrays and
   objects of its stored JSON (a $dict pair takes three per level). */
#define MAX_LEVELS 300
#define MAX_JSON_LEVELS (3 * MAX_LEVELS)
#define TOO_DEEP "a grain state is nested more than 300 levels deep"

typedef struct { lpn_value v; int level; } leveled;

/* Does a value of v (borrowed) lie more than MAX_LEVELS levels down, v being level 1? No recursion. */
static int too_deep(lpn_value v) {
    size_t n = 0, cap = 64;
    leveled *w = malloc(cap * sizeof *w);
    lpn_value keep = LPN_NIL_VALUE;   /* the association lists of dictionaries, alive until the end */
    int deep = 0;
    if (!w) abort();
    w[n++] = (leveled){v, 1};
    while (n && !deep) {
        leveled x = w[--n];
        lpn_value *kids = NULL;
        uint64_t nkids = 0;
        lpn_value pair[2];
        if (is_instance(x.v)) {
            kids = ((lpn_inst *)lpn_ptr(x.v))->field;
            nkids = ((lpn_inst *)lpn_ptr(x.v))->nfields;
        } else if (x.v.cls == LPN_ARRAY) {
            kids = ((lpn_arr *)lpn_ptr(x.v))->item;
            nkids = ((lpn_arr *)lpn_ptr(x.v))->len;
        } else if (x.v.cls == LPN_MAYBE) {
            kids = &((lpn_maybe *)lpn_ptr(x.v))->value;
            nkids = ((lpn_maybe *)lpn_ptr(x.v))->present ? 1 : 0;
        } else if (x.v.cls == LPN_ASSOC) {
            pair[0] = ((lpn_assoc *)lpn_ptr(x.v))->key;
            pair[1] = ((lpn_assoc *)lpn_ptr(x.v))->value;
            kids = pair;
            nkids = 2;
        } else if (x.v.cls == LPN_DICT) {
            lpn_dup(x.v);
            lpn_value l = lpn_dict_list('a', x.v);
            keep = lpn_assoc_new(l, keep);
            kids = ((lpn_arr *)lpn_ptr(l))->item;   /* associations: one level each, as key and value are */
            nkids = ((lpn_arr *)lpn_ptr(l))->len;
            x.level--;
        }
        if (nkids && x.level >= MAX_LEVELS) { deep = 1; break; }
        for (uint64_t i = 0; i < nkids; i++) {
            if (n == cap) {
                cap *= 2;
                w = realloc(w, cap * sizeof *w);
                if (!w) abort();
            }
            w[n++] = (leveled){kids[i], x.level + 1};
        }
    }
    free(w);
    lpn_drop(keep);
    return deep;
}

lpn_value lpn_grain_encode_state(lpn_value *a) {
    lpn_drop(a[0]);
    if (too_deep(a[1])) {
        lpn_drop(a[1]);
        return lpn_raise(TOO_DEEP);
    }
    return lpn_json_encode_as(a[1], LPN_JSON_EXACT);
}

/* Do the arrays and objects of JSON text nest more than MAX_JSON_LEVELS deep (outside strings)? */
static int json_too_deep(const lpn_str *t) {
    int depth = 0, in_string = 0, escaped = 0;
    for (uint64_t i = 0; i < t->len; i++) {
        char c = t->data[i];
        if (in_string) {
            if (escaped) escaped = 0;
            else if (c == '\\') escaped = 1;
            else if (c == '"') in_string = 0;
        } else if (c == '"') in_string = 1;
        else if (c == '[' || c == '{') { if (++depth > MAX_JSON_LEVELS) return 1; }
        else if (c == ']' || c == '}') depth--;
    }
    return 0;
}

/* v a new state for a grain whose initial state is sample: an instance of its class or a subclass (borrows) */
static int is_state(lpn_value v, lpn_value sample) {
    return is_instance(v) && is_instance(sample) && lpn_is_kind_of(v.cls, sample.cls);
}

lpn_value lpn_grain_is_state(lpn_value *a) {
    int r = is_state(a[1], a[2]);
    lpnet_drop_all(a, 3);
    return lpn_bool(r);
}

static char *described(lpn_value v) {   /* borrows v; malloc'd */
    lpn_dup(v);
    lpn_value d = lpn_describe(v);
    char *s = strdup(str_of(d));
    lpn_drop(d);
    return s;
}

lpn_value lpn_grain_as_state(lpn_value *a) {
    if (is_state(a[1], a[2])) {
        lpn_drop(a[0]);
        lpn_drop(a[2]);
        return a[1];
    }
    char *v = described(a[1]), *s = described(a[2]);
    lpn_value e = lpn_raise("%s is not a state like %s", v, s);
    free(v); free(s);
    lpnet_drop_all(a, 3);
    return e;
}

/* The kind of value _unlike compares: the class, one kind for every instance. */
static uint64_t kind_of(lpn_value v) { return is_instance(v) ? LPN_FIRST_INST : v.cls; }

typedef struct { char *path; lpn_value a, b; } todo;   /* values borrowed from the two states */
typedef struct { todo *t; size_t n, cap; } work;

static void push(work *w, char *path, lpn_value a, lpn_value b) {
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->t = realloc(w->t, w->cap * sizeof *w->t);
        if (!w->t) abort();
    }
    w->t[w->n++] = (todo){path, a, b};
}

static char *fmt(const char *f, const char *path, const char *x) {
    size_t n = strlen(f) + strlen(path) + (x ? strlen(x) : 0) + 24;
    char *s = malloc(n);
    if (!s) abort();
    snprintf(s, n, f, path, x);
    return s;
}

/* Where v is not of sample's shape (prims_grain._unlike, visiting in its order): 0 when it is,
   else 1 with the path and the two values (borrowed) */
static int unlike(lpn_value v, lpn_value sample, char **path, lpn_value *pa, lpn_value *pb, lpn_value *keep) {
    work w = {0};
    push(&w, strdup("the state"), v, sample);
    int found = 0;
    while (w.n && !found) {
        todo t = w.t[--w.n];
        lpn_value a = t.a, b = t.b;
        if (kind_of(a) != kind_of(b) || (is_instance(a) && !(lpn_is_kind_of(a.cls, b.cls) || lpn_is_kind_of(b.cls, a.cls)))) {
            *path = t.path; *pa = a; *pb = b;
            found = 1;
            break;
        }
        if (is_instance(a)) {
            lpn_inst *x = (lpn_inst *)lpn_ptr(a), *y = (lpn_inst *)lpn_ptr(b);
            uint64_t n = x->nfields < y->nfields ? x->nfields : y->nfields;
            for (uint64_t i = 0; i < n; i++)
                push(&w, fmt("%s's %s", t.path, lpn_prog.field_names[b.cls][i]), x->field[i], y->field[i]);
        } else if (a.cls == LPN_ARRAY && ((lpn_arr *)lpn_ptr(b))->len) {
            lpn_arr *x = (lpn_arr *)lpn_ptr(a);
            for (uint64_t i = 0; i < x->len; i++) {
                char num[24];
                snprintf(num, sizeof num, "%llu", (unsigned long long)i + 1);
                push(&w, fmt("%s's element %s", t.path, num), x->item[i], ((lpn_arr *)lpn_ptr(b))->item[0]);
            }
        } else if (a.cls == LPN_MAYBE && ((lpn_maybe *)lpn_ptr(a))->present && ((lpn_maybe *)lpn_ptr(b))->present) {
            push(&w, fmt("%s's value", t.path, NULL), ((lpn_maybe *)lpn_ptr(a))->value, ((lpn_maybe *)lpn_ptr(b))->value);
        } else if (a.cls == LPN_ASSOC) {
            lpn_assoc *x = (lpn_assoc *)lpn_ptr(a), *y = (lpn_assoc *)lpn_ptr(b);
            push(&w, fmt("%s's key", t.path, NULL), x->key, y->key);
            push(&w, fmt("%s's value", t.path, NULL), x->value, y->value);
        } else if (a.cls == LPN_DICT && lpn_dict_size((lpn_dup(b), b)).bits) {
            /* the association lists are kept alive until the end (keep) */
            lpn_dup(a);
            lpn_dup(b);
            lpn_value la = lpn_dict_list('a', a), lb = lpn_dict_list('a', b);
            lpn_assoc *first = (lpn_assoc *)lpn_ptr(((lpn_arr *)lpn_ptr(lb))->item[0]);
            lpn_arr *x = (lpn_arr *)lpn_ptr(la);
            for (uint64_t i = 0; i < x->len; i++) {
                lpn_assoc *e = (lpn_assoc *)lpn_ptr(x->item[i]);
                push(&w, fmt("a key of %s", t.path, NULL), e->key, first->key);
                push(&w, fmt("%s at a key", t.path, NULL), e->value, first->value);
            }
            lpn_value pair = lpn_assoc_new(la, lb);
            *keep = lpn_assoc_new(pair, *keep);
        }
        free(t.path);
    }
    for (size_t i = 0; i < w.n; i++) free(w.t[i].path);
    free(w.t);
    return found;
}

/* GrainRef decodeState: json like: initial shape: text. Checked against the shape of the program's state
   type (grain_shape.c), or without one (''), against the initial state. */
lpn_value lpn_grain_decode_state(lpn_value *a) {
    lpn_value text = a[1], sample = a[2], shape = a[3], v;
    char err[300];
    lpn_drop(a[0]);
    char *typed = shape.cls == LPN_STRING && ((lpn_str *)lpn_ptr(shape))->len ? strdup(str_of(shape)) : NULL;
    lpn_drop(shape);
    if (text.cls == LPN_STRING && json_too_deep((lpn_str *)lpn_ptr(text))) {
        lpn_drop(text);
        lpn_drop(sample);
        free(typed);
        return lpn_raise("a stored grain state does not decode: " TOO_DEEP);
    }
    if (text.cls != LPN_STRING || lpn_json_parse(text, &v, err, sizeof err, 1)) {
        if (text.cls != LPN_STRING) { lpn_drop(text); snprintf(err, sizeof err, "not a String"); }
        lpn_drop(sample);
        free(typed);
        return lpn_raise("a stored grain state does not decode: %s", err);
    }
    v = lpn_json_untag(v, 1);
    if (v.cls == LPN_UNWIND) { lpn_drop(sample); free(typed); return v; }
    lpn_value r = v;
    if (too_deep(v)) {
        r = lpn_raise("a stored grain state does not decode: " TOO_DEEP);
        lpn_drop(v);
    } else if (!is_state(v, sample)) {
        char *dv = described(v), *ds = described(sample), like[300];
        if (is_instance(sample)) snprintf(like, sizeof like, "an instance of %s", lpn_prog.class_names[sample.cls]);
        else snprintf(like, sizeof like, "like %s", ds);
        r = lpn_raise("a stored grain state is %s, not %s", dv, like);
        free(dv); free(ds);
        lpn_drop(v);
    } else if (typed) {
        char *problem = lpn_grain_shape_check(v, typed);
        if (problem) {
            r = lpn_raise("%s", problem);
            free(problem);
            lpn_drop(v);
        }
    } else {
        char *path;
        lpn_value x, y, keep = LPN_NIL_VALUE;
        if (unlike(v, sample, &path, &x, &y, &keep)) {
            char *dx = described(x), *dy = described(y);
            r = lpn_raise("a stored grain state is not like the initial state: %s is %s where the initial state has %s",
                          path, dx, dy);
            free(dx); free(dy); free(path);
            lpn_drop(v);
        }
        lpn_drop(keep);
    }
    lpn_drop(sample);
    free(typed);
    return r;
}
