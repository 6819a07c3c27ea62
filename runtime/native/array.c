/* array.c — immutable Arrays (a uniquely held one is updated in place) and Intervals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

#define ARR(v) ((lpn_arr *)lpn_ptr(v))

static lpn_value index_error(lpn_value i, const char *sel, uint64_t size) {
    if (i.cls != LPN_INT) return lpn_raise_expects(sel, "an Integer index", i);
    return lpn_raise("index %lld is out of bounds: the size is %llu", (long long)(int64_t)i.bits,
                     (unsigned long long)size);
}

static int in_bounds(lpn_value i, uint64_t size) {
    return i.cls == LPN_INT && (int64_t)i.bits >= 1 && (uint64_t)(int64_t)i.bits <= size;
}

lpn_value lpn_arr_at(lpn_value a, lpn_value i) {
    lpn_arr *x = ARR(a);
    if (!in_bounds(i, x->len)) {
        lpn_value e = index_error(i, "at:", x->len);
        lpn_drop(a);
        return e;
    }
    lpn_value v = x->item[i.bits - 1];
    lpn_dup(v);
    lpn_drop(a);
    return v;
}

static lpn_arr *unique_copy(lpn_value a, uint64_t newlen) {
    lpn_arr *x = ARR(a);
    if (lpn_is_unique(&x->h)) {
        if (newlen != x->len) {
            x = realloc(x, sizeof(lpn_arr) + newlen * sizeof(lpn_value));
            if (!x) abort();
        }
        return x;
    }
    lpn_arr *c = lpn_arr_new(newlen);
    uint64_t n = x->len < newlen ? x->len : newlen;
    for (uint64_t k = 0; k < n; k++) {
        c->item[k] = x->item[k];
        lpn_dup(c->item[k]);
    }
    c->len = x->len;
    lpn_drop(a);
    return c;
}

lpn_value lpn_arr_at_put(lpn_value a, lpn_value i, lpn_value v) {
    if (!in_bounds(i, ARR(a)->len)) {
        lpn_value e = index_error(i, "at:put:", ARR(a)->len);
        lpn_drop(a);
        lpn_drop(v);
        return e;
    }
    lpn_arr *x = unique_copy(a, ARR(a)->len);
    lpn_drop(x->item[i.bits - 1]);
    x->item[i.bits - 1] = v;
    return lpn_ref(x);
}

lpn_value lpn_arr_size(lpn_value a) {
    uint64_t n = ARR(a)->len;
    lpn_drop(a);
    return lpn_int((int64_t)n);
}

lpn_value lpn_arr_with(lpn_value a, lpn_value v) {
    uint64_t n = ARR(a)->len;
    lpn_arr *x = unique_copy(a, n + 1);
    x->item[n] = v;
    x->len = n + 1;
    return lpn_ref(x);
}

lpn_value lpn_arr_concat(lpn_value a, lpn_value b) {
    if (b.cls != LPN_ARRAY) {
        lpn_value e = lpn_raise_expects(",", "an Array", b);
        lpn_drop(a);
        return e;
    }
    uint64_t n = ARR(a)->len, m = ARR(b)->len;
    lpn_arr *x = unique_copy(a, n + m);
    for (uint64_t k = 0; k < m; k++) {
        x->item[n + k] = ARR(b)->item[k];
        lpn_dup(x->item[n + k]);
    }
    x->len = n + m;
    lpn_drop(b);
    return lpn_ref(x);
}

lpn_value lpn_arr_end(lpn_value a, int last) {
    lpn_arr *x = ARR(a);
    if (x->len == 0) {
        lpn_drop(a);
        return lpn_raise(last ? "#last of an empty Array" : "#first of an empty Array");
    }
    lpn_value v = x->item[last ? x->len - 1 : 0];
    lpn_dup(v);
    lpn_drop(a);
    return v;
}

lpn_value lpn_arr_index_of(lpn_value a, lpn_value v) {
    lpn_arr *x = ARR(a);
    int64_t r = 0;
    for (uint64_t k = 0; k < x->len; k++)
        if (lpn_equal_b(x->item[k], v)) { r = (int64_t)k + 1; break; }
    lpn_drop(a);
    lpn_drop(v);
    return lpn_int(r);
}

lpn_value lpn_arr_reversed(lpn_value a) {
    lpn_arr *x = ARR(a);
    lpn_arr *c = lpn_arr_new(x->len);
    for (uint64_t k = 0; k < x->len; k++) {
        c->item[k] = x->item[x->len - 1 - k];
        lpn_dup(c->item[k]);
    }
    lpn_drop(a);
    return lpn_ref(c);
}

/* ---- Intervals ---- */
typedef lpn_interval ivl;
#define IVL(v) ((ivl *)lpn_ptr(v))

/* The number of elements: up to 2^64 (start - stop by 1 over all of int64), so wider than int64. */
__int128 lpn_interval_size(const lpn_interval *v) {
    __int128 n = ((__int128)v->stop - v->start);
    __int128 q = n / v->step;
    if ((n % v->step != 0) && ((n < 0) != (v->step < 0))) q--;
    q += 1;
    return q < 0 ? 0 : q;
}

lpn_value lpn_interval_new(int64_t start, lpn_value stop, lpn_value step, const char *sel) {
    if (stop.cls != LPN_INT || step.cls != LPN_INT) {
        return lpn_raise_expects(sel, "Integers", stop.cls != LPN_INT ? stop : step);
    }
    if ((int64_t)step.bits == 0) return lpn_raise("an Interval's step must not be 0");
    ivl *v = lpn_alloc(LPN_INTERVAL, sizeof(ivl));
    v->start = start;
    v->stop = (int64_t)stop.bits;
    v->step = (int64_t)step.bits;
    return lpn_ref(v);
}

/* `integer overflow: the size of (a to: b) does not fit in 64 bits`, as lp run says. */
static lpn_value size_overflow(lpn_value a) {
    lpn_dup(a);
    lpn_value t = lpn_print_string(a);
    lpn_value e = lpn_raise("integer overflow: the size of %s does not fit in 64 bits", ((lpn_str *)lpn_ptr(t))->data);
    lpn_drop(t);
    return e;
}

/* x (an Integer, or a Float with an integral value, as lp run compares them) is an element of v. */
static int ivl_includes(ivl *v, __int128 n, lpn_value i) {
    __int128 x;
    if (i.cls == LPN_INT) x = (int64_t)i.bits;
    else if (i.cls == LPN_FLOAT) {
        union { uint64_t u; double d; } f = {i.bits};
        if (!(f.d >= -0x1p64 && f.d <= 0x1p64) || f.d != (double)(__int128)f.d) return 0;
        x = (__int128)f.d;
    } else return 0;
    if (!n) return 0;
    __int128 d = x - v->start;
    if (d % v->step != 0) return 0;
    __int128 k = d / v->step;
    return k >= 0 && k < n;
}

#define TWO_TO_64 "18446744073709551616"   /* the size of (min to: max), one more than a uint64 holds */

lpn_value lpn_interval_op(int op, lpn_value a, lpn_value i) {
    ivl *v = IVL(a);
    __int128 n = lpn_interval_size(v);
    uint64_t bound = n > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)n;
    lpn_value r;
    switch (op) {
    case 's': r = n > INT64_MAX ? size_overflow(a) : lpn_int((int64_t)n); break;
    case 'e': r = lpn_bool(n == 0); break;
    case 'n': r = lpn_bool(n != 0); break;
    case 'f': r = n ? lpn_int(v->start) : lpn_raise("#first of an empty Interval"); break;
    case 'l': r = n ? lpn_int((int64_t)(v->start + (n - 1) * v->step)) : lpn_raise("#last of an empty Interval"); break;
    case 'a':
        if (in_bounds(i, bound)) r = lpn_int((int64_t)(v->start + ((__int128)(int64_t)i.bits - 1) * v->step));
        else if (i.cls == LPN_INT && n > (__int128)UINT64_MAX) {
            r = lpn_raise("index %lld is out of bounds: the size is %s", (long long)(int64_t)i.bits, TWO_TO_64);
        } else r = index_error(i, "at:", bound);
        break;
    case 'i': r = lpn_bool(ivl_includes(v, n, i)); break;
    case 'A': {
        if (n > LPN_MAX_SIZE) {
            char digits[24];   /* n <= 2^64 */
            snprintf(digits, sizeof digits, n > (__int128)UINT64_MAX ? TWO_TO_64 : "%llu", (unsigned long long)n);
            r = lpn_raise("#asArray would build a collection of %s elements, more than the limit of %d", digits,
                          LPN_MAX_SIZE);
            break;
        }
        lpn_arr *c = lpn_arr_new((uint64_t)n);
        for (int64_t k = 0; k < (int64_t)n; k++) c->item[k] = lpn_int(v->start + k * v->step);
        r = lpn_ref(c);
        break;
    }
    default: r = lpn_raise("unknown Interval operation");
    }
    lpn_drop(a);
    lpn_drop(i);
    return r;
}

/* copyFrom: i to: j (1-based, inclusive); allButFirst / allButLast are copies of a range too. */
lpn_value lpn_arr_copy(lpn_value a, lpn_value i, lpn_value j, int check) {
    lpn_arr *x = ARR(a);
    int64_t n = (int64_t)x->len;
    if (check && (i.cls != LPN_INT || j.cls != LPN_INT || (int64_t)i.bits < 1 || (int64_t)j.bits > n ||
                  (int64_t)i.bits > (int64_t)j.bits + 1)) {
        lpn_value ti = lpn_print_string(i), tj = lpn_print_string(j);
        lpn_value e = lpn_raise("copyFrom: %s to: %s is out of bounds for size %lld", ((lpn_str *)lpn_ptr(ti))->data,
                                ((lpn_str *)lpn_ptr(tj))->data, (long long)n);
        lpn_drop(ti);
        lpn_drop(tj);
        lpn_drop(a);
        return e;
    }
    int64_t from = (int64_t)i.bits, to = (int64_t)j.bits;
    if (from < 1) from = 1;
    if (to > n) to = n;
    uint64_t len = to >= from ? (uint64_t)(to - from + 1) : 0;
    lpn_arr *c = lpn_arr_new(len);
    for (uint64_t k = 0; k < len; k++) {
        c->item[k] = x->item[from - 1 + (int64_t)k];
        lpn_dup(c->item[k]);
    }
    lpn_drop(a);
    return lpn_ref(c);
}

lpn_value lpn_arr_new_with_all(lpn_value n, lpn_value v) {
    if (n.cls != LPN_INT || (int64_t)n.bits < 0 || (int64_t)n.bits > LPN_MAX_SIZE) {
        lpn_value d = lpn_describe(n);
        lpn_value e = (int64_t)n.bits > LPN_MAX_SIZE && n.cls == LPN_INT
            ? lpn_raise("#new:withAll: would build a collection of %lld elements, more than the limit of %d",
                        (long long)(int64_t)n.bits, LPN_MAX_SIZE)
            : lpn_raise("new:withAll: expects a size >= 0, not %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        lpn_drop(v);
        return e;
    }
    lpn_arr *a = lpn_arr_new(n.bits);
    for (uint64_t i = 0; i < n.bits; i++) { a->item[i] = v; lpn_dup(v); }
    lpn_drop(v);
    return lpn_ref(a);
}

/* occurrencesOf: (equal elements) and sum (numbers added as lp run adds them). */
lpn_value lpn_arr_fold(int op, lpn_value a, lpn_value v) {
    lpn_arr *x = ARR(a);
    lpn_value r;
    if (op == 'o') {
        int64_t n = 0;
        for (uint64_t i = 0; i < x->len; i++) n += lpn_equal_b(x->item[i], v);
        r = lpn_int(n);
    } else {
        r = lpn_int(0);
        for (uint64_t i = 0; i < x->len; i++) {
            if (r.cls != LPN_INT && r.cls != LPN_FLOAT) break;
            lpn_dup(x->item[i]);
            r = lpn_num_arith('+', r, x->item[i]);
            if (r.cls == LPN_UNWIND) break;
        }
    }
    lpn_drop(a);
    lpn_drop(v);
    return r;
}

/* first: n / last: n of an Array or a String (n from 0 to the size). */
lpn_value lpn_take(lpn_value a, lpn_value n, int last) {
    int is_str = a.cls == LPN_STRING;
    uint64_t size = is_str ? ((lpn_str *)lpn_ptr(a))->nchars : ARR(a)->len;
    if (n.cls != LPN_INT || (int64_t)n.bits < 0 || n.bits > size) {
        lpn_value d = lpn_describe(n);
        lpn_value e = lpn_raise("#%s expects a count from 0 to %llu, not %s", last ? "last:" : "first:",
                                (unsigned long long)size, ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        lpn_drop(a);
        return e;
    }
    int64_t from = last ? (int64_t)(size - n.bits) + 1 : 1, to = last ? (int64_t)size : (int64_t)n.bits;
    if (is_str) return lpn_str_copy(a, lpn_int(from), lpn_int(to));
    return lpn_arr_copy(a, lpn_int(from), lpn_int(to), 0);
}
