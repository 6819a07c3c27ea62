/* print.c — printString / displayString in the interpreter's formats, and standard output. */
#include <math.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

typedef struct { char *p; size_t n, cap; } buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static const char *cname(uint64_t cls) {
    return cls < lpn_prog.nclasses && lpn_prog.class_names[cls] ? lpn_prog.class_names[cls] : "Object";
}

/* Python's repr(float) (json: 1), or LP's form of it, `1e+16` written `1.0e16` (lp/syntax/format.py float_text). */
static void put_float_as(buf *b, double d, int python) {
    char out[64];
    if (isnan(d)) { puts_(b, "nan"); return; }
    if (isinf(d)) { puts_(b, d > 0 ? "inf" : "-inf"); return; }
    char digits[40];
    int exp10 = 0;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, sizeof out, "%.*e", prec - 1, d);
        if (strtod(out, NULL) == d) break;
    }
    /* out is like -1.2345e+05: collect the digits and the exponent */
    char *e = strchr(out, 'e');
    exp10 = atoi(e + 1);
    int nd = 0, neg = out[0] == '-';
    for (char *q = out + neg; q < e; q++)
        if (*q >= '0' && *q <= '9') digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = 0;
    if (neg) put(b, "-", 1);
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            puts_(b, "0.");
            for (int i = 0; i < -exp10 - 1; i++) put(b, "0", 1);
            put(b, digits, nd);
        } else if (nd <= exp10 + 1) {
            put(b, digits, nd);
            for (int i = nd; i < exp10 + 1; i++) put(b, "0", 1);
            puts_(b, ".0");
        } else {
            put(b, digits, exp10 + 1);
            put(b, ".", 1);
            put(b, digits + exp10 + 1, nd - exp10 - 1);
        }
        return;
    }
    put(b, digits, 1);
    if (nd > 1 || !python) put(b, ".", 1);
    if (nd > 1) put(b, digits + 1, nd - 1);
    else if (!python) put(b, "0", 1);
    if (python) snprintf(out, sizeof out, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    else snprintf(out, sizeof out, "e%d", exp10);
    puts_(b, out);
}

static void put_float(buf *b, double d) { put_float_as(b, d, 0); }

/* ---- JSON encode: json.dumps(separators=(",", ":"), ensure_ascii=False) of the interpreter's mapping ---- */
static void put_json_string(buf *b, const char *s, size_t n) {
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        switch (c) {
        case '"': puts_(b, "\\\""); break;
        case '\\': puts_(b, "\\\\"); break;
        case '\n': puts_(b, "\\n"); break;
        case '\r': puts_(b, "\\r"); break;
        case '\t': puts_(b, "\\t"); break;
        case '\b': puts_(b, "\\b"); break;
        case '\f': puts_(b, "\\f"); break;
        default:
            if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); puts_(b, esc); }
            else put(b, (const char *)&s[i], 1);
        }
    }
    put(b, "\"", 1);
}

static int json(buf *b, lpn_value v, int depth, int mode);

static void put_char(buf *b, uint64_t c);
static int json_fail(lpn_value raised) { (void)raised; return -1; }   /* raised: the UNWIND status */

static int tagged(buf *b, lpn_value v, int depth, int mode);
typedef struct { buf *b; lpn_value v; int depth, mode, r; } json_job;
static void json_deep(void *j) {
    json_job *s = j;
    s->r = json(s->b, s->v, s->depth, s->mode);
}

/* mode: LPN_JSON_PLAIN (JSON encode:), LPN_JSON_TAGGED (Remote's wire), LPN_JSON_EXACT (a grain state) */
static int json(buf *b, lpn_value v, int depth, int mode) {
    char tmp[64];
    /* the encoder recurses on the actor's stack, a spawned actor's deep one past its first (lpn_deep) */
    if (depth > 1000000) return json_fail(lpn_raise("JSON cannot encode a value nested this deeply"));
    if (lpn_stack_low()) {
        json_job j = {b, v, depth, mode, -1};
        if (lpn_deep(json_deep, &j)) return j.r;
        return json_fail(lpn_raise("JSON cannot encode a value nested this deeply"));
    }
    if (mode != LPN_JSON_PLAIN) {
        int st = tagged(b, v, depth, mode);
        if (st != 1) return st;
    }
    switch (v.cls) {
    case LPN_NIL: puts_(b, "null"); return 0;
    case LPN_BOOL: puts_(b, v.bits ? "true" : "false"); return 0;
    case LPN_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)(int64_t)v.bits); puts_(b, tmp); return 0;
    case LPN_FLOAT: {
        double d = lpn_f(v);
        if (isnan(d) || isinf(d)) {
            buf t = {0};
            put_float(&t, d);
            lpn_value e = lpn_raise("JSON cannot encode the Float %s", t.p);
            free(t.p);
            return json_fail(e);
        }
        put_float_as(b, d, 1);
        return 0;
    }
    case LPN_STRING: { lpn_str *s = (lpn_str *)lpn_ptr(v); put_json_string(b, s->data, s->len); return 0; }
    case LPN_SYMBOL: { const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits; put_json_string(b, s->name, s->len); return 0; }
    case LPN_CHAR: { buf t = {0}; put_char(&t, v.bits); put_json_string(b, t.p, t.n); free(t.p); return 0; }
    case LPN_ARRAY: case LPN_INTERVAL: {
        lpn_value arr = v;
        if (v.cls == LPN_INTERVAL) { lpn_dup(v); arr = lpn_interval_op('A', v, LPN_NIL_VALUE); }
        lpn_arr *a = (lpn_arr *)lpn_ptr(arr);
        put(b, "[", 1);
        int st = 0;
        for (uint64_t i = 0; i < a->len && !st; i++) {
            if (i) put(b, ",", 1);
            st = json(b, a->item[i], depth + 1, mode);
        }
        put(b, "]", 1);
        if (v.cls == LPN_INTERVAL) lpn_drop(arr);
        return st;
    }
    case LPN_ASSOC: {
        lpn_assoc *a = (lpn_assoc *)lpn_ptr(v);
        put(b, "[", 1);
        if (json(b, a->key, depth + 1, mode)) return -1;
        put(b, ",", 1);
        if (json(b, a->value, depth + 1, mode)) return -1;
        put(b, "]", 1);
        return 0;
    }
    case LPN_MAYBE: {
        lpn_maybe *m = (lpn_maybe *)lpn_ptr(v);
        if (!m->present) { puts_(b, "null"); return 0; }
        return json(b, m->value, depth + 1, mode);
    }
    case LPN_DICT: {
        lpn_dup(v);
        lpn_value assocs = lpn_dict_list('a', v);
        lpn_arr *a = (lpn_arr *)lpn_ptr(assocs);
        int st = 0;
        put(b, "{", 1);
        for (uint64_t i = 0; i < a->len && !st; i++) {
            lpn_assoc *e = (lpn_assoc *)lpn_ptr(a->item[i]);
            if (e->key.cls != LPN_STRING && e->key.cls != LPN_SYMBOL) {
                lpn_dup(e->key);
                lpn_value d = lpn_describe(e->key);
                st = json_fail(lpn_raise("JSON object keys must be strings, not %s", ((lpn_str *)lpn_ptr(d))->data));
                lpn_drop(d);
                break;
            }
            if (i) put(b, ",", 1);
            st = json(b, e->key, depth + 1, mode);
            put(b, ":", 1);
            if (!st) st = json(b, e->value, depth + 1, mode);
        }
        put(b, "}", 1);
        lpn_drop(assocs);
        return st;
    }
    }
    if (v.cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(v))) {
        lpn_inst *in = (lpn_inst *)lpn_ptr(v);
        put(b, "{", 1);
        for (uint64_t i = 0; i < in->nfields; i++) {
            if (i) put(b, ",", 1);
            const char *f = lpn_prog.field_names[v.cls][i];
            put_json_string(b, f, strlen(f));
            put(b, ":", 1);
            if (json(b, in->field[i], depth + 1, mode)) return -1;
        }
        put(b, "}", 1);
        return 0;
    }
    lpn_dup(v);
    lpn_value d = lpn_describe(v);
    lpn_value e = lpn_raise("JSON cannot encode %s", ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return json_fail(e);
}

/* ---- the one JSON form of LP values (lp/interp/value_json.py tagged): 1 when v is plain JSON's */
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(buf *b, const unsigned char *p, uint64_t n) {
    for (uint64_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {B64[w >> 18], B64[(w >> 12) & 63], i + 1 < n ? B64[(w >> 6) & 63] : '=', i + 2 < n ? B64[w & 63] : '='};
        put(b, q, 4);
    }
}

static int tagged(buf *b, lpn_value v, int depth, int mode) {
    switch (v.cls) {
    case LPN_SYMBOL: {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits;
        puts_(b, "{\"$symbol\":");
        put_json_string(b, s->name, s->len);
        put(b, "}", 1);
        return 0;
    }
    case LPN_CHAR: {
        buf t = {0};
        put_char(&t, v.bits);
        puts_(b, "{\"$char\":");
        put_json_string(b, t.p, t.n);
        put(b, "}", 1);
        free(t.p);
        return 0;
    }
    case LPN_MAYBE: {
        lpn_maybe *m = (lpn_maybe *)lpn_ptr(v);
        puts_(b, "{\"$maybe\":[");
        if (m->present && json(b, m->value, depth + 1, mode)) return -1;
        puts_(b, "]}");
        return 0;
    }
    case LPN_BYTES: {
        lpn_bytes *y = (lpn_bytes *)lpn_ptr(v);
        puts_(b, "{\"$bytes\":\"");
        put_base64(b, y->data, y->len);
        puts_(b, "\"}");
        return 0;
    }
    case LPN_ASSOC: {
        lpn_assoc *a = (lpn_assoc *)lpn_ptr(v);
        puts_(b, "{\"$assoc\":[");
        if (json(b, a->key, depth + 1, mode)) return -1;
        put(b, ",", 1);
        if (json(b, a->value, depth + 1, mode)) return -1;
        puts_(b, "]}");
        return 0;
    }
    case LPN_DICT: {
        lpn_dup(v);
        lpn_value assocs = lpn_dict_list('a', v);
        lpn_arr *a = (lpn_arr *)lpn_ptr(assocs);
        int plain = 1, st = 0;
        for (uint64_t i = 0; i < a->len && plain; i++) {
            lpn_value k = ((lpn_assoc *)lpn_ptr(a->item[i]))->key;
            plain = k.cls == LPN_STRING && ((lpn_str *)lpn_ptr(k))->data[0] != '$';
        }
        puts_(b, plain ? "{" : "{\"$dict\":[");
        for (uint64_t i = 0; i < a->len && !st; i++) {
            lpn_assoc *e = (lpn_assoc *)lpn_ptr(a->item[i]);
            if (i) put(b, ",", 1);
            if (!plain) put(b, "[", 1);
            st = json(b, e->key, depth + 1, plain ? LPN_JSON_PLAIN : mode);
            put(b, plain ? ":" : ",", 1);
            if (!st) st = json(b, e->value, depth + 1, mode);
            if (!plain) put(b, "]", 1);
        }
        puts_(b, plain ? "}" : "]}");
        lpn_drop(assocs);
        return st;
    }
    case LPN_ARRAY: case LPN_NIL: case LPN_BOOL: case LPN_INT: case LPN_FLOAT: case LPN_STRING:
        return 1;
    }
    if (v.cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(v))) {
        lpn_inst *in = (lpn_inst *)lpn_ptr(v);
        puts_(b, "{\"$class\":");
        put_json_string(b, cname(v.cls), strlen(cname(v.cls)));
        for (uint64_t i = 0; i < in->nfields; i++) {
            const char *f = lpn_prog.field_names[v.cls][i];
            put(b, ",", 1);
            put_json_string(b, f, strlen(f));
            put(b, ":", 1);
            if (json(b, in->field[i], depth + 1, mode)) return -1;
        }
        put(b, "}", 1);
        return 0;
    }
    if (mode == LPN_JSON_EXACT) {
        lpn_dup(v);
        lpn_value d = lpn_describe(v);
        lpn_value e = lpn_raise("a grain state cannot hold %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        return json_fail(e);
    }
    return 1;
}

lpn_value lpn_json_encode(lpn_value v) { return lpn_json_encode_as(v, LPN_JSON_PLAIN); }

lpn_value lpn_json_encode_as(lpn_value v, int mode) {
    buf b = {0};
    int st = json(&b, v, 0, mode);
    lpn_drop(v);
    if (st) { free(b.p); return LPN_UNWIND_VALUE; }
    lpn_value s = lpn_str_new(b.p ? b.p : "", b.n);
    free(b.p);
    return s;
}

static void put_char(buf *b, uint64_t c) {
    char u[4];
    int n;
    if (c < 0x80) { u[0] = (char)c; n = 1; }
    else if (c < 0x800) { u[0] = (char)(0xC0 | (c >> 6)); u[1] = (char)(0x80 | (c & 0x3F)); n = 2; }
    else if (c < 0x10000) { u[0] = (char)(0xE0 | (c >> 12)); u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
                            u[2] = (char)(0x80 | (c & 0x3F)); n = 3; }
    else { u[0] = (char)(0xF0 | (c >> 18)); u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
           u[2] = (char)(0x80 | ((c >> 6) & 0x3F)); u[3] = (char)(0x80 | (c & 0x3F)); n = 4; }
    put(b, u, n);
}

static void put_quoted(buf *b, const char *s, size_t n) {
    put(b, "'", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') put(b, "''", 2);
        else put(b, s + i, 1);
    }
    put(b, "'", 1);
}

static int ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* lp/syntax/format.py symbol_text: plain when an identifier, keywords or a binary selector. */
static int plain_symbol(const char *s, size_t n) {
    if (n == 0) return 0;
    if (strchr("+*/\\<>=~@%|&?,!-", s[0])) {
        for (size_t i = 0; i < n; i++) if (!strchr("+*/\\<>=~@%|&?,!-", s[i]) || !s[i]) return 0;
        return 1;
    }
    size_t i = 0;
    int words = 0;
    while (i < n) {
        if (!ident_start(s[i])) return 0;
        while (i < n && ident_char(s[i])) i++;
        words++;
        if (i == n) return words == 1;
        if (s[i] != ':') return 0;
        i++;
        if (i == n) return 1;
    }
    return 1;
}

static int printed(buf *b, lpn_value v);
static void put_foreign(buf *b, lpn_foreign *f);

static int print_builtin(buf *b, lpn_value v) {
    char tmp[64];
    switch (v.cls) {
    case LPN_NIL: puts_(b, "nil"); return 0;
    case LPN_BOOL: puts_(b, v.bits ? "true" : "false"); return 0;
    case LPN_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)(int64_t)v.bits); puts_(b, tmp); return 0;
    case LPN_FLOAT: put_float(b, lpn_f(v)); return 0;
    case LPN_CHAR:   /* `$` and NUL is not LP source: the expression that makes it (lp/interp/printer.py) */
        if (v.bits == 0) put(b, "(0 asCharacter)", 15);
        else put(b, "$", 1), put_char(b, v.bits);
        return 0;
    case LPN_SYMBOL: {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits;
        put(b, "#", 1);
        if (plain_symbol(s->name, s->len)) put(b, s->name, s->len);
        else put_quoted(b, s->name, s->len);
        return 0;
    }
    case LPN_CLASS: puts_(b, cname(v.bits)); return 0;
    case LPN_STRING: { lpn_str *s = (lpn_str *)lpn_ptr(v); put_quoted(b, s->data, s->len); return 0; }
    case LPN_ARRAY: {
        lpn_arr *a = (lpn_arr *)lpn_ptr(v);
        puts_(b, "#(");
        for (uint64_t i = 0; i < a->len; i++) {
            if (i) put(b, " ", 1);
            if (printed(b, a->item[i])) return -1;
        }
        puts_(b, ")");
        return 0;
    }
    case LPN_ASSOC: {
        lpn_assoc *a = (lpn_assoc *)lpn_ptr(v);
        if (printed(b, a->key)) return -1;
        puts_(b, " -> ");
        return printed(b, a->value);
    }
    case LPN_BLOCK: puts_(b, "a Block"); return 0;
    case LPN_BYTES: {
        lpn_bytes *y = (lpn_bytes *)lpn_ptr(v);
        puts_(b, "#[");
        for (uint64_t i = 0; i < y->len; i++) {
            snprintf(tmp, sizeof tmp, i ? " %u" : "%u", y->data[i]);
            puts_(b, tmp);
        }
        puts_(b, "]");
        return 0;
    }
    case LPN_MAYBE: {
        lpn_maybe *m = (lpn_maybe *)lpn_ptr(v);
        if (!m->present) { puts_(b, "Maybe none"); return 0; }
        puts_(b, "Maybe some: ");
        return printed(b, m->value);
    }
    case LPN_INTERVAL: {
        int64_t *iv = (int64_t *)(lpn_ptr(v) + 1);   /* start, stop, step */
        if (iv[2] == 1) snprintf(tmp, sizeof tmp, "(%lld to: %lld)", (long long)iv[0], (long long)iv[1]);
        else snprintf(tmp, sizeof tmp, "(%lld to: %lld by: %lld)", (long long)iv[0], (long long)iv[1], (long long)iv[2]);
        puts_(b, tmp);
        return 0;
    }
    case LPN_DICT: {
        lpn_value keys = lpn_dict_list('a', (lpn_dup(v), v));
        lpn_arr *a = (lpn_arr *)lpn_ptr(keys);
        puts_(b, "Dictionary(");
        for (uint64_t i = 0; i < a->len; i++) {
            if (i) puts_(b, ", ");
            if (printed(b, a->item[i])) { lpn_drop(keys); return -1; }
        }
        puts_(b, ")");
        lpn_drop(keys);
        return 0;
    }
    }
    if (v.cls >= LPN_FIRST_INST && lpn_is_foreign(lpn_ptr(v))) {
        put_foreign(b, (lpn_foreign *)lpn_ptr(v));
        return 0;
    }
    if (v.cls >= LPN_FIRST_INST) {
        lpn_inst *in = (lpn_inst *)lpn_ptr(v);
        puts_(b, cname(v.cls));
        put(b, "(", 1);
        for (uint64_t i = 0; i < in->nfields; i++) {
            if (i) puts_(b, ", ");
            puts_(b, lpn_prog.field_names[v.cls][i]);
            puts_(b, ": ");
            if (printed(b, in->field[i])) return -1;
        }
        put(b, ")", 1);
        return 0;
    }
    snprintf(tmp, sizeof tmp, "a %s", cname(v.cls));
    puts_(b, tmp);
    return 0;
}

/* An element: the program's own printString when its class defines one. Borrows v. */
/* A foreign cell's printString, however long (a Remote proxy prints its URL and id); out of line,
   so that the printer's recursion keeps a small frame. */
static __attribute__((noinline)) void put_foreign(buf *b, lpn_foreign *f) {
    char t[256];
    int n = f->ops->print(f, t, sizeof t);
    if (n < (int)sizeof t) { puts_(b, t); return; }
    char *big = malloc((size_t)n + 1);
    if (!big) abort();
    f->ops->print(f, big, (size_t)n + 1);
    puts_(b, big);
    free(big);
}

typedef struct { buf *b; lpn_value v; int r; } print_job;
static void print_deep(void *j) {
    print_job *s = j;
    s->r = printed(s->b, s->v);
}

static int printed(buf *b, lpn_value v) {
    if (lpn_stack_low()) {   /* a spawned actor's first stack is full: on on its deep stack */
        print_job j = {b, v, -1};
        if (lpn_deep(print_deep, &j)) return j.r;
        lpn_raise("printString: the value is nested too deeply for this actor's stack");
        return -1;
    }
    if (lpn_prog.print_hook) {
        lpn_value s = lpn_prog.print_hook(v, 0);
        if (s.cls == LPN_UNWIND) return -1;
        if (s.cls == LPN_STRING) {
            lpn_str *t = (lpn_str *)lpn_ptr(s);
            put(b, t->data, t->len);
            lpn_drop(s);
            return 0;
        }
    }
    return print_builtin(b, v);
}

static lpn_value finish(buf *b, int status, lpn_value v) {
    lpn_drop(v);
    if (status) { free(b->p); return LPN_UNWIND_VALUE; }
    lpn_value s = lpn_str_new(b->p ? b->p : "", b->n);
    free(b->p);
    return s;
}

lpn_value lpn_print_string(lpn_value v) {
    buf b = {0};
    return finish(&b, print_builtin(&b, v), v);
}

lpn_value lpn_display_string(lpn_value v) {
    buf b = {0};
    int st = 0;
    if (v.cls == LPN_STRING) return v;
    if (v.cls == LPN_SYMBOL) {
        const lpn_symbol *s = (const lpn_symbol *)(uintptr_t)v.bits;
        put(&b, s->name, s->len);
    } else if (v.cls == LPN_CHAR) {
        put_char(&b, v.bits);
    } else {
        st = printed(&b, v);
    }
    return finish(&b, st, v);
}

lpn_value lpn_describe(lpn_value v) {
    buf b = {0};
    char tmp[96];
    if (v.cls == LPN_NIL) puts_(&b, "nil");
    else if (v.cls == LPN_CLASS) { snprintf(tmp, sizeof tmp, "the class %s", cname(v.bits)); puts_(&b, tmp); }
    else {
        uint64_t cls = v.cls;
        buf t = {0};
        print_builtin(&t, v);
        if (t.n > 40) { t.p[37] = '.'; t.p[38] = '.'; t.p[39] = '.'; t.p[40] = 0; t.n = 40; }
        const char *name = cname(cls);
        if (cls <= LPN_SYMBOL || cls == LPN_STRING) {
            snprintf(tmp, sizeof tmp, "the %s ", name);
            puts_(&b, tmp);
            put(&b, t.p, t.n);
        } else {
            snprintf(tmp, sizeof tmp, "%s %s", strchr("AEIOU", name[0]) ? "an" : "a", name);
            puts_(&b, tmp);
        }
        free(t.p);
    }
    return finish(&b, 0, v);
}

lpn_value lpn_transcript(lpn_value s, int newline) {
    /* one line from one actor at a time: the text and its newline under the stream's lock (taken
       again by fwrite/fputc, recursively; the _unlocked forms touch the buffer inline, where
       ThreadSanitizer does not see the lock and reports a race) */
    flockfile(stdout);
    if (lpn_output_allowed()) {
        if (s.cls == LPN_STRING) {
            lpn_str *t = (lpn_str *)lpn_ptr(s);
            fwrite(t->data, 1, t->len, stdout);
        }
        if (newline) fputc('\n', stdout);
    }
    funlockfile(stdout);
    lpn_drop(s);
    return LPN_NIL_VALUE;
}

void lpn_flush(void) { fflush(stdout); }
void lpn_flush_pending(void) {
    if (__fpending(stdout)) fflush(stdout);
}
