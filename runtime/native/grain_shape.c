/* grain_shape.c — a stored grain state checked against the shape of the program's state type, in native
 * binaries (lp/interp/grain_shape.py is the same check under lp run; lp/types/grain_shapes.py writes
 * the text and describes it), and the primitives that hand a grain server the shape of its initial
 * state: `GrainRef shape: text of: state` (the compiler inserts it where `Grain for: C initial: state`
 * is sent) and `GrainRef shapeOf: state` (stdlib/grain.lp takes it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

/* ---- the shapes given to initial states, until their server takes them */

typedef struct given { lpn_value state; lpn_value text; struct given *next; } given;
static given *gifts;
static pthread_mutex_t gifts_lock = PTHREAD_MUTEX_INITIALIZER;

static int same(lpn_value a, lpn_value b) { return a.cls == b.cls && a.bits == b.bits; }

/* Takes the entry for state (borrowed) off the list: its text, or cls 0 when none. */
static lpn_value take(lpn_value state) {
    lpn_value text = {0, 0};
    pthread_mutex_lock(&gifts_lock);
    for (given **p = &gifts; *p; p = &(*p)->next) {
        if (same((*p)->state, state)) {
            given *g = *p;
            *p = g->next;
            text = g->text;
            lpn_drop(g->state);
            free(g);
            break;
        }
    }
    pthread_mutex_unlock(&gifts_lock);
    return text;
}

lpn_value lpn_grain_shape_of(lpn_value *a) {   /* GrainRef shape: text of: state -> state */
    lpn_value text = a[1], state = a[2];
    lpn_drop(a[0]);
    if (text.cls != LPN_STRING || !lpn_is_heap(state)) {
        lpn_drop(text);
        return state;
    }
    lpn_value old = take(state);
    if (old.cls) lpn_drop(old);
    given *g = malloc(sizeof *g);
    if (!g) abort();
    lpn_dup(state);
    lpn_share(state);
    lpn_share(text);
    g->state = state;
    g->text = text;
    pthread_mutex_lock(&gifts_lock);
    g->next = gifts;
    gifts = g;
    pthread_mutex_unlock(&gifts_lock);
    return state;
}

lpn_value lpn_grain_shape_for(lpn_value *a) {   /* GrainRef shapeOf: state -> the text, or '' */
    lpn_value text = take(a[1]);
    lpn_drop(a[0]);
    lpn_drop(a[1]);
    return text.cls ? text : lpn_str_new("", 0);
}

/* ---- the check */

static const char *str_of(lpn_value v) { return ((lpn_str *)lpn_ptr(v))->data; }

static int is_instance(lpn_value v) { return v.cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(v)); }

/* The position just after the shape starting at s. */
static const char *skip(const char *s) {
    switch (*s) {
    case 'a': case 'm': return skip(s + 1);
    case 'd': case 'p': return skip(skip(s + 1));
    case '<': return strchr(s, '>') + 1;
    case '(':
        s = strchr(s, ':') + 1;
        while (*s != ')') s = skip(s);
        return s + 1;
    default: return s + 1;
    }
}

/* The class id named by the text from s to the first end character; UINT64_MAX when none. */
static uint64_t class_named(const char *s, char end) {
    size_t n = (size_t)(strchr(s, end) - s);
    for (uint64_t c = LPN_FIRST_INST; c < lpn_prog.nclasses; c++) {
        const char *name = lpn_prog.class_names[c];
        if (name && strlen(name) == n && !memcmp(name, s, n)) return c;
    }
    return UINT64_MAX;
}

static const char *expected(const char *s, char *buf, size_t cap) {
    switch (*s) {
    case 'i': return "Integer";
    case 'f': return "Float";
    case 'n': return "Number";
    case 's': return "String";
    case 'y': return "Symbol";
    case 'b': return "Boolean";
    case 'c': return "Character";
    case 'z': return "nil";
    case 'x': return "ByteArray";
    case 'a': return "Array";
    case 'm': return "Maybe";
    case 'd': return "Dictionary";
    case 'p': return "Association";
    default: {
        size_t n = strcspn(s + 1, ">:");
        snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), s + 1);
        return buf;
    }
    }
}

/* The class a '<' or '(' shape at s names, looked up once per position of text (memo: by offset, id + 1). */
static uint64_t class_at(const char *s, const char *text, uint64_t *memo) {
    uint64_t *m = &memo[s - text];
    if (!*m) *m = class_named(s + 1, *s == '<' ? '>' : ':') + 1;
    return *m - 1;
}

static int fits(lpn_value v, const char *s, const char *text, uint64_t *memo) {
    switch (*s) {
    case 'i': return v.cls == LPN_INT;
    case 'f': return v.cls == LPN_FLOAT;
    case 'n': return v.cls == LPN_INT || v.cls == LPN_FLOAT;
    case 's': return v.cls == LPN_STRING;
    case 'y': return v.cls == LPN_SYMBOL;
    case 'b': return v.cls == LPN_BOOL;
    case 'c': return v.cls == LPN_CHAR;
    case 'z': return v.cls == LPN_NIL;
    case 'x': return v.cls == LPN_BYTES;
    case 'a': return v.cls == LPN_ARRAY;
    case 'm': return v.cls == LPN_MAYBE;
    case 'd': return v.cls == LPN_DICT;
    case 'p': return v.cls == LPN_ASSOC;
    case '<': case '(': {
        uint64_t c = class_at(s, text, memo);
        return is_instance(v) && c != UINT64_MAX && lpn_is_kind_of(v.cls, c);
    }
    default: return 1;
    }
}

typedef struct { char *path; lpn_value v; const char *s; } item;   /* v borrowed from the state */
typedef struct { item *t; size_t n, cap; } stack;

static void push(stack *w, char *path, lpn_value v, const char *s) {
    if (*s == '*') { free(path); return; }
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->t = realloc(w->t, w->cap * sizeof *w->t);
        if (!w->t) abort();
    }
    w->t[w->n++] = (item){path, v, s};
}

static char *joined(const char *path, const char *fmt, const char *x) {
    size_t n = strlen(path) + strlen(fmt) + strlen(x) + 1;
    char *s = malloc(n);
    if (!s) abort();
    snprintf(s, n, fmt, path, x);
    return s;
}

/* Children are pushed last first, so that they are visited in order (as grain_shape.py does). */
typedef struct { char *path; lpn_value v; const char *s; } child;
static void push_all(stack *w, child *c, size_t n) {
    while (n--) push(w, c[n].path, c[n].v, c[n].s);
}

/* The position of the definition of class c in text (after "=") or NULL: defs caches them by class id. */
static const char *definition(const char *text, uint64_t c, const char **defs, char *looked) {
    if (!looked[c]) {
        looked[c] = 1;
        const char *name = lpn_prog.class_names[c];
        size_t n = strlen(name);
        for (const char *p = strchr(text, ';'); p; p = strchr(p + 1, ';'))
            if (!strncmp(p + 1, name, n) && p[1 + n] == '=') { defs[c] = p + 2 + n; break; }
    }
    return defs[c];
}

char *lpn_grain_shape_check(lpn_value v, const char *text) {
    stack w = {0};
    const char **defs = calloc(lpn_prog.nclasses, sizeof *defs);
    char *looked = calloc(lpn_prog.nclasses, 1), *problem = NULL, name[128];
    uint64_t *memo = calloc(strlen(text) + 1, sizeof *memo);
    lpn_value keep = LPN_NIL_VALUE;   /* the association lists of dictionaries, alive until the end */
    if (!defs || !looked || !memo) abort();
    push(&w, strdup("state"), v, text);
    while (w.n && !problem) {
        item t = w.t[--w.n];
        if (!fits(t.v, t.s, text, memo)) {
            lpn_dup(t.v);
            lpn_value d = lpn_describe(t.v);
            const char *want = expected(t.s, name, sizeof name);
            size_t n = strlen(t.path) + strlen(want) + strlen(str_of(d)) + 100;
            problem = malloc(n);
            if (!problem) abort();
            snprintf(problem, n, "a stored grain state does not have the program's state type: %s: expected %s, found %s",
                     t.path, want, str_of(d));
            lpn_drop(d);
        } else if (*t.s == 'a') {
            lpn_arr *x = (lpn_arr *)lpn_ptr(t.v);
            for (uint64_t i = x->len; i-- > 0;) {
                char num[24];
                snprintf(num, sizeof num, "%llu", (unsigned long long)i + 1);
                push(&w, joined(t.path, "%s[%s]", num), x->item[i], t.s + 1);
            }
        } else if (*t.s == 'm') {
            lpn_maybe *x = (lpn_maybe *)lpn_ptr(t.v);
            if (x->present) push(&w, joined(t.path, "%s.some%s", ""), x->value, t.s + 1);
        } else if (*t.s == 'p') {
            lpn_assoc *x = (lpn_assoc *)lpn_ptr(t.v);
            child c[2] = {{joined(t.path, "%s.key%s", ""), x->key, t.s + 1},
                          {joined(t.path, "%s.value%s", ""), x->value, skip(t.s + 1)}};
            push_all(&w, c, 2);
        } else if (*t.s == 'd') {
            lpn_dup(t.v);
            lpn_value l = lpn_dict_list('a', t.v);
            lpn_arr *x = (lpn_arr *)lpn_ptr(l);
            const char *ks = t.s + 1, *vs = skip(ks);
            for (uint64_t i = x->len; i-- > 0;) {
                lpn_assoc *e = (lpn_assoc *)lpn_ptr(x->item[i]);
                lpn_dup(e->key);
                lpn_value p = lpn_print_string(e->key);
                child c[2] = {{joined(t.path, "%s key%s", ""), e->key, ks},
                              {joined(t.path, "%s[%s]", p.cls == LPN_STRING ? str_of(p) : "?"), e->value, vs}};
                if (p.cls == LPN_STRING) lpn_drop(p);
                push_all(&w, c, 2);
            }
            keep = lpn_assoc_new(l, keep);
        } else if (*t.s == '<' || *t.s == '(') {
            const char *f = *t.s == '(' ? strchr(t.s, ':') + 1 : definition(text, t.v.cls, defs, looked);
            lpn_inst *x = (lpn_inst *)lpn_ptr(t.v);
            if (f) {
                const char **at = malloc((x->nfields + 1) * sizeof *at);
                if (!at) abort();
                uint64_t n = 0;
                for (; n < x->nfields && *f && *f != ')' && *f != ';'; n++, f = skip(f)) at[n] = f;
                while (n-- > 0)
                    push(&w, joined(t.path, "%s.%s", lpn_prog.field_names[t.v.cls][n]), x->field[n], at[n]);
                free(at);
            }
        }
        free(t.path);
    }
    for (size_t i = 0; i < w.n; i++) free(w.t[i].path);
    free(w.t);
    free(defs);
    free(looked);
    free(memo);
    lpn_drop(keep);
    return problem;
}
