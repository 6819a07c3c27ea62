/* string.c — immutable UTF-8 strings: creation, concatenation, size. */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lpn.h"

static uint64_t count_chars(const char *s, uint64_t len) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

lpn_value lpn_str_new(const char *bytes, uint64_t len) {
    lpn_str *s = lpn_alloc(LPN_STRING, sizeof(lpn_str) + len + 1);
    memcpy(s->data, bytes, len);
    s->data[len] = 0;
    s->len = len;
    s->nchars = count_chars(bytes, len);
    return lpn_ref(s);
}

lpn_value lpn_str_concat(lpn_value a, lpn_value b) {
    if (b.cls != LPN_STRING) {
        lpn_value e = lpn_raise_expects(",", "a String", b);
        lpn_drop(a);
        return e;
    }
    lpn_str *x = (lpn_str *)lpn_ptr(a), *y = (lpn_str *)lpn_ptr(b);
    lpn_value r;
    if (lpn_is_unique(&x->h)) {   /* the only reference: grow it in place (Perceus reuse) */
        size_t need = sizeof(lpn_str) + x->len + y->len + 1;
        lpn_str *g = x;
#ifdef __GLIBC__
        /* grow geometrically: a string built one , at a time is then amortised O(1) per
           append even when the allocator cannot extend the block where it is */
        if (malloc_usable_size(x) < need) g = realloc(x, need + need / 2);
#else
        g = realloc(x, need);
#endif
        if (!g) return lpn_raise("out of memory");
        memcpy(g->data + g->len, y->data, y->len + 1);
        g->len += y->len;
        g->nchars += y->nchars;
        r = lpn_ref(g);
    } else {
        lpn_str *s = lpn_alloc(LPN_STRING, sizeof(lpn_str) + x->len + y->len + 1);
        memcpy(s->data, x->data, x->len);
        memcpy(s->data + x->len, y->data, y->len + 1);
        s->len = x->len + y->len;
        s->nchars = x->nchars + y->nchars;
        r = lpn_ref(s);
        lpn_drop(a);
    }
    lpn_drop(b);
    return r;
}

lpn_value lpn_str_size(lpn_value s) {
    uint64_t n = ((lpn_str *)lpn_ptr(s))->nchars;
    lpn_drop(s);
    return lpn_int((int64_t)n);
}
