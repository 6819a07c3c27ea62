/* net_tlsudp.c — TLS (`TLS wrapClient:...`, `wrapServer:...`, over runtime/net_tls.c) and UDP
 * sockets (over runtime/net_udp.c) in native binaries; lp/interp/prims_tls.py and prims_udp.py
 * are the interpreter's sides, with the same answers and messages. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"

/* ---- TLS: contexts made once per program and (role, files) ---------------------------- */

typedef struct tls_entry { char *key; lprt_tls_ctx *ctx; struct tls_entry *next; } tls_entry;
static tls_entry *contexts;
static pthread_mutex_t contexts_mu = PTHREAD_MUTEX_INITIALIZER;

static lprt_tls_ctx *context(const char *role, const char *f1, const char *f2, const char *what) {
    char key[2048];
    snprintf(key, sizeof key, "%s\n%s\n%s", role, f1 ? f1 : "", f2 ? f2 : "");
    pthread_mutex_lock(&contexts_mu);
    lprt_tls_ctx *ctx = NULL;
    for (tls_entry *e = contexts; e; e = e->next)
        if (!strcmp(e->key, key)) ctx = e->ctx;
    char err[200] = "";
    if (!ctx) {
        ctx = *role == 's' ? lprt_tls_server_ctx(f1, f2, err, sizeof err) : lprt_tls_client_ctx(f1, err, sizeof err);
        if (ctx) {
            tls_entry *e = malloc(sizeof *e);
            e->key = strdup(key);
            e->ctx = ctx;
            e->next = contexts;
            contexts = e;
        }
    }
    pthread_mutex_unlock(&contexts_mu);
    if (!ctx) lpnet_fail("TLSError", "%s%s%s", what, lpnet_sep(what), err);
    return ctx;
}

/* The handshake on a[1] (the socket), with a[ms] the timeout: answers the socket. */
static lpn_value handshake(lpn_value sock, lpn_value ms, lprt_tls_ctx *ctx, const char *host, const char *what) {
    int64_t deadline;
    if (lpnet_deadline(ms, what, &deadline)) return LPN_UNWIND_VALUE;
    int started = 0;
    char w[400];
    for (;;) {
        nsock *s = lpnet_use(sock, NS_TCP, what);
        if (!s) return LPN_UNWIND_VALUE;
        if (!started) {
            if (s->tls) {
                lpnet_done(s);
                return lpnet_fail("NetworkError", "%s the socket is already TLS (a handshake was begun on it)", what);
            }
            int r = lprt_tls_start(s->conn, ctx, host);
            s->tls = r == 0;
            if (r != 0) {
                lpnet_done(s);
                snprintf(w, sizeof w, "%s cannot start TLS on this socket", what);
                return lpnet_os_error(r, w);
            }
            started = 1;
        }
        long r = lprt_tls_handshake(s->conn);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (r == 0) {
            lpn_dup(sock);
            return sock;
        }
        if (lpnet_would_block(r)) {
            if (lpnet_wait(fd, r, deadline, what, ms)) return LPN_UNWIND_VALUE;
            continue;
        }
        if (r == LPRT_NET_TLS) return lpnet_fail("TLSError", "%s with %s: %s", what, s->peer, lprt_tls_error(s->conn));
        snprintf(w, sizeof w, "%s with %s", what, s->peer);
        return lpnet_os_error(r, w);
    }
}

static int is_socket(lpn_value v, const char *what) {
    if (v.cls >= LPN_FIRST_INST && v.cls == lpnet_class("TCPSocket")) return 1;
    lpn_value d = lpn_describe((lpn_dup(v), v));
    lpnet_fail("Error", "%s expects a TCPSocket, not %s", what, ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return 0;
}

static lpn_value wrap_client(lpn_value *a, int with_ca, const char *what) {
    const char *host, *ca = NULL;
    lpn_value out = LPN_UNWIND_VALUE, ms = a[with_ca ? 4 : 3];
    if (lpnet_str(a[2], what, &host) || (with_ca && lpnet_str(a[3], what, &ca))) goto done;
    lprt_tls_ctx *ctx = context("client", ca, NULL, what);
    if (!ctx) goto done;
    if (!is_socket(a[1], what)) goto done;
    out = handshake(a[1], ms, ctx, host, what);
done:
    lpnet_drop_all(a, with_ca ? 5 : 4);
    return out;
}

lpn_value lpn_tls_wrap_client(lpn_value *a) { return wrap_client(a, 0, "TLS wrapClient:host:timeout:"); }
lpn_value lpn_tls_wrap_client_ca(lpn_value *a) { return wrap_client(a, 1, "TLS wrapClient:host:caFile:timeout:"); }

lpn_value lpn_tls_wrap_server(lpn_value *a) {
    const char *what = "TLS wrapServer:certFile:keyFile:timeout:";
    const char *cert, *key;
    lpn_value out = LPN_UNWIND_VALUE;
    if (lpnet_str(a[2], what, &cert) || lpnet_str(a[3], what, &key)) goto done;
    lprt_tls_ctx *ctx = context("server", cert, key, what);
    if (!ctx) goto done;
    if (!is_socket(a[1], what)) goto done;
    out = handshake(a[1], a[4], ctx, NULL, what);
done:
    lpnet_drop_all(a, 5);
    return out;
}

/* ---- UDP ------------------------------------------------------------------------------- */

enum { MAX_DATAGRAM = 65536 };

static int numeric(const char *host) {
    struct in6_addr probe;
    return inet_pton(AF_INET, host, &probe) == 1 || inet_pton(AF_INET6, host, &probe) == 1;
}

static const char *address(lpn_value v, const char *what) {
    const char *host;
    if (lpnet_str(v, what, &host)) return NULL;
    if (!strcmp(host, "localhost")) return "127.0.0.1";
    if (!numeric(host)) {
        lpnet_fail("Error", "%s needs a numeric address such as 127.0.0.1 or ::1, not '%s'", what, host);
        return NULL;
    }
    return host;
}

static lpn_value bind_on(const char *addr, lpn_value pv, const char *what) {
    int64_t port;
    if (lpnet_int(pv, what, &port)) return LPN_UNWIND_VALUE;
    if (!(port >= 0 && port < 65536))
        return lpnet_fail("Error", "%s%sport %lld is not between 0 and 65535", what, lpnet_sep(what), (long long)port);
    char where[300], w[400];
    snprintf(where, sizeof where, "%s:%lld", addr ? addr : "*", (long long)port);
    int fd = -1;
    int r = lprt_udp_bind(addr, (int)port, &fd);
    if (r != 0) {
        snprintf(w, sizeof w, "cannot bind UDP %s", where);
        return lpnet_os_error(r, w);
    }
    return lpnet_sock_new(NS_UDP, fd, where);
}

lpn_value lpn_udp_bind(lpn_value *a) {
    lpn_value r = bind_on(NULL, a[1], "UDPSocket bind:");
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_udp_bind_host(lpn_value *a) {
    const char *what = "UDPSocket bindHost:port:";
    const char *addr = address(a[1], what);
    lpn_value r = addr ? bind_on(addr, a[2], what) : LPN_UNWIND_VALUE;
    lpnet_drop_all(a, 3);
    return r;
}

lpn_value lpn_udp_send(lpn_value *a) {
    const char *what = "sendTo:port:data:";
    lpn_value out = LPN_UNWIND_VALUE;
    int64_t port;
    const char *addr = address(a[1], what);
    if (!addr || lpnet_int(a[2], what, &port)) goto done;
    if (!(port > 0 && port < 65536)) {
        lpnet_fail("Error", "%s port %lld is not between 1 and 65535", what, (long long)port);
        goto done;
    }
    if (a[3].cls != LPN_BYTES) {
        lpn_value d = lpn_describe((lpn_dup(a[3]), a[3]));
        lpnet_fail("Error", "%s expects a ByteArray, not %s", what, ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        goto done;
    }
    lpn_bytes *b = (lpn_bytes *)lpn_ptr(a[3]);
    if (b->len > 65507) {
        lpnet_fail("LimitExceeded", "%s a datagram holds at most 65,507 bytes, not %llu", what,
                   (unsigned long long)b->len);
        goto done;
    }
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_UDP, what);
        if (!s) goto done;
        long r = lprt_udp_send(s->fd, addr, (int)port, b->data, b->len);
        int fd = s->fd;
        lpnet_done(s);
        if (r >= 0) {
            out = lpn_int(r);
            goto done;
        }
        if (r == LPRT_NET_WANT_WRITE) {
            lprt_actor *self = lpn_wait_begin();
            lprt_fd_wait(self, fd, LPRT_WRITE, -1);
            if (lpn_wait_end()) {
                out = LPN_UNWIND_VALUE;
                goto done;
            }
            continue;
        }
        char w[400];
        snprintf(w, sizeof w, "%s %s:%lld", what, addr, (long long)port);
        lpnet_os_error(r, w);
        goto done;
    }
done:
    lpnet_drop_all(a, 4);
    return out;
}

lpn_value lpn_udp_receive(lpn_value *a) {
    const char *what = "receiveFrom:";
    lpn_value out = LPN_UNWIND_VALUE;
    int64_t deadline;
    char *buf = NULL;
    if (((nsock *)lpn_ptr(a[0]))->fd < 0) {
        out = lpn_maybe_new(0, LPN_NIL_VALUE);
        goto done;
    }
    if (lpnet_deadline(a[1], what, &deadline)) goto done;
    buf = malloc(MAX_DATAGRAM);
    for (;;) {
        if (((nsock *)lpn_ptr(a[0]))->fd < 0) {   /* closed while it waited */
            out = lpn_maybe_new(0, LPN_NIL_VALUE);
            goto done;
        }
        nsock *s = lpnet_use(a[0], NS_UDP, what);
        if (!s) goto done;
        char host[64] = "";
        int port = 0;
        long r = lprt_udp_receive(s->fd, buf, MAX_DATAGRAM, host, sizeof host, &port);
        int fd = s->fd;
        lpnet_done(s);
        if (r >= 0) {
            lpn_inst *d = lpn_inst_new(lpnet_class("Datagram"), 3);
            d->field[0] = lpn_bytes_new(buf, (uint64_t)r);
            d->field[1] = lpn_str_new(host, strlen(host));
            d->field[2] = lpn_int(port);
            out = lpn_maybe_new(1, lpn_ref(d));
            goto done;
        }
        if (r == LPRT_NET_WANT_READ) {
            if (lpnet_wait(fd, r, deadline, what, a[1])) goto done;
            continue;
        }
        lpnet_os_error(r, what);
        goto done;
    }
done:
    free(buf);
    lpnet_drop_all(a, 2);
    return out;
}
