/* net_httpio.c — the HTTP/1.1 framing primitives of sockets in native binaries:
 * readHttpRequest:..., writeHttpResponse:..., readHttpChunked:timeout:, readHttpStatus:maxHead:, readToEnd:timeout:,
 * over runtime/net_http.c (lp/interp/prims_http.py is the interpreter's side; the answers,
 * errors and messages are the same). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"


#define wire_error(status, ...) lpnet_fail_with("HttpWireError", "status", status, __VA_ARGS__)

/* The header fields as a Dictionary (repeated names joined with ", "). */
static lpn_value headers(const lprt_http_field *f, long n) {
    lpn_value d = lpn_dict_new();
    for (long i = 0; i < n; i++) {
        lpn_value name = lpnet_text(f[3 + 2 * i].p, f[3 + 2 * i].n);
        lpn_value value = lpnet_text(f[4 + 2 * i].p, f[4 + 2 * i].n);
        lpn_dup(d);
        lpn_dup(name);
        lpn_value old = lpn_dict_lookup(d, name);
        if (old.cls != LPN_UNWIND) value = lpn_str_concat(lpn_str_concat(old, lpn_str_new(", ", 2)), value);
        d = lpn_dict_at_put(d, name, value);
    }
    return d;
}

static lpn_value instance(const char *cname, lpn_value *vals, int n) {
    uint64_t cls = lpnet_class(cname);
    lpn_inst *o = lpn_inst_new(cls, (uint64_t)n);
    for (int i = 0; i < n; i++) o->field[i] = vals[i];
    return lpn_ref(o);
}

/* The field values of a parsed HttpRequest, the body (v[6]) still nil: made before the body is
   read, as the head's fields point into the connection's buffer, which reading may move. */
static void request_values(const lprt_http_field *f, long n, int keep, lpn_value v[8]) {
    lpn_value target = lpnet_text(f[1].p, f[1].n);
    lpn_str *t = (lpn_str *)lpn_ptr(target);
    const char *q = memchr(t->data, '?', t->len);
    uint64_t k = q ? (uint64_t)(q - t->data) : t->len;
    v[0] = lpnet_text(f[0].p, f[0].n);
    v[1] = target;
    v[2] = lpnet_text(f[2].p, f[2].n);
    v[3] = headers(f, n);
    v[4] = lpn_str_new(t->data, k);
    v[5] = q ? lpn_str_new(q + 1, t->len - k - 1) : lpn_str_new("", 0);
    v[6] = LPN_NIL_VALUE;
    v[7] = lpn_bool(keep);
}


enum { PHASE_IDLE, PHASE_HEAD };
enum { BODY_NONE, BODY_LENGTH, BODY_CHUNKED };

/* readHttpRequest: idleMs timeout: headMs bodyTimeout: bodyMs maxLine: maxHeaders: maxHead: maxBody:
   (prims_http._read_request): Maybe some: an HttpRequest, none at the end of the stream. */
lpn_value lpn_sock_read_http_request(lpn_value *a) {
    const char *what = "readHttpRequest:";
    const char *waiting = "readHttpRequest: (waiting for a request)";
    int64_t arg[6], deadline;
    lpn_value out = LPN_UNWIND_VALUE, v[8];
    lprt_http_field *f = NULL;
    for (int i = 0; i < 6; i++)
        if (lpnet_int(a[2 + i], what, &arg[i])) goto done;
    int64_t max_line = arg[2], max_headers = arg[3], max_head = arg[4], max_body = arg[5];
    if (max_line < 1 || max_headers < 1 || max_head < 1 || max_line > (1 << 24) || max_head > (1 << 24) ||
        max_headers > 1024 || max_body < 0 || max_body > (1 << 30)) {
        lpnet_fail("Error", "%s the limits must be positive (lines and head at most 2^24, headers 1024, the body 2^30)",
                   what);
        goto done;
    }
    if (lpnet_deadline(a[1], what, &deadline)) goto done;
    lprt_http_limits limits = {(size_t)max_line, (size_t)max_headers, (size_t)max_head};
    size_t cap = 3 + 2 * (size_t)max_headers + 2;
    f = malloc(cap * sizeof *f);
    int phase = PHASE_IDLE, keep, buffered;
    long n, framing;
    long long length;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto done;
        /* the head, its framing and, when asked, the interim 100 Continue: as under lp run */
        n = lprt_http_read_request(s->conn, &limits, f, cap, (size_t)max_body, &length, &keep, &framing, &buffered);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (n >= 0) break;
        if (lpnet_would_block(n)) {
            if (phase == PHASE_IDLE && buffered) {
                phase = PHASE_HEAD;
                if (lpnet_deadline(a[2], what, &deadline)) goto done;
            }
            if (phase == PHASE_HEAD && lprt_now() >= deadline) {
                char t[64];
                lpnet_ms_text(a[2], t, sizeof t);
                wire_error(408, "the request head did not arrive within %s ms", t);
                goto done;
            }
            if (lpnet_wait(fd, n, deadline, waiting, a[1])) goto done;
            continue;
        }
        if (n == LPRT_NET_EOF) out = lpn_maybe_new(0, LPN_NIL_VALUE);
        else if (lprt_http_error_text(-n)) wire_error(-n, "%s", lprt_http_error_text(-n));
        else lpnet_os_error_at(n, what, " from ", s->peer);
        goto done;
    }
    if (framing < 0) {
        wire_error(-framing, "%s", lprt_http_framing_text(framing));
        goto done;
    }
    int body_kind = framing == 1 ? BODY_CHUNKED : length ? BODY_LENGTH : BODY_NONE;
    request_values(f, n, keep, v);
    if (body_kind == BODY_NONE) {
        v[6] = lpn_bytes_new("", 0);
        out = lpn_maybe_new(1, instance("HttpRequest", v, 8));
        goto done;
    }
    if (lpnet_deadline(a[3], what, &deadline)) goto body_failed;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto body_failed;
        const char *p;
        long r = body_kind == BODY_LENGTH ? lprt_conn_read_exact(s->conn, (size_t)length, &p)
                                          : lprt_http_read_chunked(s->conn, (size_t)max_body, &p);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (r >= 0) {
            v[6] = lpn_bytes_new(p, (uint64_t)r);
            out = lpn_maybe_new(1, instance("HttpRequest", v, 8));
            goto done;
        }
        if (lpnet_would_block(r)) {
            if (lprt_now() >= deadline) {
                wire_error(408, "the request body did not arrive in time");
                goto body_failed;
            }
            if (lpnet_wait(fd, r, deadline, what, a[3])) goto body_failed;
            continue;
        }
        if (r == LPRT_NET_EOF || r == LPRT_NET_TRUNCATED)
            wire_error(400, "the connection ended inside the request body");
        else if (lprt_http_error_text(-r))
            wire_error(-r, "%s", r == LPRT_HTTP_BAD_REQUEST ? "malformed chunked body" : lprt_http_error_text(-r));
        else lpnet_os_error_at(r, what, " from ", s->peer);
        goto body_failed;
    }
body_failed:
    lpnet_drop_all(v, 6);
done:
    free(f);
    lpnet_drop_all(a, 8);
    return out;
}

lpn_value lpn_sock_read_http_chunked(lpn_value *a) {
    const char *what = "readHttpChunked:timeout:";
    int64_t max_body, deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    if (lpnet_int(a[1], what, &max_body)) goto done;
    if (max_body < 0 || max_body > (1 << 30)) {
        lpnet_fail("Error", "%s the body limit must be between 0 and 2^30, not %lld", what, (long long)max_body);
        goto done;
    }
    if (lpnet_deadline(a[2], what, &deadline)) goto done;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto done;
        const char *p;
        long r = lprt_http_read_chunked(s->conn, (size_t)max_body, &p);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (r >= 0) {
            out = lpn_bytes_new(p, (uint64_t)r);
            goto done;
        }
        if (lpnet_would_block(r)) {
            if (lpnet_wait(fd, r, deadline, what, a[2])) goto done;
            continue;
        }
        if (lprt_http_error_text(-r)) wire_error(-r, "%s", r == LPRT_HTTP_BAD_REQUEST ? "malformed chunked body" : lprt_http_error_text(-r));
        else {
            lpnet_os_error_at(r, what, " from ", s->peer);
        }
        goto done;
    }
done:
    lpnet_drop_all(a, 3);
    return out;
}

lpn_value lpn_sock_read_http_status(lpn_value *a) {
    const char *what = "readHttpStatus:maxHead:";
    int64_t max_head, deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    lprt_http_field *f = NULL;
    if (lpnet_int(a[2], what, &max_head)) goto done;
    if (max_head < 1 || max_head > (1 << 24)) {
        lpnet_fail("Error", "%s the head limit must be between 1 and 2^24, not %lld", what, (long long)max_head);
        goto done;
    }
    if (lpnet_deadline(a[1], what, &deadline)) goto done;
    lprt_http_limits limits = {(size_t)max_head, 1024, (size_t)max_head};
    size_t cap = 3 + 2 * 1024 + 2;
    f = malloc(cap * sizeof *f);
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto done;
        long r = lprt_http_read_status(s->conn, &limits, f, cap);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (r >= 0) {
            char code[8] = {0};
            memcpy(code, f[1].p, f[1].n < 7 ? f[1].n : 7);
            lpn_value v[4] = {lpnet_text(f[0].p, f[0].n), lpn_int(atoi(code)), lpnet_text(f[2].p, f[2].n),
                              headers(f, r)};
            out = lpn_maybe_new(1, instance("HttpStatusHead", v, 4));
            goto done;
        }
        if (lpnet_would_block(r)) {
            if (lpnet_wait(fd, r, deadline, what, a[1])) goto done;
            continue;
        }
        if (r == LPRT_NET_EOF) out = lpn_maybe_new(0, LPN_NIL_VALUE);
        else if (lprt_http_error_text(-r)) {
            if (r != LPRT_HTTP_HEADERS_TOO_LARGE) wire_error(502, "malformed HTTP response from %s", s->peer);
            else wire_error(502, "the response head from %s is longer than %lld bytes", s->peer, (long long)max_head);
        } else {
            lpnet_os_error_at(r, what, " from ", s->peer);
        }
        goto done;
    }
done:
    free(f);
    lpnet_drop_all(a, 3);
    return out;
}

lpn_value lpn_sock_read_to_end(lpn_value *a) {
    const char *what = "readToEnd:timeout:";
    int64_t max_bytes, deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    char *acc = NULL;
    size_t n = 0;
    if (lpnet_int(a[1], what, &max_bytes)) goto done;
    if (lpnet_deadline(a[2], what, &deadline)) goto done;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto done;
        const char *p;
        long r = lprt_conn_read_some(s->conn, 65536, &p);
        int fd = lprt_conn_fd(s->conn);
        if (r > 0) {
            acc = realloc(acc, n + (size_t)r);
            memcpy(acc + n, p, (size_t)r);
            n += (size_t)r;
        }
        lpnet_done(s);
        if (r > 0) {
            if ((int64_t)n > max_bytes) {
                lpnet_fail("LimitExceeded", "%s more than %lld bytes", what, (long long)max_bytes);
                goto done;
            }
            continue;
        }
        if (r == LPRT_NET_EOF) {
            out = lpn_bytes_new(acc, n);
            goto done;
        }
        if (lpnet_would_block(r)) {
            if (lpnet_wait(fd, r, deadline, what, a[2])) goto done;
            continue;
        }
        lpnet_os_error_at(r, what, " from ", s->peer);
        goto done;
    }
done:
    free(acc);
    lpnet_drop_all(a, 3);
    return out;
}

/* t as Python's repr() shows a str (the interpreter's message quotes a header so). */
static void py_repr(const char *t, size_t n, char *out, size_t cap) {
    int dq = memchr(t, '\'', n) && !memchr(t, '"', n);
    char quote = dq ? '"' : '\'';
    size_t at = 0;
    out[at++] = quote;
    for (size_t i = 0; i < n && at + 6 < cap; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\\' || c == (unsigned char)quote) at += (size_t)snprintf(out + at, cap - at, "\\%c", c);
        else if (c == '\n') at += (size_t)snprintf(out + at, cap - at, "\\n");
        else if (c == '\r') at += (size_t)snprintf(out + at, cap - at, "\\r");
        else if (c == '\t') at += (size_t)snprintf(out + at, cap - at, "\\t");
        else if (c < 0x20 || c == 0x7f) at += (size_t)snprintf(out + at, cap - at, "\\x%02x", c);
        else out[at++] = (char)c;
    }
    out[at++] = quote;
    out[at] = 0;
}

/* What lprt_http_check_header found wrong with the header k: v (prims_http.header_problem's words). */
static void header_problem(int bad, const lpn_str *k, const lpn_str *v, char *out, size_t cap) {
    char r[400];
    int broken_name = memchr(k->data, '\r', k->len) || memchr(k->data, '\n', k->len);
    const lpn_str *t = bad == LPRT_HTTP_HEADER_VALUE || (bad == LPRT_HTTP_HEADER_BREAK && !broken_name) ? v : k;
    py_repr(t->data, t->len, r, sizeof r);
    if (bad == LPRT_HTTP_HEADER_BREAK) snprintf(out, cap, "a header may not contain a line break: %s", r);
    else if (bad == LPRT_HTTP_HEADER_NAME)
        snprintf(out, cap, "a header name must be a token (letters, digits and !#$%%&'*+-.^_`|~), not %s", r);
    else if (bad == LPRT_HTTP_HEADER_VALUE) snprintf(out, cap, "a header value may not contain control characters: %s", r);
    else snprintf(out, cap, "the server writes Content-Length and Transfer-Encoding itself, not %s", r);
}

static void described(lpn_value v, char *out, size_t cap) {   /* borrows v */
    lpn_dup(v);
    lpn_value d = lpn_describe(v);
    snprintf(out, cap, "%s", ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
}

/* writeHttpResponse: status headers: d body: text keepAlive: k head: h [timeout: ms]
   (prims_http._write_response): the whole response rendered by lprt_http_render_response, written
   in one write; HttpWireError 500 for one that cannot be sent. */
static lpn_value write_response(lpn_value *a, int has_ms) {
    const char *what = "writeHttpResponse:";
    lpn_value out = LPN_UNWIND_VALUE, list = LPN_NIL_VALUE;
    lprt_http_field *fields = NULL;
    char *buf = NULL, d1[256], d2[256];
    lpn_value status = a[1], hd = a[2], body = a[3];
    if (status.cls != LPN_INT || (int64_t)status.bits < 200 || (int64_t)status.bits > 999) {
        described(status, d1, sizeof d1);
        wire_error(500, "%s the status must be an Integer between 200 and 999 (a 1xx is interim: no final answer "
                        "would follow), not %s", what, d1);
        goto done;
    }
    if (hd.cls != LPN_DICT) {
        described(hd, d1, sizeof d1);
        wire_error(500, "%s expects a Dictionary of headers, not %s", what, d1);
        goto done;
    }
    const void *data;
    size_t data_n;
    if (body.cls == LPN_STRING) {
        lpn_str *t = (lpn_str *)lpn_ptr(body);
        data = t->data, data_n = t->len;
    } else if (body.cls == LPN_BYTES) {
        lpn_bytes *b = (lpn_bytes *)lpn_ptr(body);
        data = b->data, data_n = b->len;
    } else {
        described(body, d1, sizeof d1);
        wire_error(500, "%s expects a String body, not %s", what, d1);
        goto done;
    }
    lpn_dup(hd);
    list = lpn_dict_list('a', hd);
    lpn_arr *pairs = (lpn_arr *)lpn_ptr(list);
    size_t nh = pairs->len, cap = 256 + data_n;
    fields = malloc((2 * nh + 1) * sizeof *fields);
    for (size_t i = 0; i < nh; i++) {
        lpn_assoc *kv = (lpn_assoc *)lpn_ptr(pairs->item[i]);
        if (kv->key.cls != LPN_STRING || kv->value.cls != LPN_STRING) {
            described(kv->key, d1, sizeof d1);
            described(kv->value, d2, sizeof d2);
            wire_error(500, "%s header names and values must be Strings, not %s -> %s", what, d1, d2);
            goto done;
        }
        lpn_str *t[2] = {(lpn_str *)lpn_ptr(kv->key), (lpn_str *)lpn_ptr(kv->value)};
        for (int j = 0; j < 2; j++) {
            fields[2 * i + j] = (lprt_http_field){t[j]->data, t[j]->len};
            cap += t[j]->len + 4;
        }
        int bad = lprt_http_check_header(&fields[2 * i], &fields[2 * i + 1]);
        if (bad) {
            char problem[600];
            header_problem(bad, t[0], t[1], problem, sizeof problem);
            wire_error(500, "%s %s", what, problem);
            goto done;
        }
    }
    buf = malloc(cap);
    size_t size = lprt_http_render_response(buf, cap, (int)status.bits, fields, nh, data, data_n,
                                            a[4].cls == LPN_BOOL && a[4].bits, a[5].cls == LPN_BOOL && a[5].bits);
    out = lpnet_write_all(a[0], buf, size, has_ms ? a[6] : LPN_NIL_VALUE, what);
done:
    free(buf);
    free(fields);
    lpn_drop(list);
    lpnet_drop_all(a, has_ms ? 7 : 6);
    return out;
}

lpn_value lpn_sock_write_http_response(lpn_value *a) { return write_response(a, 0); }
lpn_value lpn_sock_write_http_response_timeout(lpn_value *a) { return write_response(a, 1); }
