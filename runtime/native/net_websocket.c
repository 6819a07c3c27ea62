/* net_websocket.c — WebSocket messages in native binaries over runtime/net_ws.c's frames:
 * `WebSocket over:client:`, receive (fragments reassembled, pings answered, the close
 * handshake), sendText:/sendBytes:, close, and the handshake's keys. The behaviour and the
 * messages are lp/interp/prims_ws.py's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lpnet.h"

enum { TEXT = 1, BINARY = 2, CLOSE = 8, PING = 9, PONG = 10, LIMIT = 1 << 20 };
static const char GUID[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

typedef struct wsock {
    lpn_foreign f;
    lpn_value sock;          /* the TCPSocket */
    int client;
    char *protocol;          /* the subprotocol its handshake chose (NULL: none) */
    int in_frag, frag_text;
    unsigned char *frags;
    size_t nfrags, capfrags;
    int close_sent, close_code;
    char *close_reason;      /* the peer's close frame's reason (NULL: none) */
    size_t nreason;
    unsigned char *out;      /* control frames waiting to be written */
    size_t nout;
} wsock;

static void ws_fin(lpn_foreign *f) {
    wsock *w = (wsock *)f;
    lpn_drop(w->sock);
    free(w->frags);
    free(w->close_reason);
    free(w->protocol);
    free(w->out);
}
static int ws_print(lpn_foreign *f, char *buf, size_t cap) { (void)f; return snprintf(buf, cap, "a WebSocket"); }
static uint64_t ws_identity(lpn_foreign *f) { return (uint64_t)(uintptr_t)f; }
static const lpn_foreign_ops ws_ops = {ws_fin, ws_print, ws_identity, 0};

static nsock *S(wsock *w) { return (nsock *)lpn_ptr(w->sock); }

static void close_sock(wsock *w) {
    nsock *s = S(w);
    if (s->conn) lprt_conn_free(s->conn);
    s->conn = NULL;
}

static void append(unsigned char **buf, size_t *n, size_t *cap, const void *p, size_t k) {
    if (*n + k > *cap) {
        *cap = (*n + k) * 2 + 64;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *n, p, k);
    *n += k;
}

/* One frame as the role sends it (clients mask). */
static unsigned char *encode(wsock *w, int opcode, const void *payload, size_t n, size_t *len) {
    unsigned char *out = malloc(n + 14), key[4];
    if (w->client && getrandom(key, 4, 0) != 4) memset(key, 0x5a, 4);
    *len = lprt_ws_encode(out, opcode, 1, payload, n, w->client ? key : NULL);
    return out;
}

static void queue_close_reason(wsock *w, int code, const char *reason, size_t n) {
    if (w->close_sent) return;
    w->close_sent = 1;
    unsigned char c[2 + 123] = {(unsigned char)(code >> 8), (unsigned char)code};
    if (n > 123) n = 123;
    if (n) memcpy(c + 2, reason, n);
    size_t len;
    unsigned char *f = encode(w, CLOSE, c, 2 + n, &len);
    size_t cap = w->nout;
    append(&w->out, &w->nout, &cap, f, len);
    free(f);
}

static void queue_close(wsock *w, int code) { queue_close_reason(w, code, NULL, 0); }

/* Writes the queued control frames: 0 (all written, or the peer is gone), a "would block"
   code (the fd in *fd), or 1 with the error raised. */
static long flush(wsock *w, const char *what, int *fd) {
    if (!w->nout) return 0;
    nsock *s = lpnet_use(w->sock, NS_TCP, what);
    if (!s) return 1;
    size_t off = 0;
    long r = 0;
    while (off < w->nout) {
        r = lprt_conn_write(s->conn, w->out + off, w->nout - off);
        if (r <= 0) break;
        off += (size_t)r;
    }
    *fd = lprt_conn_fd(s->conn);
    lpnet_done(s);
    memmove(w->out, w->out + off, w->nout - off);
    w->nout -= off;
    if (w->nout && lpnet_would_block(r)) return r;
    w->nout = 0;
    return 0;
}

static lpn_value fail_closing(wsock *w, int code, const char *cls, const char *text) {
    int fd;
    queue_close(w, code);
    if (flush(w, "WebSocket", &fd) == 1) return LPN_UNWIND_VALUE;
    close_sock(w);
    w->close_code = code;
    return lpnet_fail(cls, "%s (closed with %d)", text, code);
}

static lpn_value message(const unsigned char *data, size_t n, int is_text) {
    uint64_t cls = lpnet_class("WebSocketMessage");
    lpn_inst *o = lpn_inst_new(cls, 2);
    o->field[0] = lpn_bytes_new(data, n);
    o->field[1] = lpn_bool(is_text);
    return lpn_maybe_new(1, lpn_ref(o));
}

/* With mail: *mail is set, and nothing read, as soon as the running actor has a message; the
   waits for the socket also end when one arrives (receiveOrMail:). */
static lpn_value receive(wsock *w, lpn_value ms, size_t limit, const char *what, int *mail) {
    int64_t deadline;
    char text[400];
    int (*wait)(int, long, int64_t, const char *, lpn_value) = mail ? lpnet_wait_or_mail : lpnet_wait;
    if (lpnet_deadline(ms, what, &deadline)) return LPN_UNWIND_VALUE;
    if (!S(w)->conn) return lpn_maybe_new(0, LPN_NIL_VALUE);
    for (;;) {
        int fd = -1;
        if (mail && lprt_mbox_first(lprt_self())) {
            *mail = 1;
            return LPN_NIL_VALUE;
        }
        long r = flush(w, what, &fd);
        if (r == 1) return LPN_UNWIND_VALUE;
        if (r) {
            if (wait(fd, r, deadline, what, ms)) return LPN_UNWIND_VALUE;
            continue;
        }
        if (!S(w)->conn) return lpn_maybe_new(0, LPN_NIL_VALUE);
        nsock *s = lpnet_use(w->sock, NS_TCP, what);
        if (!s) return LPN_UNWIND_VALUE;
        int op = 0, fin = 0;
        const char *p = NULL;
        long n = lprt_ws_read_frame(s->conn, limit, w->client ? 0 : 1, &op, &fin, &p);
        unsigned char *data = n > 0 ? malloc((size_t)n) : NULL;
        if (n > 0) memcpy(data, p, (size_t)n);
        fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (lpnet_would_block(n)) {
            if (wait(fd, n, deadline, what, ms)) return LPN_UNWIND_VALUE;
            continue;
        }
        if (n == LPRT_NET_EOF || n == LPRT_NET_TRUNCATED || n == -104 || n == -32) {
            close_sock(w);
            if (!w->close_code) w->close_code = 1006;
            return lpn_maybe_new(0, LPN_NIL_VALUE);
        }
        if (n == LPRT_WS_TOO_BIG) {
            snprintf(text, sizeof text, "%s a WebSocket message larger than %zu bytes", what, limit);
            return fail_closing(w, 1009, "LimitExceeded", text);
        }
        if (n == LPRT_WS_PROTOCOL_ERROR) {
            snprintf(text, sizeof text, "%s WebSocket protocol error from %s", what, s->peer);
            return fail_closing(w, 1002, "NetworkError", text);
        }
        if (n < 0) {
            return lpnet_os_error_at(n, what, " from ", s->peer);
        }
        if (op == PING) {
            size_t len, cap = w->nout;
            unsigned char *f = encode(w, PONG, data, (size_t)n, &len);
            append(&w->out, &w->nout, &cap, f, len);
            free(f);
            free(data);
            continue;
        }
        if (op == PONG) {
            free(data);
            continue;
        }
        if (op == CLOSE) {
            int code, bad = lprt_ws_check_close(data, (size_t)n, &code);
            if (bad) {
                free(data);
                snprintf(text, sizeof text, "%s %s from %s", what,
                         bad == 1002 ? "WebSocket protocol error (a malformed close frame)"
                                     : "a WebSocket close reason that is not UTF-8", s->peer);
                return fail_closing(w, bad, "NetworkError", text);
            }
            if (n > 2) {
                free(w->close_reason);
                w->close_reason = malloc((size_t)n - 2);
                memcpy(w->close_reason, data + 2, (size_t)n - 2);
                w->nreason = (size_t)n - 2;
            }
            free(data);
            w->close_code = code;
            queue_close(w, n >= 2 ? code : 1000);
            if (flush(w, what, &fd) == 1) return LPN_UNWIND_VALUE;
            close_sock(w);
            return lpn_maybe_new(0, LPN_NIL_VALUE);
        }
        if ((op == 0) != (w->in_frag != 0)) {
            free(data);
            snprintf(text, sizeof text, "%s WebSocket fragments out of order from %s", what, s->peer);
            return fail_closing(w, 1002, "NetworkError", text);
        }
        if (op != 0) {
            w->in_frag = 1;
            w->frag_text = op == TEXT;
            w->nfrags = 0;
        }
        if (n > 0) append(&w->frags, &w->nfrags, &w->capfrags, data, (size_t)n);
        free(data);
        if (w->nfrags > limit) {
            snprintf(text, sizeof text, "%s a WebSocket message larger than %zu bytes", what, limit);
            return fail_closing(w, 1009, "LimitExceeded", text);
        }
        if (!fin) continue;
        w->in_frag = 0;
        if (w->frag_text && !lpn_utf8_valid((const char *)w->frags, w->nfrags)) {
            snprintf(text, sizeof text, "%s a WebSocket text message that is not UTF-8", what);
            return fail_closing(w, 1007, "NetworkError", text);
        }
        return message(w->frags, w->nfrags, w->frag_text);
    }
}

lpn_value lpn_ws_receive(lpn_value *a) {
    lpn_value r = receive((wsock *)lpn_ptr(a[0]), a[1], LIMIT, "receive:", NULL);
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_ws_receive_limit(lpn_value *a) {
    int64_t limit;
    lpn_value r = LPN_UNWIND_VALUE;
    if (lpnet_int(a[2], "receive:limit:", &limit)) goto done;
    if (!(limit > 0 && limit <= (1 << 30))) {
        lpnet_fail("Error", "receive:limit: the limit must be between 1 and 2^30, not %lld", (long long)limit);
        goto done;
    }
    r = receive((wsock *)lpn_ptr(a[0]), a[1], (size_t)limit, "receive:limit:", NULL);
done:
    lpnet_drop_all(a, 3);
    return r;
}

/* Maybe none when the actor has a message, else Maybe some: what receive answers. */
static lpn_value receive_or_mail(wsock *w, lpn_value ms, size_t limit, const char *what) {
    int mail = 0;
    lpn_value r = receive(w, ms, limit, what, &mail);
    if (mail) return lpn_maybe_new(0, LPN_NIL_VALUE);
    return r.cls == LPN_UNWIND ? r : lpn_maybe_new(1, r);
}

lpn_value lpn_ws_receive_or_mail(lpn_value *a) {
    lpn_value r = receive_or_mail((wsock *)lpn_ptr(a[0]), a[1], LIMIT, "receiveOrMail:");
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_ws_receive_or_mail_limit(lpn_value *a) {
    int64_t limit;
    lpn_value r = LPN_UNWIND_VALUE;
    if (lpnet_int(a[2], "receiveOrMail:limit:", &limit)) goto done;
    if (!(limit > 0 && limit <= (1 << 30))) {
        lpnet_fail("Error", "receiveOrMail:limit: the limit must be between 1 and 2^30, not %lld", (long long)limit);
        goto done;
    }
    r = receive_or_mail((wsock *)lpn_ptr(a[0]), a[1], (size_t)limit, "receiveOrMail:limit:");
done:
    lpnet_drop_all(a, 3);
    return r;
}

static lpn_value send(lpn_value *a, int opcode, const char *what) {
    wsock *w = (wsock *)lpn_ptr(a[0]);
    lpn_value out = LPN_UNWIND_VALUE;
    const void *p;
    size_t n;
    if (opcode == TEXT) {
        if (a[1].cls != LPN_STRING) {
            const char *x;
            lpnet_str(a[1], what, &x);
            goto done;
        }
        p = ((lpn_str *)lpn_ptr(a[1]))->data;
        n = ((lpn_str *)lpn_ptr(a[1]))->len;
    } else {
        if (a[1].cls != LPN_BYTES) {
            lpn_value d = lpn_describe((lpn_dup(a[1]), a[1]));
            lpnet_fail("Error", "%s expects a ByteArray, not %s", what, ((lpn_str *)lpn_ptr(d))->data);
            lpn_drop(d);
            goto done;
        }
        p = ((lpn_bytes *)lpn_ptr(a[1]))->data;
        n = ((lpn_bytes *)lpn_ptr(a[1]))->len;
    }
    if (w->close_sent || !S(w)->conn) {
        lpnet_fail("NetworkError", "%s the WebSocket is closed", what);
        goto done;
    }
    size_t len;
    unsigned char *frame = encode(w, opcode, p, n, &len);
    out = lpnet_write_all(w->sock, frame, len, LPN_NIL_VALUE, what);
    free(frame);
    if (out.cls != LPN_UNWIND) out = lpn_int((int64_t)n);
done:
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_ws_send_text(lpn_value *a) { return send(a, TEXT, "sendText:"); }
lpn_value lpn_ws_send_bytes(lpn_value *a) { return send(a, BINARY, "sendBytes:"); }

static lpn_value ws_close(wsock *w, lpn_value cv, const char *reason, size_t n, const char *what) {
    int64_t code;
    if (lpnet_int(cv, what, &code)) return LPN_UNWIND_VALUE;
    if (!lprt_ws_close_code_ok(code))
        return lpnet_fail("Error", "%s %lld is not a close code an endpoint may send", what, (long long)code);
    if (n > 123)
        return lpnet_fail("Error", "%s a close reason is at most 123 bytes of UTF-8, not %zu", what, n);
    if (S(w)->conn) {
        int fd;
        queue_close_reason(w, (int)code, reason, n);
        if (flush(w, what, &fd) == 1) return LPN_UNWIND_VALUE;
        close_sock(w);
        w->close_code = (int)code;
    }
    return LPN_NIL_VALUE;
}

lpn_value lpn_ws_close(lpn_value *a) {
    lpn_value r = ws_close((wsock *)lpn_ptr(a[0]), lpn_int(1000), NULL, 0, "close");
    lpn_drop(a[0]);
    return r;
}

lpn_value lpn_ws_close_code(lpn_value *a) {
    lpn_value r = ws_close((wsock *)lpn_ptr(a[0]), a[1], NULL, 0, "close:");
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_ws_close_reason(lpn_value *a) {
    const char *reason;
    lpn_value r = LPN_UNWIND_VALUE;
    if (!lpnet_str(a[2], "close:reason:", &reason))
        r = ws_close((wsock *)lpn_ptr(a[0]), a[1], reason, ((lpn_str *)lpn_ptr(a[2]))->len, "close:reason:");
    lpnet_drop_all(a, 3);
    return r;
}

lpn_value lpn_ws_close_reason_of(lpn_value *a) {
    wsock *w = (wsock *)lpn_ptr(a[0]);
    lpn_value r = lpnet_text(w->close_reason ? w->close_reason : "", w->nreason);
    lpn_drop(a[0]);
    return r;
}

lpn_value lpn_ws_close_code_of(lpn_value *a) {
    int c = ((wsock *)lpn_ptr(a[0]))->close_code;
    lpn_drop(a[0]);
    return lpn_int(c);
}

lpn_value lpn_ws_protocol(lpn_value *a) {
    wsock *w = (wsock *)lpn_ptr(a[0]);
    lpn_value r = w->protocol ? lpn_maybe_new(1, lpn_str_new(w->protocol, strlen(w->protocol)))
                              : lpn_maybe_new(0, LPN_NIL_VALUE);
    lpn_drop(a[0]);
    return r;
}

/* WebSocket over: sock client: b protocol: p (n = 4) or over: sock client: b (n = 3). */
static lpn_value over(lpn_value *a, int n) {
    lpn_value out;
    const char *protocol = "";
    if (a[1].cls < LPN_FIRST_INST || a[1].cls != lpnet_class("TCPSocket")) {
        lpn_value d = lpn_describe((lpn_dup(a[1]), a[1]));
        out = lpnet_fail("Error", "WebSocket over:client: expects a TCPSocket, not %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        lpnet_drop_all(a, n);
        return out;
    }
    if (n == 4 && lpnet_str(a[3], "WebSocket over:client:protocol:", &protocol)) {
        lpnet_drop_all(a, n);
        return LPN_UNWIND_VALUE;
    }
    wsock *w = lpn_alloc((uint32_t)lpnet_class("WebSocket"), sizeof *w);
    memset((char *)w + sizeof w->f, 0, sizeof *w - sizeof w->f);
    w->f.h.rc = -1;
    w->f.nfields = LPN_FOREIGN;
    w->f.ops = &ws_ops;
    w->sock = a[1];   /* taken */
    w->client = a[2].cls == LPN_BOOL && a[2].bits;
    if (*protocol) w->protocol = strdup(protocol);
    if (n == 4) lpn_drop(a[3]);
    lpn_drop(a[0]);
    return lpn_ref(w);
}

lpn_value lpn_ws_over(lpn_value *a) { return over(a, 3); }
lpn_value lpn_ws_over_protocol(lpn_value *a) { return over(a, 4); }

static lpn_value base64(const unsigned char *p, int n) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[64];
    int k = 0;
    for (int i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[k++] = digits[v >> 18];
        out[k++] = digits[(v >> 12) & 63];
        out[k++] = i + 1 < n ? digits[(v >> 6) & 63] : '=';
        out[k++] = i + 2 < n ? digits[v & 63] : '=';
    }
    return lpn_str_new(out, (uint64_t)k);
}

lpn_value lpn_ws_accept_key(lpn_value *a) {
    const char *key;
    lpn_value out = LPN_UNWIND_VALUE;
    if (!lpnet_str(a[1], "acceptKeyFor:", &key)) {
        size_t n = strlen(key);
        char *both = malloc(n + sizeof GUID);
        memcpy(both, key, n);
        memcpy(both + n, GUID, sizeof GUID);
        unsigned char d[20];
        lpn_sha1(both, n + sizeof GUID - 1, d);
        free(both);
        out = base64(d, sizeof d);
    }
    lpnet_drop_all(a, 2);
    return out;
}

lpn_value lpn_ws_new_key(lpn_value *a) {
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) memset(r, 7, sizeof r);
    lpn_drop(a[0]);
    return base64(r, sizeof r);
}

lpn_value lpn_ws_message_text(lpn_value *a) {
    lpn_inst *m = (lpn_inst *)lpn_ptr(a[0]);
    lpn_bytes *b = (lpn_bytes *)lpn_ptr(m->field[0]);
    lpn_value out = lpn_utf8_valid((const char *)b->data, b->len) ? lpn_str_new((const char *)b->data, b->len)
                                                                  : lpnet_fail("Error", "text: the message is not UTF-8 text");
    lpn_drop(a[0]);
    return out;
}
