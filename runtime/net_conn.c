/* net_conn.c — a buffered byte stream over a connected socket: bounded line
 * reads, exact-size reads, partial writes. Never blocks (see net_sock.c).
 *
 * The buffer holds bytes received but not yet handed out: [start, end) of a
 * block of cap bytes. It grows only as far as the current read needs (a line:
 * its limit plus "\r\n"; exact reads: n), so a peer that never sends a
 * newline costs at most the limit, and then the read answers
 * LPRT_NET_TOO_LONG. A TLS layer will slot in at lprt__conn_recv and the send. */
#include "lprt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_internal.h"

#define RECV_CHUNK 65536
#define MAX_EXACT ((size_t)1 << 30)

lprt_conn *lprt_conn_new(int fd) {
    lprt_conn *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->fd = fd;
    return c;
}

void lprt_conn_free(lprt_conn *c) {
    if (!c) return;
    if (c->ssl) lprt__tls_free(c);
    if (c->fd >= 0) close(c->fd);
    free(c->buf);
    free(c);
}

int lprt_conn_fd(const lprt_conn *c) { return c->fd; }
size_t lprt_conn_buffered(const lprt_conn *c) { return c->end - c->start; }

/* Room for `want` bytes in total from start; 0 or -ENOMEM. */
static int reserve(lprt_conn *c, size_t want) {
    if (c->start > 0 && (c->start == c->end || c->cap - c->start < want)) {
        memmove(c->buf, c->buf + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    if (want <= c->cap - c->start) return 0;
    size_t ncap = c->cap ? c->cap : 4096;
    while (ncap < want) ncap *= 2;
    char *nb = realloc(c->buf, ncap);
    if (!nb) return -ENOMEM;
    c->buf = nb;
    c->cap = ncap;
    return 0;
}

/* One recv of at most `room` more bytes into the buffer: > 0 bytes,
   0 at EOF, LPRT_NET_WANT_READ or -errno. */
long lprt__conn_recv(lprt_conn *c, size_t room) {
    if (c->eof) return 0;
    if (c->err) return c->err;
    size_t want = c->end - c->start + (room > RECV_CHUNK ? RECV_CHUNK : room);
    int r = reserve(c, want);
    if (r) return r;
    size_t space = c->cap - c->end;
    if (c->ssl) {
        long t = lprt__tls_recv(c, c->buf + c->end, space);
        if (t > 0) c->end += (size_t)t;
        else if (t == 0) c->eof = 1;
        else if (t != LPRT_NET_WANT_READ && t != LPRT_NET_WANT_WRITE) c->err = (int)t;
        return t;
    }
    ssize_t n = recv(c->fd, c->buf + c->end, space, 0);
    if (n > 0) {
        c->end += (size_t)n;
        return n;
    }
    if (n == 0) {
        c->eof = 1;
        return 0;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return LPRT_NET_WANT_READ;
    if (errno == EINTR) return lprt__conn_recv(c, room);
    c->err = -errno;
    return c->err;
}

long lprt__conn_hand_out(lprt_conn *c, size_t n, size_t consumed, const char **out) {
    *out = c->buf + c->start;
    c->start += consumed;
    return (long)n;
}

/* Strict UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
int lprt_utf8_ok(const void *text, size_t n) {
    const unsigned char *s = text;
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t k;
        unsigned lo = 0x80, hi = 0xbf;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xc2 && c <= 0xdf) k = 1;
        else if (c >= 0xe0 && c <= 0xef) k = 2, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        else if (c >= 0xf0 && c <= 0xf4) k = 3, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        else return 0;
        if (i + k >= n) return 0;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (size_t j = 2; j <= k; j++)
            if ((s[i + j] & 0xc0) != 0x80) return 0;
        i += k + 1;
    }
    return 1;
}

/* A line handed out only when it is UTF-8 text; else left in the buffer, to be read as bytes. */
static long text_line(lprt_conn *c, size_t len, size_t consumed, const char **line) {
    if (!lprt_utf8_ok(c->buf + c->start, len)) return LPRT_NET_NOT_TEXT;
    return lprt__conn_hand_out(c, len, consumed, line);
}

long lprt_conn_read_line(lprt_conn *c, size_t limit, const char **line) {
    size_t scanned = 0;
    for (;;) {
        size_t have = c->end - c->start;
        char *p = have > scanned ? memchr(c->buf + c->start + scanned, '\n', have - scanned) : NULL;
        if (p) {
            size_t n = (size_t)(p - (c->buf + c->start));
            size_t len = n > 0 && p[-1] == '\r' ? n - 1 : n;
            if (len > limit) return LPRT_NET_TOO_LONG;
            return text_line(c, len, n + 1, line);
        }
        scanned = have;
        if (have > limit + 1) return LPRT_NET_TOO_LONG; /* limit bytes and a '\r' fit */
        long r = lprt__conn_recv(c, limit + 2 - have);
        if (r == 0) {
            if (have == 0) return LPRT_NET_EOF;
            size_t len = c->buf[c->start + have - 1] == '\r' ? have - 1 : have;
            if (len > limit) return LPRT_NET_TOO_LONG;
            return text_line(c, len, have, line);
        }
        if (r < 0) return r;
    }
}

long lprt_conn_read_exact(lprt_conn *c, size_t n, const char **out) {
    if (n == 0 || n > MAX_EXACT) return -EINVAL;
    for (;;) {
        size_t have = c->end - c->start;
        if (have >= n) return lprt__conn_hand_out(c, n, n, out);
        long r = lprt__conn_recv(c, n - have);
        if (r == 0) return have == 0 ? LPRT_NET_EOF : LPRT_NET_TRUNCATED;
        if (r < 0) return r;
    }
}

long lprt_conn_read_some(lprt_conn *c, size_t max, const char **out) {
    if (max == 0 || max > MAX_EXACT) return -EINVAL;
    size_t have = c->end - c->start;
    if (have == 0) {
        long r = lprt__conn_recv(c, max);
        if (r == 0) return LPRT_NET_EOF;
        if (r < 0) return r;
        have = c->end - c->start;
    }
    size_t n = have < max ? have : max;
    return lprt__conn_hand_out(c, n, n, out);
}

long lprt_conn_write(lprt_conn *c, const void *data, size_t n) {
    if (n == 0) return 0;
    if (c->ssl) return lprt__tls_send(c, data, n);
    for (;;) {
        ssize_t w = send(c->fd, data, n, MSG_NOSIGNAL);
        if (w >= 0) return (long)w;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LPRT_NET_WANT_WRITE;
        return -errno;
    }
}

int lprt_conn_shutdown(lprt_conn *c) { return shutdown(c->fd, SHUT_WR) == 0 ? 0 : -errno; }

int lprt_conn_reusable(lprt_conn *c) {
    /* with TLS too: a close_notify or a FIN the peer sent shows as bytes or EOF on the socket */
    if (c->eof || c->err || c->end > c->start) return 0;
    char b;
    ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}
