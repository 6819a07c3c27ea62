/* lib.c — the smaller library selectors, one entry point by code (compiler/prims.py _LIB):
 * hashing, sorting, String asNumber / copyReplaceAll:with:, bitShift:, roundTo:, Dictionary value
 * searches, Interval reversed / sum, Symbol ordering. Each case follows the interpreter's primitive
 * (lp/interp/prims_*.py) and its error wording. Consumes v, a and b. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"


static const char *cstr(lpn_value s) { return ((lpn_str *)lpn_ptr(s))->data; }
static uint64_t slen(lpn_value s) { return ((lpn_str *)lpn_ptr(s))->len; }

/* Python's hash of an int (the interpreter's `hash`), masked to 62 bits as it is there. */
static int64_t py_int_hash(int64_t n) {
    const uint64_t M = ((uint64_t)1 << 61) - 1;
    uint64_t a = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    int64_t h = (int64_t)(a % M);
    if (n < 0) h = -h;
    if (h == -1) h = -2;
    return h & (((int64_t)1 << 62) - 1);
}

/* Python's hash of a float (CPython's _Py_HashDouble: the value as a fraction modulo 2^61 - 1, so
   an integral Float hashes as the equal Integer), masked as py_int_hash. NaN has no reproducible
   hash in the interpreter (its object identity): the caller answers another. */
static int64_t py_float_hash(double v) {
    const uint64_t M = ((uint64_t)1 << 61) - 1;
    if (isinf(v)) return v > 0 ? 314159 : -314159 & (((int64_t)1 << 62) - 1);
    int e, sign = 1;
    double m = frexp(v, &e);
    if (m < 0) {
        sign = -1;
        m = -m;
    }
    uint64_t x = 0;
    while (m) {
        x = ((x << 28) & M) | x >> (61 - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        x += y;
        if (x >= M) x -= M;
    }
    e = e >= 0 ? e % 61 : 61 - 1 - ((-1 - e) % 61);
    x = ((x << e) & M) | x >> (61 - e);
    int64_t h = (int64_t)x * sign;
    if (h == -1) h = -2;
    return h & (((int64_t)1 << 62) - 1);
}

/* The interpreter's sort key: numbers before strings; anything else is an error. */
typedef struct { lpn_value v; uint64_t i; } sitem;
static int sort_cmp(const void *x, const void *y) {
    const sitem *a = x, *b = y;
    int sa = a->v.cls == LPN_STRING, sb = b->v.cls == LPN_STRING;
    if (sa != sb) return sa - sb;
    int c = 0;
    if (sa) c = strcmp(cstr(a->v), cstr(b->v));
    else {
        double p = a->v.cls == LPN_INT ? (double)(int64_t)a->v.bits : lpn_f(a->v);
        double q = b->v.cls == LPN_INT ? (double)(int64_t)b->v.bits : lpn_f(b->v);
        if (a->v.cls == LPN_INT && b->v.cls == LPN_INT) {
            int64_t m = (int64_t)a->v.bits, n = (int64_t)b->v.bits;
            c = (m > n) - (m < n);
        } else c = (p > q) - (p < q);
    }
    if (c) return c;
    return (a->i > b->i) - (a->i < b->i);   /* stable, like Python's sorted */
}

static int int_cmp(const void *x, const void *y) {
    int64_t m = *(const int64_t *)x, n = *(const int64_t *)y;
    return (m > n) - (m < n);
}

static lpn_value sorted(lpn_value av) {
    lpn_arr *a = (lpn_arr *)lpn_ptr(av);
    for (uint64_t i = 0; i < a->len; i++) {
        lpn_value x = a->item[i];
        if (x.cls != LPN_INT && x.cls != LPN_FLOAT && x.cls != LPN_STRING) {
            lpn_value d = lpn_describe(x);
            lpn_value e = lpn_raise("#asSortedArray can only order numbers and strings, not %s", cstr(d));
            lpn_drop(d);
            return e;
        }
    }
    uint64_t ints = 0;
    while (ints < a->len && a->item[ints].cls == LPN_INT) ints++;
    if (ints == a->len) {   /* only Integers: equal ones are indistinguishable, so any order of ties is stable */
        int64_t *k = malloc(sizeof(int64_t) * (a->len ? a->len : 1));
        for (uint64_t i = 0; i < a->len; i++) k[i] = (int64_t)a->item[i].bits;
        qsort(k, a->len, sizeof(int64_t), int_cmp);
        lpn_arr *r = lpn_arr_new(a->len);
        for (uint64_t i = 0; i < a->len; i++) r->item[i] = lpn_int(k[i]);
        free(k);
        return lpn_ref(r);
    }
    sitem *tmp = malloc(sizeof(sitem) * (a->len ? a->len : 1));
    for (uint64_t i = 0; i < a->len; i++) tmp[i] = (sitem){a->item[i], i};
    qsort(tmp, a->len, sizeof(sitem), sort_cmp);
    lpn_arr *r = lpn_arr_new(a->len);
    for (uint64_t i = 0; i < a->len; i++) { r->item[i] = tmp[i].v; lpn_dup(tmp[i].v); }
    free(tmp);
    return lpn_ref(r);
}

static lpn_value quoted(lpn_value s) {   /* the interpreter's _quoted: printString of at most 40 chars */
    lpn_str *p = (lpn_str *)lpn_ptr(s);
    if (p->nchars <= 40) { lpn_dup(s); return lpn_print_string(s); }
    lpn_value head = lpn_str_copy((lpn_dup(s), s), lpn_int(1), lpn_int(37));
    lpn_value t = lpn_str_concat(head, lpn_str_new("...", 3));
    return lpn_print_string(t);
}


static lpn_value as_number(lpn_value s) {
    const char *p = cstr(s), *q = p, *end = p + slen(s);
    if (*q == '+' || *q == '-') q++;
    const char *d0 = q;
    while (q < end && *q >= '0' && *q <= '9') q++;
    int intpart = q > d0;   /* '3' asNumber is 3.0: a Float for every number, as its type says */
    int frac = 0;
    if (q < end && *q == '.') { q++; const char *f0 = q; while (q < end && *q >= '0' && *q <= '9') q++; frac = q > f0; }
    int ok = intpart || frac;
    if (ok && q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        const char *e0 = q;
        while (q < end && *q >= '0' && *q <= '9') q++;
        if (q == e0) ok = 0;
    }
    if (!ok || q != end) {
        lpn_value t = quoted(s);
        lpn_value e = lpn_raise("%s is not a number", cstr(t));
        lpn_drop(t);
        return e;
    }
    double f = strtod(p, NULL);
    if (isinf(f)) {
        lpn_value t = quoted(s);
        lpn_value e = lpn_raise("%s is too large for a Float", cstr(t));
        lpn_drop(t);
        return e;
    }
    return lpn_float(f);
}

static lpn_value replace_all(lpn_value s, lpn_value a, lpn_value b) {
    if (a.cls != LPN_STRING || b.cls != LPN_STRING) {
        return lpn_raise_expects("copyReplaceAll:with:", "a String", a.cls != LPN_STRING ? a : b);
    }
    uint64_t la = slen(a), lb = slen(b), ls = slen(s);
    if (la == 0) return lpn_raise("#copyReplaceAll:with: needs a non-empty String to replace");
    const char *src = cstr(s), *pat = cstr(a);
    uint64_t n = 0;
    for (const char *q = src; (q = strstr(q, pat)) != NULL; q += la) n++;
    char *buf = malloc(ls + n * (lb > la ? lb - la : 0) + 1), *o = buf;
    const char *q = src, *hit;
    while ((hit = strstr(q, pat)) != NULL) {
        memcpy(o, q, (size_t)(hit - q)); o += hit - q;
        memcpy(o, cstr(b), lb); o += lb;
        q = hit + la;
    }
    size_t rest = strlen(q);
    memcpy(o, q, rest); o += rest;
    lpn_value r = lpn_str_new(buf, (uint64_t)(o - buf));
    free(buf);
    return r;
}

static lpn_value bit_shift(int64_t a, lpn_value bv) {
    if (bv.cls != LPN_INT) return lpn_raise_expects("bitShift:", "an Integer", bv);
    int64_t b = (int64_t)bv.bits;
    if (b < 0) return lpn_int(b > -64 ? a >> -b : (a >= 0 ? 0 : -1));
    if (a == 0) return lpn_int(0);
    if (b >= 64) return lpn_int_overflow("bitShift:", a, b);
    __int128 r = (__int128)a << b;
    if (r > INT64_MAX || r < INT64_MIN) return lpn_int_overflow("bitShift:", a, b);
    return lpn_int((int64_t)r);
}

static lpn_value round_to(lpn_value av, lpn_value qv) {
    double a = lpn_f(av);
    double q = qv.cls == LPN_INT ? (double)(int64_t)qv.bits : lpn_f(qv);
    if (qv.cls != LPN_INT && qv.cls != LPN_FLOAT) return lpn_raise_expects("roundTo:", "a Number", qv);
    if (q == 0) return lpn_raise("division by zero");
    double r = a / q;
    if (isnan(r)) return lpn_float(r);
    if (isinf(r)) return lpn_float(r * q);
    double res = nearbyint(r) * q;   /* round half to even, as Python's round() */
    if (isinf(res) && !isinf(a) && !isinf(q)) {
        lpn_value x = lpn_print_string(av), y = lpn_print_string(qv);
        lpn_value e = lpn_raise("float overflow: %s roundTo: %s is too large", cstr(x), cstr(y));
        lpn_drop(x); lpn_drop(y);
        return e;
    }
    return lpn_float(res);
}

static lpn_value dict_search(int key_at, lpn_value d, lpn_value v) {
    lpn_dup(d);
    lpn_value as = lpn_dict_list('a', d);   /* consumes its argument; the caller drops d */
    lpn_arr *a = (lpn_arr *)lpn_ptr(as);
    lpn_value r = key_at ? lpn_maybe_new(0, LPN_NIL_VALUE) : lpn_bool(0);
    for (uint64_t i = 0; i < a->len; i++) {
        lpn_assoc *x = (lpn_assoc *)lpn_ptr(a->item[i]);
        if (lpn_equal_b(x->value, v)) {
            if (key_at) { lpn_drop(r); lpn_dup(x->key); r = lpn_maybe_new(1, x->key); }
            else r = lpn_bool(1);
            break;
        }
    }
    lpn_drop(as);
    return r;
}

static lpn_value interval(int op, lpn_value iv) {
    lpn_interval *p = (lpn_interval *)lpn_ptr(iv);
    __int128 n = lpn_interval_size(p);
    if (op == 'r') {
        if (n == 0) { lpn_dup(iv); return iv; }
        lpn_interval *r = lpn_alloc(LPN_INTERVAL, sizeof(lpn_interval));
        r->start = (int64_t)(p->start + (n - 1) * p->step);
        r->stop = p->start;
        r->step = -p->step;
        return lpn_ref(r);
    }
    if (n == 0) return lpn_int(0);
    __int128 last = (__int128)p->start + (n - 1) * p->step;
    __int128 t = n * ((__int128)p->start + last);
    __int128 total = t >= 0 ? t / 2 : -((-t + 1) / 2);   /* Python's floor division */
    if (total > INT64_MAX || total < INT64_MIN) {
        lpn_dup(iv);
        lpn_value s = lpn_print_string(iv);
        lpn_value e = lpn_raise("integer overflow: the sum of %s does not fit in 64 bits", cstr(s));
        lpn_drop(s);
        return e;
    }
    return lpn_int((int64_t)total);
}

static lpn_value copy_without(lpn_value av, lpn_value v) {
    lpn_arr *a = (lpn_arr *)lpn_ptr(av);
    uint64_t n = 0;
    for (uint64_t i = 0; i < a->len; i++) n += !lpn_equal_b(a->item[i], v);
    lpn_arr *r = lpn_arr_new(n);
    n = 0;
    for (uint64_t i = 0; i < a->len; i++)
        if (!lpn_equal_b(a->item[i], v)) { r->item[n++] = a->item[i]; lpn_dup(a->item[i]); }
    return lpn_ref(r);
}

static lpn_value class_name_string(uint64_t c) {
    const char *nm = c < lpn_prog.nclasses && lpn_prog.class_names[c] ? lpn_prog.class_names[c] : "Object";
    return lpn_str_new(nm, strlen(nm));
}

lpn_value lpn_lib_op(lpn_value v, lpn_value a, lpn_value b, int op) {
    lpn_value r;
    switch (op) {
    case 'h':   /* Object hash */
        if (v.cls == LPN_INT) r = lpn_int(py_int_hash((int64_t)v.bits));
        else if (v.cls == LPN_FLOAT && !isnan(lpn_f(v))) r = lpn_int(py_float_hash(lpn_f(v)));
        else r = lpn_int((int64_t)(lpn_hash(v) & (((uint64_t)1 << 62) - 1)));
        break;
    case 'S': r = sorted(v); break;                         /* Array asSortedArray */
    case 'W': r = copy_without(v, a); break;                /* Array copyWithout: */
    case 'N': r = as_number(v); break;                      /* String asNumber */
    case 'R': r = replace_all(v, a, b); break;              /* String copyReplaceAll:with: */
    case '<': case '>': {                                   /* Symbol < > */
        int c = 0;
        if (a.cls != LPN_SYMBOL) { r = lpn_bool(0); break; }
        const lpn_symbol *x = (const lpn_symbol *)lpn_ptr(v), *y = (const lpn_symbol *)lpn_ptr(a);
        c = strcmp(x->name, y->name);
        r = lpn_bool(op == '<' ? c < 0 : c > 0);
        break;
    }
    case 'B': r = bit_shift((int64_t)v.bits, a); break;     /* Integer bitShift: */
    case 'Z': r = lpn_bool(v.cls == LPN_INT ? v.bits == 0 : lpn_f(v) == 0.0); break;   /* isZero */
    case 'T': r = round_to(v, a); break;                    /* Float roundTo: */
    case 'i': r = dict_search(0, v, a); break;              /* Dictionary includes: */
    case 'k': r = dict_search(1, v, a); break;              /* Dictionary keyAtValue: */
    case 'r': r = interval('r', v); break;                  /* Interval reversed / reverse */
    case 's': r = interval('s', v); break;                  /* Interval sum */
    case 'n': r = class_name_string(v.bits); break;        /* Object class name */
    case 'G': {                                             /* Error signal: (an instance) */
        lpn_inst *e = lpn_copy_instance(v);
        v = LPN_NIL_VALUE;
        lpn_drop(e->field[0]);
        lpn_dup(a);
        e->field[0] = a.cls == LPN_STRING ? a : lpn_print_string(a);
        r = lpn_raise_value(lpn_ref(e));
        break;
    }
    case 'E': lpn_dup(a); r = lpn_error_new(v.bits, a.cls == LPN_STRING ? a : lpn_print_string(a)); break;   /* Error class new: */
    case 'w': r = lpn_raise_site_of(a); break;   /* Error class raiseSiteOf: */
    default: r = lpn_raise("unknown library operation");
    }
    lpn_drop(v);
    lpn_drop(a);
    lpn_drop(b);
    return r;
}
