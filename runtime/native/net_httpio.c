/* net_httpio.c — the HTTP/1.1 framing primitives of sockets in native binaries:
 * readHttpHead:..., readHttpChunked:timeout:, readHttpStatus:maxHead:, readToEnd:timeout:,
 * over runtime/net_http.c (lp/interp/prims_http.py is the interpreter's side; the answers,
 * errors and messages are the same). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

static const char *status_text(long status) {
    switch (status) {
    case 400: return "malformed request";
    case 413: return "the request body is too large";
    case 414: return "the request line is too long";
    case 431: return "the request head is too large";
    case 501: return "not implemented";
    case 505: return "only HTTP/1.0 and HTTP/1.1 are supported";
    default: return NULL;
    }
}

static lpn_value wire_error(long status, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t cls = lpnet_class("HttpWireError");
    lpn_value e = lpn_error_new(cls, lpn_str_new(buf, strlen(buf)));
    lpn_inst *in = (lpn_inst *)lpn_ptr(e);
    for (uint64_t i = 0; i < in->nfields; i++)
        if (!strcmp(lpn_prog.field_names[cls][i], "status")) in->field[i] = lpn_int(status);
    return lpn_raise_value(e);
}

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

lpn_value lpn_sock_read_http_head(lpn_value *a) {
    const char *what = "readHttpHead:";
    const char *waiting = "readHttpHead: (waiting for a request)";
    int64_t lim[3], deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    lprt_http_field *f = NULL;
    for (int i = 0; i < 3; i++)
        if (lpnet_int(a[3 + i], what, &lim[i])) goto done;
    if (lim[0] < 1 || lim[1] < 1 || lim[2] < 1 || lim[0] > (1 << 24) || lim[2] > (1 << 24) || lim[1] > 1024) {
        lpnet_fail("Error", "%s the limits must be positive (lines and head at most 2^24, headers 1024)", what);
        goto done;
    }
    if (lpnet_deadline(a[1], what, &deadline)) goto done;
    lprt_http_limits limits = {(size_t)lim[0], (size_t)lim[1], (size_t)lim[2]};
    size_t cap = 3 + 2 * (size_t)lim[1] + 2;
    f = malloc(cap * sizeof *f);
    int in_head = 0;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_TCP, what);
        if (!s) goto done;
        long r = lprt_http_read_head(s->conn, &limits, f, cap);
        size_t buffered = r < 0 ? lprt_conn_buffered(s->conn) : 0;
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (r >= 0) {
            lpn_value v[4] = {lpnet_text(f[0].p, f[0].n), lpnet_text(f[1].p, f[1].n), lpnet_text(f[2].p, f[2].n),
                              headers(f, r)};
            out = lpn_maybe_new(1, instance("HttpHead", v, 4));
            goto done;
        }
        if (lpnet_would_block(r)) {
            if (!in_head && buffered) {
                in_head = 1;
                if (lpnet_deadline(a[2], what, &deadline)) goto done;
            }
            if (in_head && deadline != -1 && lprt_now() >= deadline) {
                char t[64];
                lpnet_ms_text(a[2], t, sizeof t);
                wire_error(408, "the request head did not arrive within %s ms", t);
                goto done;
            }
            if (lpnet_wait(fd, r, deadline, waiting, a[1])) goto done;
            continue;
        }
        if (r == LPRT_NET_EOF) out = lpn_maybe_new(0, LPN_NIL_VALUE);
        else if (status_text(-r)) wire_error(-r, "%s", status_text(-r));
        else {
            lpnet_os_error_at(r, what, " from ", s->peer);
        }
        goto done;
    }
done:
    free(f);
    lpnet_drop_all(a, 6);
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
        if (status_text(-r)) wire_error(-r, "%s", r == LPRT_HTTP_BAD_REQUEST ? "malformed chunked body" : status_text(-r));
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
        else if (status_text(-r)) {
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
