/* net_bytes.c — ByteArray in native binaries (class id LPN_BYTES: a counted cell holding the
 * bytes), its library selectors, `String asByteArray`, `String lf` / `crlf`, `String sha256Hex`,
 * and the strict UTF-8 check text decoding shares. Messages are lp/interp/prims_bytes.py's. */
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

lpn_value lpn_bytes_new(const void *data, uint64_t len) {
    lpn_bytes *b = lpn_alloc(LPN_BYTES, sizeof(lpn_bytes) + len);
    b->len = len;
    if (len) memcpy(b->data, data, len);
    return lpn_ref(b);
}

/* The offset of the first byte that does not start a valid UTF-8 sequence, or -1. */
static int64_t utf8_bad(const unsigned char *p, uint64_t n) {
    uint64_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) { i++; continue; }
        uint64_t need;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else return (int64_t)i;
        if (i + need >= n) return (int64_t)i;
        if (p[i + 1] < lo || p[i + 1] > hi) return (int64_t)i;
        for (uint64_t k = 2; k <= need; k++)
            if ((p[i + k] & 0xC0) != 0x80) return (int64_t)i;
        i += need + 1;
    }
    return -1;
}

int lpn_utf8_valid(const char *p, uint64_t n) { return utf8_bad((const unsigned char *)p, n) < 0; }

static lpn_bytes *B(lpn_value v) { return (lpn_bytes *)lpn_ptr(v); }

static lpn_value expects(lpn_value v, const char *sel, const char *kind) {
    lpn_value d = lpn_describe(v);
    lpn_value r = lpn_raise("#%s expects %s, not %s", sel, kind, ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return r;
}

lpn_value lpn_bytes_size(lpn_value *a) {
    uint64_t n = B(a[0])->len;
    lpn_drop(a[0]);
    return lpn_int((int64_t)n);
}

lpn_value lpn_bytes_empty(lpn_value *a) {
    uint64_t n = B(a[0])->len;
    lpn_drop(a[0]);
    return lpn_bool(n == 0);
}

lpn_value lpn_bytes_not_empty(lpn_value *a) {
    uint64_t n = B(a[0])->len;
    lpn_drop(a[0]);
    return lpn_bool(n != 0);
}

lpn_value lpn_bytes_at(lpn_value *a) {
    lpn_value out;
    if (a[1].cls != LPN_INT) out = expects(a[1], "at:", "an Integer");
    else {
        int64_t i = (int64_t)a[1].bits;
        uint64_t n = B(a[0])->len;
        out = i >= 1 && (uint64_t)i <= n ? lpn_int(B(a[0])->data[i - 1])
            : lpn_raise("index %lld is out of bounds: the size is %llu", (long long)i, (unsigned long long)n);
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_bytes_concat(lpn_value *a) {
    lpn_value out;
    if (a[1].cls != LPN_BYTES) out = expects(a[1], ",", "a ByteArray");
    else {
        lpn_bytes *x = B(a[0]), *y = B(a[1]);
        lpn_bytes *r = lpn_alloc(LPN_BYTES, sizeof(lpn_bytes) + x->len + y->len);
        r->len = x->len + y->len;
        memcpy(r->data, x->data, x->len);
        memcpy(r->data + x->len, y->data, y->len);
        out = lpn_ref(r);
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_bytes_copy(lpn_value *a) {
    lpn_value out;
    if (a[1].cls != LPN_INT) out = expects(a[1], "copyFrom:to:", "an Integer");
    else if (a[2].cls != LPN_INT) out = expects(a[2], "copyFrom:to:", "an Integer");
    else {
        int64_t start = (int64_t)a[1].bits, stop = (int64_t)a[2].bits;
        uint64_t n = B(a[0])->len;
        if (stop < start) out = lpn_bytes_new(NULL, 0);
        else if (start < 1 || (uint64_t)stop > n)
            out = lpn_raise("copyFrom: %lld to: %lld is out of bounds: the size is %llu", (long long)start,
                            (long long)stop, (unsigned long long)n);
        else out = lpn_bytes_new(B(a[0])->data + start - 1, (uint64_t)(stop - start + 1));
    }
    lpnet_drop_all(a, 3);
    return out;
}

lpn_value lpn_bytes_as_array(lpn_value *a) {
    lpn_bytes *b = B(a[0]);
    lpn_arr *r = lpn_arr_new(b->len);
    for (uint64_t i = 0; i < b->len; i++) r->item[i] = lpn_int(b->data[i]);
    lpn_drop(a[0]);
    return lpn_ref(r);
}

lpn_value lpn_bytes_as_string(lpn_value *a) {
    lpn_bytes *b = B(a[0]);
    int64_t bad = utf8_bad(b->data, b->len);
    lpn_value out = bad >= 0 ? lpn_raise("asString: the bytes are not UTF-8 text (byte %lld)", (long long)bad + 1)
                             : lpn_str_new((const char *)b->data, b->len);
    lpn_drop(a[0]);
    return out;
}

lpn_value lpn_bytes_index_of(lpn_value *a) {
    lpn_value out;
    if (a[1].cls != LPN_INT) out = expects(a[1], "indexOf:", "an Integer");
    else {
        int64_t v = (int64_t)a[1].bits;
        lpn_bytes *b = B(a[0]);
        const unsigned char *at = v >= 0 && v <= 255 && b->len ? memchr(b->data, (int)v, b->len) : NULL;
        out = lpn_int(at ? at - b->data + 1 : 0);
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_bytes_new_size(lpn_value *a) {
    lpn_value out;
    if (a[1].cls != LPN_INT) out = expects(a[1], "new:", "an Integer");
    else {
        int64_t n = (int64_t)a[1].bits;
        if (n < 0 || n > (1 << 30)) out = lpn_raise("ByteArray new: %lld: the size must be between 0 and 2^30", (long long)n);
        else {
            lpn_bytes *r = lpn_alloc(LPN_BYTES, sizeof(lpn_bytes) + (size_t)n);
            r->len = (uint64_t)n;
            memset(r->data, 0, (size_t)n);
            out = lpn_ref(r);
        }
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_bytes_with_all(lpn_value *a) {
    lpn_value out = LPN_UNWIND_VALUE;
    int ok = a[1].cls == LPN_ARRAY;
    lpn_arr *arr = ok ? (lpn_arr *)lpn_ptr(a[1]) : NULL;
    for (uint64_t i = 0; ok && i < arr->len; i++)
        ok = arr->item[i].cls == LPN_INT && (int64_t)arr->item[i].bits >= 0 && (int64_t)arr->item[i].bits <= 255;
    if (!ok) lpn_raise("ByteArray withAll: expects an Array of Integers from 0 to 255");
    else {
        lpn_bytes *r = lpn_alloc(LPN_BYTES, sizeof(lpn_bytes) + arr->len);
        r->len = arr->len;
        for (uint64_t i = 0; i < arr->len; i++) r->data[i] = (unsigned char)arr->item[i].bits;
        out = lpn_ref(r);
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_str_as_bytes(lpn_value *a) {
    lpn_str *s = (lpn_str *)lpn_ptr(a[0]);
    lpn_value out = lpn_bytes_new(s->data, s->len);
    lpn_drop(a[0]);
    return out;
}

lpn_value lpn_str_sha256_hex(lpn_value *a) {
    lpn_str *s = (lpn_str *)lpn_ptr(a[0]);
    unsigned char d[32];
    lpn_sha256(s->data, s->len, d);
    char hex[2 * sizeof d];
    for (size_t i = 0; i < sizeof d; i++) {
        hex[2 * i] = "0123456789abcdef"[d[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
    }
    lpn_drop(a[0]);
    return lpn_str_new(hex, sizeof hex);
}

lpn_value lpn_str_lf(lpn_value *a) {
    lpn_drop(a[0]);
    return lpn_str_new("\n", 1);
}

lpn_value lpn_str_crlf(lpn_value *a) {
    lpn_drop(a[0]);
    return lpn_str_new("\r\n", 2);
}
