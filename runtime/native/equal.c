/* equal.c — `=` (structural: numbers by value, instances by class and fields) and `==` (identity). */
#include <string.h>

#include "lpn.h"

typedef struct { lpn_value a, b; int r; } equal_job;
static void equal_deep(void *j) {
    equal_job *e = j;
    e->r = lpn_equal_b(e->a, e->b);
}

int lpn_equal_b(lpn_value a, lpn_value b) {
    if (a.cls == LPN_BOOL || b.cls == LPN_BOOL) return a.cls == b.cls && a.bits == b.bits;
    if ((a.cls == LPN_INT || a.cls == LPN_FLOAT) && (b.cls == LPN_INT || b.cls == LPN_FLOAT)) {
        if (a.cls == LPN_INT && b.cls == LPN_INT) return a.bits == b.bits;
        return lpn_num_equal(a, b);
    }
    if (a.cls != b.cls) return 0;
    if (!lpn_is_heap(a) || a.bits == b.bits) return a.bits == b.bits;
    if (lpn_stack_low()) {   /* a spawned actor's first stack is full: on on its deep stack (lpn_deep) */
        equal_job j = {a, b, 0};
        if (lpn_deep(equal_deep, &j)) return j.r;
    }
    lpn_obj *x = lpn_ptr(a), *y = lpn_ptr(b);
    switch (a.cls) {
    case LPN_STRING: {
        lpn_str *s = (lpn_str *)x, *t = (lpn_str *)y;
        return s->len == t->len && memcmp(s->data, t->data, s->len) == 0;
    }
    case LPN_BYTES: {
        lpn_bytes *s = (lpn_bytes *)x, *t = (lpn_bytes *)y;
        return s->len == t->len && memcmp(s->data, t->data, s->len) == 0;
    }
    case LPN_ARRAY: {
        lpn_arr *s = (lpn_arr *)x, *t = (lpn_arr *)y;
        if (s->len != t->len) return 0;
        for (uint64_t i = 0; i < s->len; i++)
            if (!lpn_equal_b(s->item[i], t->item[i])) return 0;
        return 1;
    }
    case LPN_ASSOC: {
        lpn_assoc *s = (lpn_assoc *)x, *t = (lpn_assoc *)y;
        return lpn_equal_b(s->key, t->key) && lpn_equal_b(s->value, t->value);
    }
    case LPN_DICT: return lpn_dict_equal(a, b);
    case LPN_MAYBE: {
        lpn_maybe *s = (lpn_maybe *)x, *t = (lpn_maybe *)y;
        return s->present == t->present && lpn_equal_b(s->value, t->value);
    }
    case LPN_INTERVAL: {   /* the same elements: the same count, first element and (past one) step */
        lpn_interval *s = (lpn_interval *)x, *t = (lpn_interval *)y;
        __int128 n = lpn_interval_size(s);
        if (n <= 0) n = 0;
        if (n != (lpn_interval_size(t) > 0 ? lpn_interval_size(t) : 0)) return 0;
        return n == 0 || (s->start == t->start && (n == 1 || s->step == t->step));
    }
    case LPN_BLOCK: case LPN_HOME: return 0;
    default:
        if (a.cls >= LPN_FIRST_INST && (lpn_is_foreign(x) || lpn_is_foreign(y)))
            return lpn_is_foreign(x) && lpn_is_foreign(y) && ((lpn_foreign *)x)->ops == ((lpn_foreign *)y)->ops &&
                   ((lpn_foreign *)x)->ops->identity((lpn_foreign *)x) == ((lpn_foreign *)y)->ops->identity((lpn_foreign *)y);
        if (a.cls >= LPN_FIRST_INST) {
            lpn_inst *s = (lpn_inst *)x, *t = (lpn_inst *)y;
            for (uint64_t i = 0; i < s->nfields; i++)
                if (!lpn_equal_b(s->field[i], t->field[i])) return 0;
            return 1;
        }
        return 0;
    }
}

lpn_value lpn_equal(lpn_value a, lpn_value b) {
    int r = lpn_equal_b(a, b);
    lpn_drop(a);
    lpn_drop(b);
    return lpn_bool(r);
}

lpn_value lpn_identical(lpn_value a, lpn_value b) {
    int r = a.cls == b.cls && (a.cls == LPN_FLOAT ? lpn_f(a) == lpn_f(b) : a.bits == b.bits);
    lpn_drop(a);
    lpn_drop(b);
    return lpn_bool(r);
}
