/* t_http.c — HTTP/1.1 framing (net_http.c) on a socketpair, no scheduler
 * needed: heads (fields, lowercased names, trimmed values, pipelining, empty
 * lines before a request, arrival in pieces), every refusal with its status
 * (400, 414, 431, 505), end of stream, response heads and reusable pooled
 * connections, WebSocket frames (masking, lengths, limits, protocol errors),
 * chunked bodies (extensions, trailers,
 * pieces, 400 and 413), and that buffers stay within the limits; a request's
 * body framing and keep-alive, and responses assembled whole; the
 * interpreter's one-call forms (a request's head with its framing, a response
 * rendered and written).                                                      */
#include "harness.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

static int peer;
static lprt_conn *conn;
static lprt_http_limits lim = {100, 5, 300};
static lprt_http_field f[64];

static void fresh(void) {
    if (conn) lprt_conn_free(conn);
    if (peer >= 0) close(peer);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    conn = lprt_conn_new(sv[0]);
    peer = sv[1];
}

static void put(const char *s) { CHECK(write(peer, s, strlen(s)) == (ssize_t)strlen(s)); }

static int is(lprt_http_field x, const char *s) { return x.n == strlen(s) && memcmp(x.p, s, x.n) == 0; }

static long head(const char *text) {
    fresh();
    put(text);
    return lprt_http_read_head(conn, &lim, f, 64);
}

static void heads(void) {
    CHECK(head("GET /a?b=1 HTTP/1.1\r\nHost: x\r\nX-Thing:  spaced value \t\r\n\r\nPOST") == 2);
    CHECK(is(f[0], "GET") && is(f[1], "/a?b=1") && is(f[2], "HTTP/1.1"));
    CHECK(is(f[3], "host") && is(f[4], "x") && is(f[5], "x-thing") && is(f[6], "spaced value"));
    /* the next (pipelined) request is still buffered, and incomplete */
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == LPRT_NET_WANT_READ);
    put(" / HTTP/1.0\n\n");
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == 0 && is(f[0], "POST") && is(f[2], "HTTP/1.0"));
    shutdown(peer, SHUT_WR);
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == LPRT_NET_EOF);

    CHECK(head("\r\n\r\nGET / HTTP/1.1\r\nEmpty:\r\n\r\n") == 1 && is(f[3], "empty") && f[4].n == 0);
    /* refusals */
    CHECK(head("GET /") == LPRT_NET_WANT_READ);
    shutdown(peer, SHUT_WR);
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == LPRT_HTTP_BAD_REQUEST); /* ended inside the head */
    char longline[400];
    memset(longline, 'a', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    CHECK(head(longline) == LPRT_HTTP_URI_TOO_LONG);
    CHECK(lprt_conn_buffered(conn) <= 400);
    CHECK(head("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\n\r\n") ==
          LPRT_HTTP_HEADERS_TOO_LARGE);
    fresh();
    put("GET / HTTP/1.1\r\nLong: ");
    put(longline);
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == LPRT_HTTP_HEADERS_TOO_LARGE);
    fresh(); /* a head over max_head arriving in one piece */
    put("GET / HTTP/1.1\r\n");
    for (int i = 0; i < 4; i++) put("Header: 0123456789012345678901234567890123456789012345678901234567890123456789\r\n");
    put("\r\n");
    CHECK(lprt_http_read_head(conn, &lim, f, 64) == LPRT_HTTP_HEADERS_TOO_LARGE);
    CHECK(head("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/1.1\r\nNo colon\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/1.1\r\nBad name: 1\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/1.1\r\n: empty name\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/1.1\r\nA: x\001y\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("G(T / HTTP/1.1\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET  / HTTP/1.1\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/1.1 extra\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTX/1.1\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(head("GET / HTTP/2.0\r\n\r\n") == LPRT_HTTP_BAD_VERSION);
    CHECK(head("GET / HTTP/1.2\r\n\r\n") == LPRT_HTTP_BAD_VERSION);
}

static long status(const char *text) {
    fresh();
    put(text);
    return lprt_http_read_status(conn, &lim, f, 64);
}

static void responses(void) {
    CHECK(status("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi") == 1);
    CHECK(is(f[0], "HTTP/1.1") && is(f[1], "200") && is(f[2], "OK") && is(f[3], "content-length"));
    CHECK(status("HTTP/1.0 404 Not Found Here\r\n\r\n") == 0 && is(f[2], "Not Found Here"));
    CHECK(status("HTTP/1.1 204\r\n\r\n") == 0 && is(f[1], "204") && f[2].n == 0);
    CHECK(status("HTTP/1.1 20x OK\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(status("HTTP/2.0 200 OK\r\n\r\n") == LPRT_HTTP_BAD_VERSION);
    CHECK(status("garbage\r\n\r\n") == LPRT_HTTP_BAD_REQUEST);
    CHECK(status("HTTP/1.1 200 OK\r\n") == LPRT_NET_WANT_READ);
    /* reusable: idle yes; after the peer closed or sent something unasked, no */
    fresh();
    CHECK(lprt_conn_reusable(conn) == 1);
    put("x");
    CHECK(lprt_conn_reusable(conn) == 0);
    fresh();
    shutdown(peer, SHUT_WR);
    CHECK(lprt_conn_reusable(conn) == 0);
}

static long body(const char *text, size_t max, const char **out) {
    fresh();
    put(text);
    return lprt_http_read_chunked(conn, max, out);
}

static void chunked(void) {
    const char *out;
    CHECK(body("5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\nTrailer: x\r\n\r\nNEXT", 100, &out) == 6);
    CHECK(memcmp(out, "hello!", 6) == 0);
    const char *rest;
    CHECK(lprt_conn_read_exact(conn, 4, &rest) == 4 && memcmp(rest, "NEXT", 4) == 0);
    CHECK(body("a\r\n0123", 100, &out) == LPRT_NET_WANT_READ);
    put("456789\r");
    CHECK(lprt_http_read_chunked(conn, 100, &out) == LPRT_NET_WANT_READ);
    put("\n0\r\n\r\n");
    CHECK(lprt_http_read_chunked(conn, 100, &out) == 10 && memcmp(out, "0123456789", 10) == 0);
    CHECK(body("0\r\n\r\n", 100, &out) == 0);
    CHECK(body("zz\r\n", 100, &out) == LPRT_HTTP_BAD_REQUEST);
    CHECK(body("5\r\nhelloX\r\n", 100, &out) == LPRT_HTTP_BAD_REQUEST);
    CHECK(body("65\r\n", 100, &out) == LPRT_HTTP_TOO_LARGE);
    CHECK(body("40\r\n", 100, &out) == LPRT_NET_WANT_READ);
    CHECK(body("ffffffffffffffffff\r\n", 100, &out) == LPRT_HTTP_BAD_REQUEST);
    CHECK(body("3\r\nabc\r\n", 100, &out) == LPRT_NET_WANT_READ);
    shutdown(peer, SHUT_WR);
    CHECK(lprt_http_read_chunked(conn, 100, &out) == LPRT_HTTP_BAD_REQUEST);
    /* many tiny chunks adding up past the limit */
    fresh();
    for (int i = 0; i < 101; i++) put("1\r\nx\r\n");
    CHECK(lprt_http_read_chunked(conn, 100, &out) == LPRT_HTTP_TOO_LARGE);
}

static void websocket(void) {
    unsigned char frame[70000 + 14], key[4] = {1, 2, 3, 4};
    static char big[70000];
    const char *out;
    int op, fin;
    fresh();
    size_t n = lprt_ws_encode(frame, 1, 1, "hello", 5, key);   /* a client's masked text frame */
    CHECK(n == 11 && frame[1] == (0x80 | 5));
    CHECK(write(peer, frame, 3) == 3);
    CHECK(lprt_ws_read_frame(conn, 100, 1, &op, &fin, &out) == LPRT_NET_WANT_READ);
    CHECK(write(peer, frame + 3, n - 3) == (ssize_t)(n - 3));
    CHECK(lprt_ws_read_frame(conn, 100, 1, &op, &fin, &out) == 5 && op == 1 && fin && memcmp(out, "hello", 5) == 0);
    /* 16- and 64-bit lengths, unmasked (a server's frames) */
    memset(big, 'b', sizeof big);
    n = lprt_ws_encode(frame, 2, 0, big, 300, NULL);
    CHECK(n == 304 && write(peer, frame, n) == (ssize_t)n);
    n = lprt_ws_encode(frame, 0, 1, big, 70000, NULL);
    CHECK(n == 70010 && frame[1] == 127);
    fresh();
    size_t m = lprt_ws_encode(frame, 2, 0, big, 300, NULL);
    CHECK(write(peer, frame, m) == (ssize_t)m);
    CHECK(lprt_ws_read_frame(conn, 100000, 0, &op, &fin, &out) == 300 && op == 2 && !fin);
    m = lprt_ws_encode(frame, 0, 1, big, 70000, NULL);
    long w = 0;
    for (size_t off = 0; off < m;) { /* the socketpair holds less than a frame: alternate */
        ssize_t k = write(peer, frame + off, m - off);
        if (k > 0) off += (size_t)k;
        w = lprt_ws_read_frame(conn, 100000, 0, &op, &fin, &out);
        if (w >= 0) break;
        CHECK(w == LPRT_NET_WANT_READ);
    }
    CHECK(w == 70000 && op == 0 && fin && out[69999] == 'b');
    /* limits and protocol errors */
    m = lprt_ws_encode(frame, 2, 1, big, 70000, NULL);
    fresh();
    CHECK(write(peer, frame, 10) == 10);
    CHECK(lprt_ws_read_frame(conn, 1000, 0, &op, &fin, &out) == LPRT_WS_TOO_BIG);
    CHECK(lprt_conn_buffered(conn) <= 14);
    fresh();
    m = lprt_ws_encode(frame, 1, 1, "x", 1, NULL);
    CHECK(write(peer, frame, m) == (ssize_t)m);
    CHECK(lprt_ws_read_frame(conn, 100, 1, &op, &fin, &out) == LPRT_WS_PROTOCOL_ERROR); /* unmasked client */
    fresh();
    m = lprt_ws_encode(frame, 9, 0, "p", 1, NULL);
    CHECK(write(peer, frame, m) == (ssize_t)m);
    CHECK(lprt_ws_read_frame(conn, 100, 0, &op, &fin, &out) == LPRT_WS_PROTOCOL_ERROR); /* fragmented ping */
    fresh();
    m = lprt_ws_encode(frame, 9, 1, big, 126, NULL);
    CHECK(write(peer, frame, m) == (ssize_t)m);
    CHECK(lprt_ws_read_frame(conn, 1000, 0, &op, &fin, &out) == LPRT_WS_PROTOCOL_ERROR); /* long control */
    fresh();
    CHECK(write(peer, "\x83\x00", 2) == 2);
    CHECK(lprt_ws_read_frame(conn, 100, 0, &op, &fin, &out) == LPRT_WS_PROTOCOL_ERROR); /* opcode 3 */
    fresh();
    CHECK(write(peer, "\xc1\x00", 2) == 2);
    CHECK(lprt_ws_read_frame(conn, 100, 0, &op, &fin, &out) == LPRT_WS_PROTOCOL_ERROR); /* RSV1 */
    fresh();
    put("\x81");
    shutdown(peer, SHUT_WR);
    CHECK(lprt_ws_read_frame(conn, 100, 0, &op, &fin, &out) == LPRT_NET_TRUNCATED);
    fresh();
    shutdown(peer, SHUT_WR);
    CHECK(lprt_ws_read_frame(conn, 100, 0, &op, &fin, &out) == LPRT_NET_EOF);
}

/* framing of the head f[] holds after head(text): the result, *length and keep-alive */
static long framing(const char *text, long long *length, int *keep) {
    long n = head(text);
    CHECK(n >= 0);
    return lprt_http_request_framing(f, n, 1000, length, keep);
}

static void framings(void) {
    long long len;
    int keep;
    CHECK(framing("GET / HTTP/1.1\r\n\r\n", &len, &keep) == 0 && len == 0 && keep == 1);
    CHECK(framing("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n", &len, &keep) == 0 && keep == 0);
    CHECK(framing("GET / HTTP/1.0\r\n\r\n", &len, &keep) == 0 && keep == 0);
    CHECK(framing("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &len, &keep) == 0 && keep == 1);
    CHECK(framing("POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n", &len, &keep) == 0 && len == 1000);
    CHECK(framing("POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", &len, &keep) == LPRT_HTTP_TOO_LARGE);
    CHECK(framing("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &len, &keep) == LPRT_HTTP_BAD_REQUEST);
    CHECK(framing("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", &len, &keep) ==
          LPRT_HTTP_BAD_REQUEST);
    CHECK(framing("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &len, &keep) == 1);
    CHECK(framing("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", &len, &keep) == LPRT_HTTP_NOT_IMPLEMENTED);
    CHECK(framing("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", &len, &keep) ==
          LPRT_HTTP_BAD_REQUEST);
    CHECK(framing("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", &len,
                  &keep) == LPRT_HTTP_NOT_IMPLEMENTED); /* one list of two codings */
}

static void render(void) {
    char out[256];
    lprt_http_field h[2] = {{"X-A", 3}, {"b", 1}};
    const char *want = "HTTP/1.1 404 Not Found\r\nX-A: b\r\nContent-Type: text/plain; charset=utf-8\r\n"
                       "Content-Length: 4\r\n\r\nnope";
    size_t n = lprt_http_render_response(out, sizeof out, 404, h, 1, "nope", 4, 1, 0);
    CHECK(n == strlen(want) && memcmp(out, want, n) == 0);
    lprt_http_field typed[2] = {{"content-TYPE", 12}, {"a/b", 3}};
    want = "HTTP/1.1 299 Unknown\r\ncontent-TYPE: a/b\r\nContent-Length: 4\r\nConnection: close\r\n\r\n";
    n = lprt_http_render_response(out, sizeof out, 299, typed, 1, "body", 4, 0, 1); /* HEAD: no body */
    CHECK(n == strlen(want) && memcmp(out, want, n) == 0);
    /* too small: the length it needs, nothing written past cap */
    memset(out, '#', sizeof out);
    CHECK(lprt_http_render_response(out, 10, 200, NULL, 0, "", 0, 1, 0) > 10 && out[10] == '#');
}

/* lprt_http_read_request: the head, its framing and whether bytes wait, in one call;
   lprt_http_send_response: rendered and written, all of it, or as much as the socket takes. */
static void one_call_forms(void) {
    long long len = -1;
    int keep = -1, buffered = -1;
    long fr = -1;
    fresh();
    put("POST /p HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET");
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == 1);
    CHECK(is(f[0], "POST") && fr == 0 && len == 3 && keep == 1);
    const char *body;
    CHECK(lprt_conn_read_exact(conn, 3, &body) == 3 && memcmp(body, "abc", 3) == 0);
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == LPRT_NET_WANT_READ);
    CHECK(buffered == 1 && fr == 0); /* "GET" is waiting for the rest of its head */
    fresh();
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == LPRT_NET_WANT_READ);
    CHECK(buffered == 0);
    put("POST / HTTP/1.0\r\nContent-Length: 1001\r\n\r\n");
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == 1);
    CHECK(fr == LPRT_HTTP_TOO_LARGE);
    /* Expect: 100-continue with the body still to come: the interim answer; with it here: none */
    char got[256];
    fresh();
    put("POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n");
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == 2 && fr == 0);
    CHECK(read(peer, got, sizeof got) == 25 && memcmp(got, "HTTP/1.1 100 Continue\r\n\r\n", 25) == 0);
    fresh();
    put("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc");
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == 2);
    CHECK(read(peer, got, sizeof got) < 0 && errno == EAGAIN);
    fresh();
    put("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n"); /* no body: nothing to go on with */
    CHECK(lprt_http_read_request(conn, &lim, f, 64, 1000, &len, &keep, &fr, &buffered) == 1);
    CHECK(read(peer, got, sizeof got) < 0 && errno == EAGAIN);

    char out[256];
    size_t size = 0;
    fresh();
    CHECK(lprt_http_send_response(conn, out, sizeof out, &size, 200, NULL, 0, "hi", 2, 0, 0) == (long)size);
    const char *want = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n"
                       "Connection: close\r\n\r\nhi";
    CHECK(size == strlen(want) && read(peer, got, sizeof got) == (ssize_t)size && memcmp(got, want, size) == 0);
    CHECK(lprt_http_send_response(conn, out, 10, &size, 200, NULL, 0, "hi", 2, 0, 0) == -EINVAL && size > 10);
    /* a peer that reads nothing: the socket takes part, then no more */
    static char big[1 << 20], bigout[(1 << 20) + 256];
    memset(big, 'x', sizeof big);
    long w = lprt_http_send_response(conn, bigout, sizeof bigout, &size, 200, NULL, 0, big, sizeof big, 1, 0);
    CHECK(w > 0 && (size_t)w < size);
    CHECK(lprt_conn_write(conn, bigout + w, size - (size_t)w) == LPRT_NET_WANT_WRITE);
    close(peer);
    peer = -1;
    CHECK(lprt_http_send_response(conn, out, sizeof out, &size, 200, NULL, 0, "hi", 2, 1, 0) < 0); /* EPIPE */
}

int main(void) {
    peer = -1;
    heads();
    framings();
    render();
    one_call_forms();
    responses();
    chunked();
    websocket();
    lprt_conn_free(conn);
    close(peer);
    printf("ok\n");
    return 0;
}
