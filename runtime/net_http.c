/* net_http.c — HTTP/1.1 request framing over a buffered connection: the
 * request head (request line, header fields, blank line) and chunked bodies,
 * parsed in the connection's buffer with the limits the caller gives.
 *
 * Nothing waits: an incomplete head or body receives more (at most up to its
 * limit) and answers LPRT_NET_WANT_READ, to be called again when the socket
 * is readable. A head is parsed only once complete, so the parse needs no
 * state between calls; a partial chunked body is rescanned from its start,
 * which costs at most a few passes over a body bounded by max_body.
 * Responses' heads (for the HTTP client) share the header parsing.
 * Measured reason for living here rather than in LP: docs/network.md.      */
#include "net_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NEED_MORE 1

static int tchar(unsigned char ch) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) return 1;
    return ch && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* The next line in [*p, end): its start and length without "\n" / "\r\n";
   *p moves past it. Only called where a '\n' is known to follow. */
static char *next_line(char **p, char *end, size_t *n) {
    char *s = *p;
    char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t len = (size_t)(nl - s);
    if (len > 0 && s[len - 1] == '\r') len--;
    *p = nl + 1;
    *n = len;
    return s;
}

/* Index just past the blank line ending the head in b[0, n), or 0. */
static size_t head_end(const char *b, size_t n) {
    for (const char *p = b; (p = memchr(p, '\n', (size_t)(b + n - p))) != NULL; p++) {
        size_t rest = (size_t)(b + n - p) - 1;
        if (rest >= 1 && p[1] == '\n') return (size_t)(p - b) + 2;
        if (rest >= 2 && p[1] == '\r' && p[2] == '\n') return (size_t)(p - b) + 3;
    }
    return 0;
}

static long parse_fields(char *p, char *end, const lprt_http_limits *lim, lprt_http_field *f, size_t cap);

static int version_ok(const char *v, size_t vlen) {
    if (vlen != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' || v[6] != '.' || v[7] < '0' ||
        v[7] > '9')
        return LPRT_HTTP_BAD_REQUEST;
    if (v[5] != '1' || (v[7] != '0' && v[7] != '1')) return LPRT_HTTP_BAD_VERSION;
    return 0;
}

/* A response's status line: version SP 3-digit status [SP reason]. */
static long parse_status(char *b, size_t len, const lprt_http_limits *lim, lprt_http_field *f, size_t cap) {
    char *p = b, *end = b + len;
    size_t n;
    char *line = next_line(&p, end, &n);
    if (n > lim->max_line) return LPRT_HTTP_HEADERS_TOO_LARGE;
    if (n < 12 || line[8] != ' ' || (n > 12 && line[12] != ' ')) return LPRT_HTTP_BAD_REQUEST;
    int r = version_ok(line, 8);
    if (r) return r;
    for (int i = 9; i < 12; i++)
        if (line[i] < '0' || line[i] > '9') return LPRT_HTTP_BAD_REQUEST;
    if (cap < 3) return -22; /* EINVAL */
    f[0] = (lprt_http_field){line, 8};
    f[1] = (lprt_http_field){line + 9, 3};
    f[2] = (lprt_http_field){line + (n > 12 ? 13 : 12), n > 12 ? n - 13 : 0};
    return parse_fields(p, end, lim, f, cap);
}

static long parse_head(char *b, size_t len, const lprt_http_limits *lim, lprt_http_field *f, size_t cap) {
    char *p = b, *end = b + len;
    size_t n;
    char *line = next_line(&p, end, &n);
    if (n > lim->max_line) return LPRT_HTTP_URI_TOO_LONG;
    char *sp1 = memchr(line, ' ', n);
    if (!sp1) return LPRT_HTTP_BAD_REQUEST;
    char *sp2 = memchr(sp1 + 1, ' ', (size_t)(line + n - sp1 - 1));
    if (!sp2 || memchr(sp2 + 1, ' ', (size_t)(line + n - sp2 - 1))) return LPRT_HTTP_BAD_REQUEST;
    size_t mlen = (size_t)(sp1 - line), tlen = (size_t)(sp2 - sp1 - 1), vlen = (size_t)(line + n - sp2 - 1);
    if (mlen == 0 || tlen == 0) return LPRT_HTTP_BAD_REQUEST;
    for (size_t i = 0; i < mlen; i++)
        if (!tchar((unsigned char)line[i])) return LPRT_HTTP_BAD_REQUEST;
    for (size_t i = 0; i < tlen; i++) {
        unsigned char ch = (unsigned char)sp1[1 + i];
        if (ch <= 0x20 || ch == 0x7f) return LPRT_HTTP_BAD_REQUEST;
    }
    const char *v = sp2 + 1;
    int vr = version_ok(v, vlen);
    if (vr) return vr;
    if (cap < 3) return -22; /* EINVAL */
    f[0] = (lprt_http_field){line, mlen};
    f[1] = (lprt_http_field){sp1 + 1, tlen};
    f[2] = (lprt_http_field){v, vlen};
    return parse_fields(p, end, lim, f, cap);
}

/* Header fields from p to the blank line into f[3...]: their count, or an error. */
static long parse_fields(char *p, char *end, const lprt_http_limits *lim, lprt_http_field *f, size_t cap) {
    char *line;
    size_t n;
    long count = 0;
    for (;;) {
        line = next_line(&p, end, &n);
        if (n == 0) break;
        if (n > lim->max_line) return LPRT_HTTP_HEADERS_TOO_LARGE;
        if ((size_t)count >= lim->max_headers || 3 + 2 * (size_t)count + 2 > cap) return LPRT_HTTP_HEADERS_TOO_LARGE;
        if (line[0] == ' ' || line[0] == '\t') return LPRT_HTTP_BAD_REQUEST; /* obsolete line folding */
        char *colon = memchr(line, ':', n);
        if (!colon || colon == line) return LPRT_HTTP_BAD_REQUEST;
        for (char *q = line; q < colon; q++) {
            if (!tchar((unsigned char)*q)) return LPRT_HTTP_BAD_REQUEST;
            if (*q >= 'A' && *q <= 'Z') *q = (char)(*q - 'A' + 'a');
        }
        char *vs = colon + 1, *ve = line + n;
        while (vs < ve && (*vs == ' ' || *vs == '\t')) vs++;
        while (ve > vs && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
        for (char *q = vs; q < ve; q++) {
            unsigned char ch = (unsigned char)*q;
            if ((ch < 0x20 && ch != '\t') || ch == 0x7f) return LPRT_HTTP_BAD_REQUEST;
        }
        f[3 + 2 * count] = (lprt_http_field){line, (size_t)(colon - line)};
        f[4 + 2 * count] = (lprt_http_field){vs, (size_t)(ve - vs)};
        count++;
    }
    return count;
}

static long read_head(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap, int response) {
    for (;;) {
        /* empty lines before a request line are ignored (RFC 9112 2.2) */
        while (c->end > c->start) {
            char ch = c->buf[c->start];
            if (ch == '\n') c->start++;
            else if (ch == '\r' && c->end - c->start >= 2 && c->buf[c->start + 1] == '\n') c->start += 2;
            else break;
        }
        size_t have = c->end - c->start;
        char *b = c->buf + c->start;
        size_t len = have ? head_end(b, have) : 0;
        if (len > lim->max_head) return LPRT_HTTP_HEADERS_TOO_LARGE; /* arrived in one piece */
        if (len) {
            long r = response ? parse_status(b, len, lim, fields, cap) : parse_head(b, len, lim, fields, cap);
            const char *unused;
            if (r >= 0) lprt__conn_hand_out(c, 0, len, &unused);
            return r;
        }
        char *nl = have ? memchr(b, '\n', have) : NULL;
        if ((nl ? (size_t)(nl - b) : have) > lim->max_line + 1) return LPRT_HTTP_URI_TOO_LONG;
        if (have >= lim->max_head) return LPRT_HTTP_HEADERS_TOO_LARGE; /* no end within the limit */
        long r = lprt__conn_recv(c, lim->max_head - have);
        if (r == 0) return have == 0 ? LPRT_NET_EOF : LPRT_HTTP_BAD_REQUEST;
        /* A server that drops a connection unanswered ends it (FIN) when it had read the
           request and resets it when the request was still unread in its kernel: a race
           between its close and the request's arrival. Before a byte of the response
           both are the same event, the end of the stream. */
        if (r == -ECONNRESET && response && have == 0) return LPRT_NET_EOF;
        if (r < 0) return r;
    }
}

long lprt_http_read_head(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap) {
    return read_head(c, lim, fields, cap, 0);
}

long lprt_http_read_status(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap) {
    return read_head(c, lim, fields, cap, 1);
}

long lprt_http_read_request(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap,
                            size_t max_body, long long *length, int *keep_alive, long *framing, int *buffered) {
    long n = read_head(c, lim, fields, cap, 0);
    *framing = n >= 0 ? lprt_http_request_framing(fields, n, max_body, length, keep_alive) : 0;
    if (n >= 0 && *framing >= 0) lprt_http_continue(c, fields, n, *framing, *length);
    *buffered = n < 0 && c->end > c->start;
    return n;
}

/* One pass over a chunked body at the buffer's start: NEED_MORE, an error,
   or 0 with *total data bytes and *used encoded bytes. With `copy` (only after
   a pass without it succeeded) the data is moved to the buffer's start. */
static long chunks(lprt_conn *c, size_t max_body, int copy, size_t *total, size_t *used) {
    char *b = c->buf + c->start, *p = b, *end = c->buf + c->end, *dst = b;
    size_t sum = 0;
    for (;;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return (size_t)(end - p) > 1024 ? LPRT_HTTP_BAD_REQUEST : NEED_MORE;
        size_t size = 0, digits = 0;
        char *q = p;
        for (; q < nl; q++, digits++) {
            int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
                  : *q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;
            if (d < 0) break;
            if (digits >= 15) return LPRT_HTTP_BAD_REQUEST;
            size = size * 16 + (size_t)d;
        }
        if (digits == 0 || (q < nl && *q != ';' && *q != ' ' && *q != '\t' && *q != '\r'))
            return LPRT_HTTP_BAD_REQUEST;
        p = nl + 1;
        if (size > max_body || sum + size > max_body) return LPRT_HTTP_TOO_LARGE;
        if (size == 0) break;
        if ((size_t)(end - p) < size + 1) return NEED_MORE;
        char *after = p + size;
        size_t crlf = after[0] == '\n' ? 1 : after[0] == '\r' ? 2 : 0;
        if (crlf == 0) return LPRT_HTTP_BAD_REQUEST;
        if (crlf == 2) {
            if (after + 1 >= end) return NEED_MORE;
            if (after[1] != '\n') return LPRT_HTTP_BAD_REQUEST;
        }
        if (copy) memmove(dst, p, size);
        dst += size;
        sum += size;
        p = after + crlf;
    }
    for (;;) { /* trailer fields until the blank line */
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return (size_t)(end - p) > 8192 ? LPRT_HTTP_HEADERS_TOO_LARGE : NEED_MORE;
        size_t n = (size_t)(nl - p);
        p = nl + 1;
        if (n == 0 || (n == 1 && nl[-1] == '\r')) break;
    }
    *total = sum;
    *used = (size_t)(p - b);
    return 0;
}

long lprt_http_read_chunked(lprt_conn *c, size_t max_body, const char **out) {
    for (;;) {
        size_t total = 0, used = 0;
        long r = c->end > c->start ? chunks(c, max_body, 0, &total, &used) : NEED_MORE;
        if (r == 0) {
            chunks(c, max_body, 1, &total, &used);
            return lprt__conn_hand_out(c, total, used, out);
        }
        if (r != NEED_MORE) return r;
        if (c->end - c->start > 2 * max_body + 65536) return LPRT_HTTP_TOO_LARGE;
        r = lprt__conn_recv(c, 65536);
        if (r == 0) return LPRT_HTTP_BAD_REQUEST;
        if (r < 0) return r;
    }
}

/* ---- a request's framing, and responses (for HttpServer) ---- */

static int field_is(const lprt_http_field *f, const char *name) {
    size_t n = strlen(name);
    return f->n == n && memcmp(f->p, name, n) == 0;
}

static int has_token(const lprt_http_field *v, const char *token) { /* case-insensitive substring */
    size_t n = strlen(token);
    for (size_t i = 0; i + n <= v->n; i++) {
        size_t k = 0;
        while (k < n && (v->p[i + k] | 0x20) == token[k]) k++;
        if (k == n) return 1;
    }
    return 0;
}

long lprt_http_request_framing(const lprt_http_field *fields, long nheaders, size_t max_body, long long *length,
                               int *keep_alive) {
    const lprt_http_field *cl = NULL, *te = NULL;
    int close = 0, keep = 0, n_cl = 0, n_host = 0, n_te = 0;
    for (long i = 0; i < nheaders; i++) {
        const lprt_http_field *name = &fields[3 + 2 * i], *value = &fields[4 + 2 * i];
        if (field_is(name, "content-length")) cl = value, n_cl++;
        else if (field_is(name, "host")) n_host++;
        else if (field_is(name, "transfer-encoding")) te = value, n_te++;
        else if (field_is(name, "connection")) close |= has_token(value, "close"), keep |= has_token(value, "keep-alive");
    }
    *keep_alive = fields[2].p[7] == '1' ? !close : keep;
    *length = 0;
    if (n_host > 1) return LPRT_HTTP_BAD_REQUEST; /* RFC 9112 3.2 */
    if (te && te->n) {
        if (cl) return LPRT_HTTP_BAD_REQUEST;
        /* two fields are one list of two codings (RFC 9112 6.1): chunked twice is no framing either */
        if (n_te > 1 || te->n != 7 || !has_token(te, "chunked")) return LPRT_HTTP_NOT_IMPLEMENTED;
        return 1;
    }
    if (!cl) return 0;
    if (n_cl > 1 || cl->n == 0 || cl->n > 15) return LPRT_HTTP_BAD_REQUEST;
    long long n = 0;
    for (size_t i = 0; i < cl->n; i++) {
        if (cl->p[i] < '0' || cl->p[i] > '9') return LPRT_HTTP_BAD_REQUEST;
        n = n * 10 + (cl->p[i] - '0');
    }
    if ((unsigned long long)n > max_body) return LPRT_HTTP_TOO_LARGE;
    *length = n;
    return 0;
}

void lprt_http_continue(lprt_conn *c, const lprt_http_field *fields, long nheaders, long framing, long long length) {
    if ((framing != 1 && length == 0) || c->end > c->start) return;
    for (long i = 0; i < nheaders; i++) {
        const lprt_http_field *name = &fields[3 + 2 * i], *value = &fields[4 + 2 * i];
        if (field_is(name, "expect") && value->n == 12 && has_token(value, "100-continue")) {
            static const char interim[] = "HTTP/1.1 100 Continue\r\n\r\n";
            (void)lprt_conn_write(c, interim, sizeof interim - 1);
            return;
        }
    }
}

const char *lprt_http_reason(int status) {
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

int lprt_http_check_header(const lprt_http_field *name, const lprt_http_field *value) {
    for (size_t i = 0; i < name->n; i++)
        if (name->p[i] == '\r' || name->p[i] == '\n') return LPRT_HTTP_HEADER_BREAK;
    for (size_t i = 0; i < value->n; i++)
        if (value->p[i] == '\r' || value->p[i] == '\n') return LPRT_HTTP_HEADER_BREAK;
    if (name->n == 0) return LPRT_HTTP_HEADER_NAME;
    for (size_t i = 0; i < name->n; i++)
        if (!tchar((unsigned char)name->p[i])) return LPRT_HTTP_HEADER_NAME;
    for (size_t i = 0; i < value->n; i++) {
        unsigned char ch = (unsigned char)value->p[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) return LPRT_HTTP_HEADER_VALUE;
    }
    if ((name->n == 14 && has_token(name, "content-length")) || (name->n == 17 && has_token(name, "transfer-encoding")))
        return LPRT_HTTP_HEADER_FRAMING;
    return 0;
}

/* Appends s to out[0, cap) at *at when it fits; *at counts on either way. */
static void put(char *out, size_t cap, size_t *at, const char *s, size_t n) {
    if (*at + n <= cap) memcpy(out + *at, s, n);
    *at += n;
}

#define PUTS(s) put(out, cap, &at, (s), strlen(s))

size_t lprt_http_render_response(char *out, size_t cap, int status, const lprt_http_field *headers, size_t nheaders,
                                 const void *body, size_t body_n, int keep_alive, int head_only) {
    size_t at = 0;
    char num[48];
    int typed = 0;
    snprintf(num, sizeof num, "HTTP/1.1 %03d ", status % 1000);
    PUTS(num);
    PUTS(lprt_http_reason(status));
    PUTS("\r\n");
    for (size_t i = 0; i < nheaders; i++) {
        const lprt_http_field *name = &headers[2 * i], *value = &headers[2 * i + 1];
        typed |= name->n == 12 && has_token(name, "content-type");
        put(out, cap, &at, name->p, name->n);
        PUTS(": ");
        put(out, cap, &at, value->p, value->n);
        PUTS("\r\n");
    }
    int bodiless = status < 200 || status == 204 || status == 304; /* RFC 9110 6.4.1: never a body */
    if (!typed && !bodiless) PUTS("Content-Type: text/plain; charset=utf-8\r\n");
    if (!bodiless) {
        snprintf(num, sizeof num, "Content-Length: %zu\r\n", body_n);
        PUTS(num);
    }
    if (!keep_alive) PUTS("Connection: close\r\n");
    PUTS("\r\n");
    if (!head_only && !bodiless) put(out, cap, &at, body, body_n);
    return at;
}

long lprt_http_send_response(lprt_conn *c, char *out, size_t cap, size_t *size, int status,
                             const lprt_http_field *headers, size_t nheaders, const void *body, size_t body_n,
                             int keep_alive, int head_only) {
    *size = lprt_http_render_response(out, cap, status, headers, nheaders, body, body_n, keep_alive, head_only);
    if (*size > cap) return -EINVAL;
    size_t off = 0;
    while (off < *size) {
        long w = lprt_conn_write(c, out + off, *size - off);
        if (w < 0) return off ? (long)off : w;
        off += (size_t)w;
    }
    return (long)off;
}

const char *lprt_http_error_text(long status) {
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

const char *lprt_http_framing_text(long framing) {
    if (framing == LPRT_HTTP_BAD_REQUEST) return "malformed Content-Length, both it and Transfer-Encoding, or two Host fields";
    if (framing == LPRT_HTTP_NOT_IMPLEMENTED) return "only the chunked transfer coding is supported";
    return "the request body is too large";
}
