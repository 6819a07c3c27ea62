/* print.c — printString / displayString in the interpreter's formats, and standard output. */
#include <math.h>
#include <stdio.h>
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

/* Python's repr(float), then `1e+16` written `1.0e16` (lp/syntax/format.py float_text). */
static void put_float(buf *b, double d) {
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
    put(b, ".", 1);
    if (nd > 1) put(b, digits + 1, nd - 1);
    else put(b, "0", 1);
    snprintf(out, sizeof out, "e%d", exp10);
    puts_(b, out);
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

static int print_builtin(buf *b, lpn_value v) {
    char tmp[64];
    switch (v.cls) {
    case LPN_NIL: puts_(b, "nil"); return 0;
    case LPN_BOOL: puts_(b, v.bits ? "true" : "false"); return 0;
    case LPN_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)(int64_t)v.bits); puts_(b, tmp); return 0;
    case LPN_FLOAT: put_float(b, lpn_f(v)); return 0;
    case LPN_CHAR: put(b, "$", 1); put_char(b, v.bits); return 0;
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
static int printed(buf *b, lpn_value v) {
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
    if (s.cls == LPN_STRING) {
        lpn_str *t = (lpn_str *)lpn_ptr(s);
        fwrite(t->data, 1, t->len, stdout);
    }
    if (newline) fputc('\n', stdout);
    lpn_drop(s);
    return LPN_NIL_VALUE;
}

void lpn_flush(void) { fflush(stdout); }
