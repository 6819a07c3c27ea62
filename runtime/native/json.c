/* json.c — `JSON decode:`: the interpreter's json.loads (CPython 3.11's C scanner, with
 * LP's parse_int / parse_float / parse_constant hooks) redone in C, with the same
 * values (Dictionary, Array, String, Integer, Float, Boolean, nil) and the same
 * error messages, positions counted in characters as Python counts them.
 *
 * The text is decoded to code points first so that positions, `\u` escapes and
 * control characters are judged exactly as Python judges them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

/* The interpreter runs out of Python recursion (lp/cli.py sets 20000) about here
 * when decoding nested arrays at the top level of a program (measured). */
#define MAX_DEPTH 9998          /* the interpreter's depth at a program's top level, in every actor */

typedef struct {
    const uint32_t *s;
    int64_t len;
    int depth;
    /* the failure: a JSONDecodeError (msg, pos), a ValueError (text), or too deep */
    const char *msg;
    int64_t pos;
    char value_error[96];
    int too_deep;
} parser;

static int fail(parser *p, const char *msg, int64_t pos) {
    p->msg = msg;
    p->pos = pos;
    return -1;
}

static int is_ws(uint32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int64_t skip_ws(parser *p, int64_t i) {
    while (i < p->len && is_ws(p->s[i])) i++;
    return i;
}

/* Append code point c as UTF-8 (a lone surrogate becomes U+FFFD, as _scalar_text does). */
typedef struct { char *b; size_t n, cap; } buf;
static void put_byte(buf *b, char c) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        b->b = realloc(b->b, b->cap);
        if (!b->b) abort();
    }
    b->b[b->n++] = c;
}
static void put_cp(buf *b, uint32_t c) {
    if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
    if (c < 0x80) put_byte(b, (char)c);
    else if (c < 0x800) { put_byte(b, (char)(0xC0 | c >> 6)); put_byte(b, (char)(0x80 | (c & 63))); }
    else if (c < 0x10000) {
        put_byte(b, (char)(0xE0 | c >> 12)); put_byte(b, (char)(0x80 | ((c >> 6) & 63)));
        put_byte(b, (char)(0x80 | (c & 63)));
    } else {
        put_byte(b, (char)(0xF0 | c >> 18)); put_byte(b, (char)(0x80 | ((c >> 12) & 63)));
        put_byte(b, (char)(0x80 | ((c >> 6) & 63))); put_byte(b, (char)(0x80 | (c & 63)));
    }
}

static int hex(uint32_t d) {
    if (d >= '0' && d <= '9') return (int)(d - '0');
    if (d >= 'a' && d <= 'f') return (int)(d - 'a' + 10);
    if (d >= 'A' && d <= 'F') return (int)(d - 'A' + 10);
    return -1;
}

/* scanstring_unicode: `end` is just after the opening quote. */
static int scan_string(parser *p, int64_t end, lpn_value *out, int64_t *next_out) {
    int64_t begin = end - 1, len = p->len, next;
    buf b = {0};
    for (;;) {
        uint32_t c = 0;
        for (next = end; next < len; next++) {
            c = p->s[next];
            if (c == '"' || c == '\\') break;
            if (c <= 0x1f) { free(b.b); return fail(p, "Invalid control character at", next); }
        }
        if (!(c == '"' || c == '\\')) { free(b.b); return fail(p, "Unterminated string starting at", begin); }
        for (int64_t i = end; i < next; i++) put_cp(&b, p->s[i]);
        next++;
        if (c == '"') { end = next; break; }
        if (next == len) { free(b.b); return fail(p, "Unterminated string starting at", begin); }
        c = p->s[next];
        if (c != 'u') {
            end = next + 1;
            switch (c) {
            case '"': case '\\': case '/': break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            default: c = 0;
            }
            if (c == 0) { free(b.b); return fail(p, "Invalid \\escape", end - 2); }
        } else {
            c = 0;
            next++;
            end = next + 4;
            if (end >= len) { free(b.b); return fail(p, "Invalid \\uXXXX escape", next - 1); }
            for (; next < end; next++) {
                int h = hex(p->s[next]);
                if (h < 0) { free(b.b); return fail(p, "Invalid \\uXXXX escape", end - 5); }
                c = (c << 4) | (uint32_t)h;
            }
            if (c >= 0xD800 && c <= 0xDBFF && end + 6 < len && p->s[end] == '\\' && p->s[end + 1] == 'u') {
                uint32_t c2 = 0;
                end += 6;
                for (next += 2; next < end; next++) {
                    int h = hex(p->s[next]);
                    if (h < 0) { free(b.b); return fail(p, "Invalid \\uXXXX escape", end - 5); }
                    c2 = (c2 << 4) | (uint32_t)h;
                }
                if (c2 >= 0xDC00 && c2 <= 0xDFFF) c = 0x10000 + (((c - 0xD800) << 10) | (c2 - 0xDC00));
                else end -= 6;
            }
        }
        put_cp(&b, c);
    }
    *out = lpn_str_new(b.b ? b.b : "", b.n);
    free(b.b);
    *next_out = end;
    return 0;
}

static const char *shown(parser *p, int64_t a, int64_t e, char *tmp) {   /* the number's text, cut at 30 */
    int64_t n = e - a;
    int64_t k = n <= 30 ? n : 27;
    for (int64_t i = 0; i < k; i++) tmp[i] = (char)p->s[a + i];
    strcpy(tmp + k, n <= 30 ? "" : "...");
    return tmp;
}

static int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* _match_number_unicode with parse_int=_json_int and parse_float=_json_float. */
static int match_number(parser *p, int64_t start, lpn_value *out, int64_t *next_out) {
    int64_t idx = start, end_idx = p->len - 1;
    int is_float = 0;
    if (p->s[idx] == '-') {
        idx++;
        if (idx > end_idx) return fail(p, "Expecting value", start);
    }
    if (p->s[idx] >= '1' && p->s[idx] <= '9') {
        idx++;
        while (idx <= end_idx && is_digit(p->s[idx])) idx++;
    } else if (p->s[idx] == '0') {
        idx++;
    } else {
        return fail(p, "Expecting value", start);
    }
    if (idx < end_idx && p->s[idx] == '.' && is_digit(p->s[idx + 1])) {
        is_float = 1;
        idx += 2;
        while (idx <= end_idx && is_digit(p->s[idx])) idx++;
    }
    if (idx < end_idx && (p->s[idx] == 'e' || p->s[idx] == 'E')) {
        int64_t e_start = idx;
        idx++;
        if (idx < end_idx && (p->s[idx] == '-' || p->s[idx] == '+')) idx++;
        while (idx <= end_idx && is_digit(p->s[idx])) idx++;
        if (is_digit(p->s[idx - 1])) is_float = 1;
        else idx = e_start;
    }
    int64_t n = idx - start;
    char *text = malloc((size_t)n + 1), tmp[40];
    if (!text) abort();
    for (int64_t i = 0; i < n; i++) text[i] = (char)p->s[start + i];
    text[n] = 0;
    if (is_float) {
        double d = strtod(text, NULL);
        free(text);
        if (isinf(d)) {
            snprintf(p->value_error, sizeof p->value_error, "the number %s is too large for a Float",
                     shown(p, start, idx, tmp));
            return -1;
        }
        *out = lpn_float(d);
    } else {
        const char *t = text;
        while (*t == '-' || *t == '0') t++;                /* text.lstrip("-0") */
        int ok = strlen(t) <= 19;
        __int128 v = 0;
        for (const char *c = text[0] == '-' ? text + 1 : text; ok && *c; c++) v = v * 10 + (*c - '0');
        if (text[0] == '-') v = -v;
        ok = ok && v >= INT64_MIN && v <= INT64_MAX;
        free(text);
        if (!ok) {
            snprintf(p->value_error, sizeof p->value_error, "the number %s does not fit in a 64-bit Integer",
                     shown(p, start, idx, tmp));
            return -1;
        }
        *out = lpn_int((int64_t)v);
    }
    *next_out = idx;
    return 0;
}

static int scan_once(parser *p, int64_t idx, lpn_value *out, int64_t *next_out);

static int word(parser *p, int64_t idx, const char *w) {   /* s[idx:] starts with w */
    int64_t n = (int64_t)strlen(w);
    if (idx + n > p->len) return 0;
    for (int64_t i = 0; i < n; i++)
        if (p->s[idx + i] != (uint32_t)(unsigned char)w[i]) return 0;
    return 1;
}

static int parse_object(parser *p, int64_t idx, lpn_value *out, int64_t *next_out) {
    int64_t end_idx = p->len - 1, next;
    lpn_value d = lpn_dict_new();
    idx = skip_ws(p, idx);
    if (idx > end_idx || p->s[idx] != '}') {
        for (;;) {
            lpn_value key, val;
            if (idx > end_idx || p->s[idx] != '"') {
                lpn_drop(d);
                return fail(p, "Expecting property name enclosed in double quotes", idx);
            }
            if (scan_string(p, idx + 1, &key, &next)) { lpn_drop(d); return -1; }
            idx = skip_ws(p, next);
            if (idx > end_idx || p->s[idx] != ':') {
                lpn_drop(key); lpn_drop(d);
                return fail(p, "Expecting ':' delimiter", idx);
            }
            idx = skip_ws(p, idx + 1);
            if (scan_once(p, idx, &val, &next)) { lpn_drop(key); lpn_drop(d); return -1; }
            d = lpn_dict_at_put(d, key, val);
            idx = skip_ws(p, next);
            if (idx <= end_idx && p->s[idx] == '}') break;
            if (idx > end_idx || p->s[idx] != ',') { lpn_drop(d); return fail(p, "Expecting ',' delimiter", idx); }
            idx = skip_ws(p, idx + 1);
        }
    }
    *out = d;
    *next_out = idx + 1;
    return 0;
}

static int parse_array(parser *p, int64_t idx, lpn_value *out, int64_t *next_out) {
    int64_t end_idx = p->len - 1, next;
    lpn_value *items = NULL;
    uint64_t n = 0, cap = 0;
    idx = skip_ws(p, idx);
    if (idx > end_idx || p->s[idx] != ']') {
        for (;;) {
            lpn_value v;
            if (scan_once(p, idx, &v, &next)) {
                for (uint64_t i = 0; i < n; i++) lpn_drop(items[i]);
                free(items);
                return -1;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                items = realloc(items, cap * sizeof *items);
                if (!items) abort();
            }
            items[n++] = v;
            idx = skip_ws(p, next);
            if (idx <= end_idx && p->s[idx] == ']') break;
            if (idx > end_idx || p->s[idx] != ',') {
                for (uint64_t i = 0; i < n; i++) lpn_drop(items[i]);
                free(items);
                return fail(p, "Expecting ',' delimiter", idx);
            }
            idx = skip_ws(p, idx + 1);
        }
    }
    lpn_arr *a = lpn_arr_new(n);
    if (n) memcpy(a->item, items, n * sizeof *items);
    free(items);
    *out = lpn_ref(a);
    *next_out = idx + 1;
    return 0;
}

static int constant(parser *p, const char *name) {
    snprintf(p->value_error, sizeof p->value_error, "%s is not JSON", name);
    return -1;
}

typedef struct { parser *p; int64_t idx; lpn_value *out; int64_t *next_out; int r; } scan_job;
static int scan_once(parser *p, int64_t idx, lpn_value *out, int64_t *next_out);
static void scan_deep(void *j) {
    scan_job *s = j;
    s->r = scan_once(s->p, s->idx, s->out, s->next_out);
}

static int scan_once(parser *p, int64_t idx, lpn_value *out, int64_t *next_out) {
    if (lpn_stack_low()) {   /* a spawned actor's first stack is full: on on its deep stack */
        scan_job j = {p, idx, out, next_out, -1};
        if (lpn_deep(scan_deep, &j)) return j.r;
        p->too_deep = 1;
        return -1;
    }
    if (idx < 0 || idx >= p->len) return fail(p, "Expecting value", idx);
    int r;
    switch (p->s[idx]) {
    case '"': return scan_string(p, idx + 1, out, next_out);
    case '{': case '[':
        if (++p->depth > MAX_DEPTH) {
            p->too_deep = 1;
            return -1;
        }
        r = p->s[idx] == '{' ? parse_object(p, idx + 1, out, next_out) : parse_array(p, idx + 1, out, next_out);
        p->depth--;
        return r;
    case 'n':
        if (idx + 3 < p->len && word(p, idx, "null")) { *out = LPN_NIL_VALUE; *next_out = idx + 4; return 0; }
        break;
    case 't':
        if (idx + 3 < p->len && word(p, idx, "true")) { *out = lpn_bool(1); *next_out = idx + 4; return 0; }
        break;
    case 'f':
        if (idx + 4 < p->len && word(p, idx, "false")) { *out = lpn_bool(0); *next_out = idx + 5; return 0; }
        break;
    case 'N':
        if (idx + 2 < p->len && word(p, idx, "NaN")) return constant(p, "NaN");
        break;
    case 'I':
        if (idx + 7 < p->len && word(p, idx, "Infinity")) return constant(p, "Infinity");
        break;
    case '-':
        if (idx + 8 < p->len && word(p, idx, "-Infinity")) return constant(p, "-Infinity");
        break;
    }
    return match_number(p, idx, out, next_out);
}

/* UTF-8 to code points (LP Strings hold valid UTF-8). */
static uint32_t *code_points(const unsigned char *s, uint64_t n, int64_t *len) {
    uint32_t *out = malloc((n + 1) * sizeof *out);
    if (!out) abort();
    int64_t k = 0;
    for (uint64_t i = 0; i < n;) {
        unsigned char c = s[i];
        uint32_t cp;
        int extra;
        if (c < 0x80) { cp = c; extra = 0; }
        else if (c < 0xE0) { cp = c & 0x1F; extra = 1; }
        else if (c < 0xF0) { cp = c & 0x0F; extra = 2; }
        else { cp = c & 0x07; extra = 3; }
        i++;
        for (int j = 0; j < extra && i < n; j++, i++) cp = (cp << 6) | (s[i] & 0x3F);
        out[k++] = cp;
    }
    *len = k;
    return out;
}

/* Parses the String sv (consumed; the caller checked its class): 0 with *out, or -1 with the
   failure's text in err as `python` says it (Python's str of the exception: "Expecting value:
   line 1 column 1 (char 0)") or not (JSON decode:'s "at line 1 column 1: expecting value"). */
int lpn_json_parse(lpn_value sv, lpn_value *out, char *err, size_t cap, int python) {
    lpn_str *str = (lpn_str *)lpn_ptr(sv);
    parser p = {0};
    p.s = code_points((const unsigned char *)str->data, str->len, &p.len);
    lpn_drop(sv);
    lpn_value v = LPN_NIL_VALUE;
    int64_t end = 0;
    int st;
    if (p.len > 0 && p.s[0] == 0xFEFF) st = fail(&p, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    else {
        st = scan_once(&p, skip_ws(&p, 0), &v, &end);
        if (!st) {
            end = skip_ws(&p, end);
            if (end != p.len) {
                lpn_drop(v);
                st = fail(&p, "Extra data", end);
            }
        }
    }
    *out = v;
    if (st) {
        if (p.too_deep) snprintf(err, cap, "the value is nested too deeply");
        else if (p.value_error[0]) snprintf(err, cap, "%s", p.value_error);
        else {
            int64_t line = 1, last_nl = -1;
            for (int64_t i = 0; i < p.pos && i < p.len; i++)
                if (p.s[i] == '\n') { line++; last_nl = i; }
            if (python)
                snprintf(err, cap, "%s: line %lld column %lld (char %lld)", p.msg, (long long)line,
                         (long long)(p.pos - last_nl), (long long)p.pos);
            else {
                char msg[80];
                snprintf(msg, sizeof msg, "%s", p.msg);
                if (msg[0] >= 'A' && msg[0] <= 'Z') msg[0] = (char)(msg[0] - 'A' + 'a');
                snprintf(err, cap, "at line %lld column %lld: %s", (long long)line, (long long)(p.pos - last_nl), msg);
            }
        }
    }
    free((void *)p.s);
    return st ? -1 : 0;
}

lpn_value lpn_json_decode(lpn_value sv) {
    if (sv.cls != LPN_STRING) {
        lpn_value d = lpn_describe(sv);
        lpn_value e = lpn_raise("JSON decode: expects a String, not %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        return e;
    }
    lpn_value v;
    char err[200];
    if (lpn_json_parse(sv, &v, err, sizeof err, 0)) return lpn_raise("invalid JSON%s%s", strncmp(err, "at line ", 8) ? ": " : " ", err);
    return v;
}

/* ---- the one JSON form of LP values back (lp/interp/value_json.py untagged): decoded JSON data
   whose tagged objects become the values they stand for; exact: a grain state's rules ---- */
static int b64val(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Strict base64 (value_json.py's rule): a length that is a multiple of 4, the alphabet, and at most
   two '=' at the end; {0, 1} for text that is none. */
static lpn_value unbase64(const lpn_str *s) {
    uint64_t len = s->len, pad = 0;
    while (pad < 2 && pad < len && s->data[len - 1 - pad] == '=') pad++;
    if (len % 4) return (lpn_value){0, 1};
    for (uint64_t i = 0; i < len - pad; i++)
        if (b64val((unsigned char)s->data[i]) < 0) return (lpn_value){0, 1};
    lpn_bytes *y = lpn_alloc(LPN_BYTES, sizeof *y + len * 3 / 4 + 3);
    uint32_t w = 0;
    int k = 0;
    uint64_t n = 0;
    for (uint64_t i = 0; i < len - pad; i++) {
        w = w << 6 | (uint32_t)b64val((unsigned char)s->data[i]);
        if (++k == 4) {
            y->data[n++] = (unsigned char)(w >> 16); y->data[n++] = (unsigned char)(w >> 8); y->data[n++] = (unsigned char)w;
            w = 0; k = 0;
        }
    }
    if (k == 2) y->data[n++] = (unsigned char)(w >> 4);
    if (k == 3) { y->data[n++] = (unsigned char)(w >> 10); y->data[n++] = (unsigned char)(w >> 2); }
    y->len = n;
    return lpn_ref(y);
}

/* A tagged object whose value is not of its tag's shape (value_json.malformed_text's words), raised
   by the caller's bad_tag (Remote's calls and answers: a RemoteError) or as an Error. */
static __thread lpn_value (*bad_tag)(const char *text);

static lpn_value malformed(const char *tag) {
    static const char *const needs[][2] = {
        {"$symbol", "a String"}, {"$char", "a String of one character"}, {"$maybe", "an Array of at most one value"},
        {"$bytes", "base64 text"}, {"$assoc", "an Array of two values"}, {"$dict", "an Array of pairs"},
        {"$class", "a class name (a String)"}};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (!strcmp(tag, needs[i][0])) {
            char text[200];
            snprintf(text, sizeof text, "a malformed tagged value: %s needs %s", tag, needs[i][1]);
            return bad_tag ? bad_tag(text) : lpn_raise("%s", text);
        }
    return (lpn_value){0, 1};   /* not a tag */
}

static const char *text_of(lpn_value v) { return v.cls == LPN_STRING ? ((lpn_str *)lpn_ptr(v))->data : NULL; }
static int is_arr(lpn_value v, int64_t n) {   /* an Array (of n items when n >= 0) */
    return v.cls == LPN_ARRAY && (n < 0 || (int64_t)((lpn_arr *)lpn_ptr(v))->len == n);
}

/* A user class of that name (a class the program declares, not the library's), else UINT64_MAX. */
static uint64_t user_class(const char *name, int *builtin) {
    *builtin = 0;
    for (uint64_t i = 0; i < lpn_prog.nclasses; i++)
        if (lpn_prog.class_names[i] && !strcmp(lpn_prog.class_names[i], name)) {
            if (!lpn_prog.user_class[i]) { *builtin = 1; return UINT64_MAX; }
            return i;
        }
    return UINT64_MAX;
}

static int field_of(uint64_t cls, const char *f) {
    for (uint64_t i = 0; i < lpn_prog.nfields[cls]; i++)
        if (!strcmp(lpn_prog.field_names[cls][i], f)) return (int)i;
    return -1;
}

static lpn_value untag(lpn_value v, int exact);

static lpn_value untag_array(lpn_value v, int exact) {   /* consumes v */
    lpn_arr *a = (lpn_arr *)lpn_ptr(v);
    lpn_arr *r = lpn_arr_new(a->len);
    uint64_t i = 0;
    for (; i < a->len; i++) {
        lpn_dup(a->item[i]);
        r->item[i] = untag(a->item[i], exact);
        if (r->item[i].cls == LPN_UNWIND) break;
    }
    if (i < a->len) {
        for (uint64_t j = 0; j < i; j++) lpn_drop(r->item[j]);
        r->len = 0;
        lpn_drop(lpn_ref(r));
        lpn_drop(v);
        return LPN_UNWIND_VALUE;
    }
    lpn_drop(v);
    return lpn_ref(r);
}

static lpn_value instance_of(lpn_value d, lpn_arr *e, const char *name, int exact) {   /* borrows d, e */
    int builtin;
    uint64_t cls = user_class(name, &builtin);
    const char *differs = NULL;
    if (cls != UINT64_MAX) {
        uint64_t nf = lpn_prog.nfields[cls];
        if (e->len - 1 == nf) {
            for (uint64_t i = 0; i < e->len && !differs; i++) {
                const char *k = text_of(((lpn_assoc *)lpn_ptr(e->item[i]))->key);
                if (strcmp(k, "$class") && field_of(cls, k) < 0) differs = k;
            }
        } else differs = "";
        if (!differs) {
            lpn_inst *in = lpn_inst_new(cls, nf);
            for (uint64_t i = 0; i < nf; i++) in->field[i] = LPN_NIL_VALUE;
            for (uint64_t i = 0; i < e->len; i++) {
                lpn_assoc *kv = (lpn_assoc *)lpn_ptr(e->item[i]);
                int f = field_of(cls, text_of(kv->key));
                if (f < 0) continue;
                lpn_dup(kv->value);
                in->field[f] = untag(kv->value, exact);
                if (in->field[f].cls == LPN_UNWIND) {
                    in->field[f] = LPN_NIL_VALUE;
                    lpn_drop(lpn_ref(in));
                    return LPN_UNWIND_VALUE;
                }
            }
            return lpn_ref(in);
        }
    }
    if (!exact) return (lpn_value){0, 1};
    if (cls == UINT64_MAX)
        return lpn_raise("a stored grain state names the class %s, which this program does not define", name);
    /* the first field, in sorted order, that the class has and the state lacks (else the other way) */
    const char *first = NULL;
    for (uint64_t i = 0; i < lpn_prog.nfields[cls]; i++) {
        const char *f = lpn_prog.field_names[cls][i];
        lpn_value k = lpn_str_new(f, strlen(f));
        lpn_dup(d);
        lpn_value r = lpn_dict_includes_key(d, k);
        if (!r.bits && (!first || strcmp(f, first) < 0)) first = f;
    }
    if (!first)
        for (uint64_t i = 0; i < e->len; i++) {
            const char *k = text_of(((lpn_assoc *)lpn_ptr(e->item[i]))->key);
            if (strcmp(k, "$class") && field_of(cls, k) < 0 && (!first || strcmp(k, first) < 0)) first = k;
        }
    (void)builtin;
    return lpn_raise("a stored %s does not have the fields of %s (the field %s differs)", name, name, first ? first : "");
}

static lpn_value untag_dict(lpn_value d, int exact) {   /* consumes d */
    lpn_dup(d);
    lpn_value assocs = lpn_dict_list('a', d);
    lpn_arr *e = (lpn_arr *)lpn_ptr(assocs);
    lpn_value r = {0, 1};   /* {0, 1}: not a tagged value */
    if (e->len == 1) {
        lpn_assoc *kv = (lpn_assoc *)lpn_ptr(e->item[0]);
        const char *k = text_of(kv->key), *x = text_of(kv->value);
        lpn_value val = kv->value;
        if (!strcmp(k, "$symbol") && x) r = (lpn_value){LPN_SYMBOL, (uint64_t)(uintptr_t)lpn_intern(x, ((lpn_str *)lpn_ptr(val))->len)};
        else if (!strcmp(k, "$char") && x && ((lpn_str *)lpn_ptr(val))->nchars == 1) {
            int64_t n;
            uint32_t *cp = code_points((const unsigned char *)x, ((lpn_str *)lpn_ptr(val))->len, &n);
            r = (lpn_value){LPN_CHAR, cp[0]};
            free(cp);
        } else if (!strcmp(k, "$maybe") && val.cls == LPN_ARRAY && ((lpn_arr *)lpn_ptr(val))->len <= 1) {
            lpn_arr *a = (lpn_arr *)lpn_ptr(val);
            if (!a->len) r = lpn_maybe_new(0, LPN_NIL_VALUE);
            else {
                lpn_dup(a->item[0]);
                lpn_value x0 = untag(a->item[0], exact);
                r = x0.cls == LPN_UNWIND ? x0 : lpn_maybe_new(1, x0);
            }
        } else if (!strcmp(k, "$bytes") && x) r = unbase64((lpn_str *)lpn_ptr(val));
        else if (!strcmp(k, "$assoc") && is_arr(val, 2)) {
            lpn_dup(val);
            lpn_value pair = untag_array(val, exact);
            if (pair.cls == LPN_UNWIND) r = pair;
            else {
                lpn_arr *a = (lpn_arr *)lpn_ptr(pair);
                lpn_dup(a->item[0]); lpn_dup(a->item[1]);
                r = lpn_assoc_new(a->item[0], a->item[1]);
                lpn_drop(pair);
            }
        } else if (!strcmp(k, "$dict") && is_arr(val, -1)) {
            lpn_arr *a = (lpn_arr *)lpn_ptr(val);
            int ok = 1;
            for (uint64_t i = 0; i < a->len && ok; i++) ok = is_arr(a->item[i], 2);
            if (ok) {
                r = lpn_dict_new();
                for (uint64_t i = 0; i < a->len; i++) {
                    lpn_arr *kv2 = (lpn_arr *)lpn_ptr(a->item[i]);
                    lpn_dup(kv2->item[0]); lpn_dup(kv2->item[1]);
                    lpn_value k2 = untag(kv2->item[0], exact);
                    lpn_value v2 = k2.cls == LPN_UNWIND ? k2 : untag(kv2->item[1], exact);
                    if (v2.cls == LPN_UNWIND) {
                        if (k2.cls != LPN_UNWIND) lpn_drop(k2);
                        else lpn_drop(kv2->item[1]);
                        lpn_drop(r);
                        r = LPN_UNWIND_VALUE;
                        break;
                    }
                    r = lpn_dict_at_put(r, k2, v2);
                }
            }
        }
    }
    if (r.cls == 0 && r.bits == 1 && e->len == 1 && strcmp(text_of(((lpn_assoc *)lpn_ptr(e->item[0]))->key), "$class"))
        r = malformed(text_of(((lpn_assoc *)lpn_ptr(e->item[0]))->key));
    if (r.cls == 0 && r.bits == 1) {
        lpn_value name = LPN_NIL_VALUE;
        int named = 0;
        for (uint64_t i = 0; i < e->len; i++) {
            lpn_assoc *kv = (lpn_assoc *)lpn_ptr(e->item[i]);
            if (!strcmp(text_of(kv->key), "$class")) name = kv->value, named = 1;
        }
        if (name.cls == LPN_STRING) r = instance_of(d, e, text_of(name), exact);
        else if (named) r = malformed("$class");
    }
    if (r.cls == 0 && r.bits == 1) {
        r = lpn_dict_new();
        for (uint64_t i = 0; i < e->len; i++) {
            lpn_assoc *kv = (lpn_assoc *)lpn_ptr(e->item[i]);
            lpn_dup(kv->value);
            lpn_value x = untag(kv->value, exact);
            if (x.cls == LPN_UNWIND) { lpn_drop(r); r = x; break; }
            lpn_dup(kv->key);
            r = lpn_dict_at_put(r, kv->key, x);
        }
    }
    lpn_drop(assocs);
    lpn_drop(d);
    return r;
}

static lpn_value untag(lpn_value v, int exact) {
    if (v.cls == LPN_ARRAY) return untag_array(v, exact);
    if (v.cls == LPN_DICT) return untag_dict(v, exact);
    return v;
}

lpn_value lpn_json_untag(lpn_value v, int exact) { return untag(v, exact); }

lpn_value lpn_json_untag_or(lpn_value v, lpn_value (*bad)(const char *text)) {
    lpn_value (*outer)(const char *) = bad_tag;
    bad_tag = bad;
    lpn_value r = untag(v, 0);
    bad_tag = outer;
    return r;
}
