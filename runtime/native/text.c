/* text.c — String, Symbol and Character primitives (indices are characters, from 1).
 * Case mapping and character classes are Python's (unicode.c), as in lp run. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

#define STR(v) ((lpn_str *)lpn_ptr(v))
#define SYM(v) ((const lpn_symbol *)(uintptr_t)(v).bits)

/* ---- symbols: one lpn_symbol per name, the compiled program's literals included ---- */
static const lpn_symbol **table;
static uint64_t tcap, tcount;

static uint64_t name_hash(const char *s, uint64_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static void put_symbol(const lpn_symbol *s) {
    uint64_t i = name_hash(s->name, s->len) & (tcap - 1);
    while (table[i]) i = (i + 1) & (tcap - 1);
    table[i] = s;
    tcount++;
}

static void grow(void) {
    const lpn_symbol **old = table;
    uint64_t oldcap = tcap;
    tcap = tcap ? tcap * 2 : 256;
    table = calloc(tcap, sizeof *table);
    if (!table) abort();
    tcount = 0;
    for (uint64_t i = 0; i < oldcap; i++) if (old[i]) put_symbol(old[i]);
    free(old);
}

static const lpn_symbol *intern(const char *name, uint64_t len) {
    if (!table) {
        grow();
        for (uint64_t i = 0; i < lpn_prog.nsymbols; i++) {
            if ((tcount + 1) * 2 > tcap) grow();
            put_symbol(lpn_prog.symbols[i]);
        }
    }
    uint64_t i = name_hash(name, len) & (tcap - 1);
    while (table[i]) {
        if (table[i]->len == len && memcmp(table[i]->name, name, len) == 0) return table[i];
        i = (i + 1) & (tcap - 1);
    }
    if ((tcount + 1) * 2 > tcap) { grow(); return intern(name, len); }
    lpn_symbol *s = malloc(sizeof *s);
    char *copy = malloc(len + 1);
    if (!s || !copy) abort();
    memcpy(copy, name, len);
    copy[len] = 0;
    s->name = copy;
    s->len = len;
    put_symbol(s);
    return s;
}

/* Actors on several domains intern at once (`asSymbol`, exit reasons). */
const lpn_symbol *lpn_intern(const char *name, uint64_t len) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    const lpn_symbol *s = intern(name, len);
    pthread_mutex_unlock(&mu);
    return s;
}

static lpn_value symbol(const char *name, uint64_t len) {
    return (lpn_value){LPN_SYMBOL, (uint64_t)(uintptr_t)lpn_intern(name, len)};
}

/* ---- UTF-8 ---- */
static uint64_t decode(const char *s, uint64_t *i) {
    unsigned char c = (unsigned char)s[*i];
    int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint64_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (int k = 1; k < n; k++) cp = (cp << 6) | ((unsigned char)s[*i + k] & 0x3F);
    *i += n;
    return cp;
}

static uint64_t offset_of(lpn_str *s, uint64_t index0) {   /* byte offset of character index0 */
    if (s->nchars == s->len) return index0;
    uint64_t i = 0;
    for (uint64_t k = 0; k < index0; k++) decode(s->data, &i);
    return i;
}

static uint64_t decode_before(const char *s, uint64_t *i) {   /* the character ending at byte *i */
    do --*i; while (*i > 0 && ((unsigned char)s[*i] & 0xC0) == 0x80);
    uint64_t j = *i;
    return decode(s, &j);
}

static int encode(uint64_t c, char *u) {   /* c's UTF-8 bytes in u; answers their count */
    if (c < 0x80) { u[0] = (char)c; return 1; }
    if (c < 0x800) { u[0] = (char)(0xC0 | (c >> 6)); u[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) { u[0] = (char)(0xE0 | (c >> 12)); u[1] = (char)(0x80 | ((c >> 6) & 0x3F)); u[2] = (char)(0x80 | (c & 0x3F)); return 3; }
    u[0] = (char)(0xF0 | (c >> 18)); u[1] = (char)(0x80 | ((c >> 12) & 0x3F)); u[2] = (char)(0x80 | ((c >> 6) & 0x3F)); u[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static lpn_value char_string(uint64_t c) {
    char u[4];
    return lpn_str_new(u, (uint64_t)encode(c, u));
}

static int has(uint64_t c, int bits) { return (lpn_uni_props(c) & bits) != 0; }

#define expects lpn_raise_expects

static lpn_value quoted_error(lpn_str *s, const char *suffix) {
    lpn_value t;
    if (s->nchars <= 40) t = lpn_str_new(s->data, s->len);
    else {
        lpn_value head = lpn_str_new(s->data, offset_of(s, 37));
        t = lpn_str_concat(head, lpn_str_new("...", 3));
    }
    lpn_value q = lpn_print_string(t);
    lpn_value e = lpn_raise("%s %s", STR(q)->data, suffix);
    lpn_drop(q);
    return e;
}

static lpn_value as_integer(lpn_str *s) {
    uint64_t a = 0, b = s->len;   /* no surrounding spaces allowed, as in lp run */
    uint64_t i = a;
    int neg = 0;
    if (i < b && (s->data[i] == '+' || s->data[i] == '-')) neg = s->data[i++] == '-';
    if (i == b) return quoted_error(s, "is not an integer");
    __int128 v = 0;
    int big = 0;
    for (uint64_t k = i; k < b; k++) {
        if (!isdigit((unsigned char)s->data[k])) return quoted_error(s, "is not an integer");
        v = v * 10 + (s->data[k] - '0');
        if (v > ((__int128)1 << 64)) big = 1, v = (__int128)1 << 64;
    }
    if (neg) v = -v;
    if (big || v > INT64_MAX || v < INT64_MIN) {
        lpn_str *t = (lpn_str *)lpn_ptr(lpn_str_new(s->data + a, b - a));
        lpn_value e = quoted_error(t, "does not fit in 64 bits");
        lpn_drop(lpn_ref(t));
        return e;
    }
    return lpn_int((int64_t)v);
}

static lpn_value split(lpn_str *s, const char *sep, uint64_t seplen) {
    uint64_t n = 1;
    for (uint64_t i = 0; i + seplen <= s->len;) {
        if (memcmp(s->data + i, sep, seplen) == 0) { n++; i += seplen; } else i++;
    }
    lpn_arr *a = lpn_arr_new(n);
    uint64_t start = 0, k = 0;
    for (uint64_t i = 0; i + seplen <= s->len;) {
        if (memcmp(s->data + i, sep, seplen) == 0) {
            a->item[k++] = lpn_str_new(s->data + start, i - start);
            i += seplen;
            start = i;
        } else i++;
    }
    a->item[k] = lpn_str_new(s->data + start, s->len - start);
    return lpn_ref(a);
}

static lpn_value lines(lpn_str *s) {   /* Python's splitlines: \r\n or any one line break ends a line */
    uint64_t n = 0, cap = 8;
    lpn_value *items = malloc(cap * sizeof *items);
    uint64_t start = 0, i = 0;
    while (i < s->len) {
        uint64_t at = i, c = decode(s->data, &i);
        if (has(c, LPN_UNI_LINEBREAK)) {
            if (n == cap) { cap *= 2; items = realloc(items, cap * sizeof *items); }
            items[n++] = lpn_str_new(s->data + start, at - start);
            if (c == '\r' && i < s->len && s->data[i] == '\n') i++;
            start = i;
        }
    }
    if (start < s->len) {
        if (n == cap) { cap *= 2; items = realloc(items, cap * sizeof *items); }
        items[n++] = lpn_str_new(s->data + start, s->len - start);
    }
    lpn_arr *a = lpn_arr_new(n);
    memcpy(a->item, items, n * sizeof *items);
    free(items);
    return lpn_ref(a);
}

/* Σ at byte `at` (ending at `end`) lowers to final ς after a cased letter that no cased letter
   follows, case-ignorable characters between (Python's Final_Sigma rule). */
static int final_sigma(lpn_str *s, uint64_t at, uint64_t end) {
    uint64_t i = at, c = 0;
    int before = 0;
    while (i > 0) {
        c = decode_before(s->data, &i);
        if (!has(c, LPN_UNI_IGNORABLE)) { before = has(c, LPN_UNI_CASED); break; }
    }
    if (!before) return 0;
    for (i = end; i < s->len;) {
        c = decode(s->data, &i);
        if (!has(c, LPN_UNI_IGNORABLE)) return !has(c, LPN_UNI_CASED);
    }
    return 1;
}

/* asUppercase / asLowercase: Python's full case mapping ('ß' upper is 'SS'); two passes, the
   first measures. */
static lpn_value mapped(lpn_str *s, int upper) {
    char *out = NULL;
    uint64_t len = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t n = 0, i = 0;
        while (i < s->len) {
            uint64_t at = i, c = decode(s->data, &i);
            uint32_t m[3];
            int k = lpn_uni_case(c, upper, m);
            if (!upper && c == 0x3A3 && final_sigma(s, at, i)) m[0] = 0x3C2;
            for (int j = 0; j < k; j++) {
                char u[4];
                int w = encode(m[j], u);
                if (out) memcpy(out + n, u, (size_t)w);
                n += (uint64_t)w;
            }
        }
        if (out) break;
        len = n;
        out = malloc(len + 1);
        if (!out) abort();
    }
    lpn_value r = lpn_str_new(out, len);
    free(out);
    return r;
}

/* The character c's only case mapping, or c when there it is none or several characters. */
static lpn_value char_case(uint64_t c, int upper) {
    uint32_t m[3];
    return (lpn_value){LPN_CHAR, lpn_uni_case(c, upper, m) == 1 ? m[0] : c};
}

/* String, Symbol and Character operations by code; consumes s and arg. */
lpn_value lpn_text_op(int op, lpn_value s, lpn_value arg) {
    lpn_value r = LPN_NIL_VALUE;
    if (s.cls == LPN_CHAR) {
        uint64_t c = s.bits;
        switch (op) {
        case 'v': r = lpn_int((int64_t)c); break;
        case 'a': r = char_string(c); break;
        case 'V': r = lpn_bool(c < 128 && strchr("aeiouAEIOU", (int)c) && c); break;
        case 'L': r = lpn_bool(has(c, LPN_UNI_ALPHA)); break;
        case 'D': r = lpn_bool(has(c, LPN_UNI_DIGIT)); break;
        case 'W': r = lpn_bool(has(c, LPN_UNI_SPACE)); break;
        case 'u': r = char_case(c, 1); break;
        case 'd': r = char_case(c, 0); break;
        case 'U': r = lpn_bool(has(c, LPN_UNI_UPPER)); break;
        case 'o': r = lpn_bool(has(c, LPN_UNI_LOWER)); break;
        case 'S': { lpn_value t = char_string(c); r = symbol(STR(t)->data, STR(t)->len); lpn_drop(t); break; }
        case 'g': {
            int64_t v = -1;
            if (c < 128 && isdigit((int)c)) v = (int64_t)c - '0';
            else if (c < 128 && isalpha((int)c)) v = toupper((int)c) - 'A' + 10;
            r = lpn_int(v);
            break;
        }
        case '<': case '>': case 'l': case 'G': {
            const char *sel = op == '<' ? "<" : op == '>' ? ">" : op == 'l' ? "<=" : ">=";
            if (arg.cls != LPN_CHAR) { r = expects(op == 'l' ? ">" : op == 'G' ? "<" : sel, "a Character", arg); break; }
            uint64_t d = arg.bits;
            r = lpn_bool(op == '<' ? c < d : op == '>' ? c > d : op == 'l' ? c <= d : c >= d);
            break;
        }
        default: r = lpn_raise("unknown Character operation");
        }
        lpn_drop(arg);
        return r;
    }
    if (s.cls == LPN_SYMBOL) {
        const lpn_symbol *y = SYM(s);
        switch (op) {
        case 'a': r = lpn_str_new(y->name, y->len); break;
        case 'z': {
            int64_t n = 0;
            for (uint64_t i = 0; i < y->len; i++) n += ((unsigned char)y->name[i] & 0xC0) != 0x80;
            r = lpn_int(n);
            break;
        }
        case 'N': {
            int64_t n = 0;
            if (y->len) {
                if (y->name[y->len - 1] == ':') for (uint64_t i = 0; i < y->len; i++) n += y->name[i] == ':';
                else {
                    uint64_t i = 0;
                    n = (has(decode(y->name, &i), LPN_UNI_ALPHA) || y->name[0] == '_') ? 0 : 1;
                }
            }
            r = lpn_int(n);
            break;
        }
        case ',': {
            lpn_value t = lpn_str_new(y->name, y->len);
            if (arg.cls == LPN_SYMBOL) { arg = lpn_str_new(SYM(arg)->name, SYM(arg)->len); }
            else lpn_dup(arg);
            r = lpn_str_concat(t, arg);
            break;
        }
        default: r = lpn_raise("unknown Symbol operation");
        }
        lpn_drop(arg);
        return r;
    }
    lpn_str *x = STR(s);
    switch (op) {
    case 'c': {   /* at: */
        if (arg.cls != LPN_INT) { r = expects("at:", "an Integer index", arg); break; }
        int64_t i = (int64_t)arg.bits;
        if (i < 1 || (uint64_t)i > x->nchars) {
            r = lpn_raise("index %lld is out of bounds: the size is %llu", (long long)i, (unsigned long long)x->nchars);
            break;
        }
        uint64_t off = offset_of(x, (uint64_t)i - 1);
        r = (lpn_value){LPN_CHAR, decode(x->data, &off)};
        break;
    }
    case 'i': case 's': case 'e': case '<': case '>': case 'l': case 'G': {
        const char *sel = op == 'i' ? "includesSubstring:" : op == 's' ? "startsWith:" : op == 'e' ? "endsWith:"
                        : op == '<' ? "<" : op == '>' ? ">" : op == 'l' ? "<=" : ">=";
        if (arg.cls != LPN_STRING) { r = expects(sel, "a String", arg); break; }
        lpn_str *y = STR(arg);
        if (op == 'i') r = lpn_bool(memmem(x->data, x->len, y->data, y->len) != NULL || y->len == 0);
        else if (op == 's') r = lpn_bool(y->len <= x->len && memcmp(x->data, y->data, y->len) == 0);
        else if (op == 'e') r = lpn_bool(y->len <= x->len && memcmp(x->data + x->len - y->len, y->data, y->len) == 0);
        else {
            uint64_t n = x->len < y->len ? x->len : y->len;
            int c = memcmp(x->data, y->data, n);
            if (c == 0) c = x->len < y->len ? -1 : x->len > y->len;
            r = lpn_bool(op == '<' ? c < 0 : op == '>' ? c > 0 : op == 'l' ? c <= 0 : c >= 0);
        }
        break;
    }
    case 'x': {   /* indexOf: a Character or a String */
        lpn_value needle = arg.cls == LPN_CHAR ? char_string(arg.bits) : (lpn_dup(arg), arg);
        if (needle.cls != LPN_STRING) { lpn_drop(needle); r = expects("indexOf:", "a String", arg); break; }
        const char *at = memmem(x->data, x->len, STR(needle)->data, STR(needle)->len);
        int64_t idx = 0;
        if (at) {
            lpn_value head = lpn_str_new(x->data, (uint64_t)(at - x->data));
            idx = (int64_t)STR(head)->nchars + 1;
            lpn_drop(head);
        }
        lpn_drop(needle);
        r = lpn_int(idx);
        break;
    }
    case 'p': {   /* splitOn: */
        lpn_value sep = arg.cls == LPN_CHAR ? char_string(arg.bits) : (lpn_dup(arg), arg);
        if (sep.cls != LPN_STRING) { lpn_drop(sep); r = expects("splitOn:", "a String", arg); break; }
        if (STR(sep)->len == 0) r = lpn_raise("#splitOn: needs a non-empty separator");
        else r = split(x, STR(sep)->data, STR(sep)->len);
        lpn_drop(sep);
        break;
    }
    case 't': {
        uint64_t a = 0, b = x->len, i;
        while (a < b && (i = a, has(decode(x->data, &i), LPN_UNI_SPACE))) a = i;
        while (b > a && (i = b, has(decode_before(x->data, &i), LPN_UNI_SPACE))) b = i;
        r = lpn_str_new(x->data + a, b - a);
        break;
    }
    case 'r': {
        lpn_value out = lpn_str_new(x->data, x->len);
        lpn_str *t = STR(out);
        uint64_t i = 0, end = x->len;
        while (i < x->len) {
            uint64_t start = i;
            decode(x->data, &i);
            memcpy(t->data + end - (i - start), x->data + start, i - start);
            end -= i - start;
        }
        r = out;
        break;
    }
    case 'U': r = mapped(x, 1); break;
    case 'L': r = mapped(x, 0); break;
    case 'I': r = as_integer(x); break;
    case 'S': r = symbol(x->data, x->len); break;
    case 'n': r = lines(x); break;
    case 'A': {
        lpn_arr *a = lpn_arr_new(x->nchars);
        uint64_t i = 0;
        for (uint64_t k = 0; k < x->nchars; k++) a->item[k] = (lpn_value){LPN_CHAR, decode(x->data, &i)};
        r = lpn_ref(a);
        break;
    }
    case 'f': case 'Z': {
        if (!x->nchars) { r = lpn_raise(op == 'f' ? "#first of an empty String" : "#last of an empty String"); break; }
        uint64_t off = offset_of(x, op == 'f' ? 0 : x->nchars - 1);
        r = (lpn_value){LPN_CHAR, decode(x->data, &off)};
        break;
    }
    case 'a': lpn_dup(s); r = s; break;
    case 'w': case 'W': {   /* substrings (at white space) / substrings: (at any of arg's characters) */
        lpn_value seps;   /* for substrings, unused: its separators are the white space characters */
        if (op == 'w') seps = lpn_str_new("", 0);
        else if (arg.cls == LPN_CHAR) seps = char_string(arg.bits);
        else if (arg.cls == LPN_STRING) { lpn_dup(arg); seps = arg; }
        else { r = expects("substrings:", "a String", arg); break; }
        lpn_str *sp = STR(seps);
        uint64_t n = 0, cap = 8, i = 0, start = 0;
        lpn_value *parts = malloc(cap * sizeof *parts);
        while (i <= x->len) {
            uint64_t at = i;
            int sep = 1;
            if (i < x->len) {
                uint64_t j = i;
                uint64_t c = decode(x->data, &j);
                if (op == 'w') sep = has(c, LPN_UNI_SPACE);
                else {
                    lpn_value cs = char_string(c);
                    sep = memmem(sp->data, sp->len, STR(cs)->data, STR(cs)->len) != NULL;
                    lpn_drop(cs);
                }
                i = j;
            } else i++;
            if (sep) {
                if (at > start) {
                    if (n == cap) { cap *= 2; parts = realloc(parts, cap * sizeof *parts); }
                    parts[n++] = lpn_str_new(x->data + start, at - start);
                }
                start = i;
            }
        }
        lpn_arr *a = lpn_arr_new(n);
        memcpy(a->item, parts, n * sizeof *parts);
        free(parts);
        lpn_drop(seps);
        r = lpn_ref(a);
        break;
    }
    case 'h': case 'O': {   /* includes: / occurrencesOf: a Character */
        int64_t count = 0;
        if (arg.cls == LPN_CHAR) {
            uint64_t i = 0;
            while (i < x->len) count += decode(x->data, &i) == arg.bits;
        }
        r = op == 'h' ? lpn_bool(count > 0) : lpn_int(count);
        break;
    }
    case 'j': {   /* join: an Array of Strings, with this String between them */
        if (arg.cls != LPN_ARRAY) { r = expects("join:", "an Array of Strings", arg); break; }
        lpn_arr *a = (lpn_arr *)lpn_ptr(arg);
        lpn_value out = lpn_str_new("", 0);
        int bad = 0;
        for (uint64_t i = 0; i < a->len && !bad; i++) {
            if (a->item[i].cls != LPN_STRING) { bad = 1; r = expects("join:", "a String", a->item[i]); break; }
            if (i) { lpn_dup(s); out = lpn_str_concat(out, s); }
            lpn_dup(a->item[i]);
            out = lpn_str_concat(out, a->item[i]);
        }
        if (bad) lpn_drop(out); else r = out;
        break;
    }
    case ',': {
        lpn_value t = arg.cls == LPN_SYMBOL ? lpn_str_new(SYM(arg)->name, SYM(arg)->len) : (lpn_dup(arg), arg);
        r = lpn_str_concat(s, t);   /* consumes s: a unique receiver grows in place */
        s = LPN_NIL_VALUE;
        break;
    }
    default: r = lpn_raise("unknown String operation");
    }
    lpn_drop(s);
    lpn_drop(arg);
    return r;
}

lpn_value lpn_str_copy(lpn_value s, lpn_value a, lpn_value b) {
    lpn_str *x = STR(s);
    int64_t n = (int64_t)x->nchars;
    if (a.cls != LPN_INT || b.cls != LPN_INT || (int64_t)a.bits < 1 || (int64_t)b.bits > n ||
        (int64_t)a.bits > (int64_t)b.bits + 1) {
        lpn_value ta = lpn_print_string(a), tb = lpn_print_string(b);
        lpn_value e = lpn_raise("copyFrom: %s to: %s is out of bounds for size %lld", STR(ta)->data, STR(tb)->data,
                                (long long)n);
        lpn_drop(ta);
        lpn_drop(tb);
        lpn_drop(s);
        return e;
    }
    uint64_t from = offset_of(x, a.bits - 1), to = offset_of(x, b.bits);
    lpn_value r = lpn_str_new(x->data + from, to - from);
    lpn_drop(s);
    return r;
}

lpn_value lpn_int_as_char(int64_t v) {
    if (v < 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return lpn_raise("%lld is not a Unicode character code (0 to 16r10FFFF, without the surrogates "
                         "16rD800 to 16rDFFF)", (long long)v);
    return (lpn_value){LPN_CHAR, (uint64_t)v};
}
