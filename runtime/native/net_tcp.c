/* net_tcp.c — TCP for native binaries: `TCP connect:port:timeout:`, `listen:`, `listenHost:port:`,
 * listeners and sockets (lp/interp/prims_net.py is the interpreter's side; the messages are
 * the same). Every call goes to the runtime's non-blocking layer (runtime/net_sock.c,
 * net_conn.c); "would block" suspends the calling fiber on the fd with its deadline. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lpnet.h"

/* ---- shared helpers (lpnet.h) ---------------------------------------------------------- */

uint64_t lpnet_class(const char *name) {
    for (uint64_t i = 0; i < lpn_prog.nclasses; i++)
        if (lpn_prog.class_names[i] && !strcmp(lpn_prog.class_names[i], name)) return i;
    return lpn_prog.error_class;
}

static uint64_t sock_classes[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
static const char *const sock_names[3] = {"TCPSocket", "TCPListener", "UDPSocket"};

/* Every live socket, so that those a killed actor was using are closed (its frames' values
   are released without being dropped: docs/native.md "Actors"). */
static nsock *live;
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t running_actor(void) {
    lprt_actor *a = lprt_self();
    return a ? lprt_id(a) : 0;
}

static void close_abandoned(uint64_t id) {
    pthread_mutex_lock(&live_mu);
    for (nsock *s = live; s; s = s->next) {
        if (s->owner != id) continue;
        if (s->conn) lprt_conn_free(s->conn);
        else if (s->fd >= 0) lprt_net_close(s->fd);
        s->conn = NULL;
        s->fd = -1;
    }
    pthread_mutex_unlock(&live_mu);
}

static void sock_fin(lpn_foreign *f) {
    nsock *s = (nsock *)f;
    pthread_mutex_lock(&live_mu);
    if (s->prev) s->prev->next = s->next;
    else live = s->next;
    if (s->next) s->next->prev = s->prev;
    pthread_mutex_unlock(&live_mu);
    if (s->conn) lprt_conn_free(s->conn);
    if (s->fd >= 0 && !s->conn) lprt_net_close(s->fd);
    free(s->pool_key);
}
static int sock_print(lpn_foreign *f, char *buf, size_t cap) {
    return snprintf(buf, cap, "a %s", lpn_prog.class_names[f->h.cls]);
}
static uint64_t sock_identity(lpn_foreign *f) { return (uint64_t)(uintptr_t)f; }
static const lpn_foreign_ops sock_ops = {sock_fin, sock_print, sock_identity, 0};

lpn_value lpnet_sock_new(int kind, int fd, const char *peer) {
    if (sock_classes[kind] == UINT64_MAX) sock_classes[kind] = lpnet_class(sock_names[kind]);
    nsock *s = lpn_alloc((uint32_t)sock_classes[kind], sizeof *s);
    s->f.h.rc = -1;   /* shared from birth: sockets are handed to other actors */
    s->f.nfields = LPN_FOREIGN;
    s->f.ops = &sock_ops;
    s->conn = NULL;
    s->fd = fd;
    s->port = 0;
    s->busy = 0;
    s->reused = 0;
    s->tls = 0;
    s->pool_key = NULL;
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    s->owner = running_actor();
    lpn_abandoned_hook = close_abandoned;
    pthread_mutex_lock(&live_mu);
    s->prev = NULL;
    s->next = live;
    if (live) live->prev = s;
    live = s;
    pthread_mutex_unlock(&live_mu);
    if (kind == NS_TCP) {
        s->conn = lprt_conn_new(fd);
        if (!s->conn) {
            lprt_net_close(fd);
            abort();
        }
        s->fd = -1;
    } else s->port = lprt_net_local_port(fd);
    return lpn_ref(s);
}

nsock *lpnet_use(lpn_value v, int kind, const char *what) {
    nsock *s = (nsock *)lpn_ptr(v);
    if (kind == NS_TCP ? !s->conn : s->fd < 0) {
        lpnet_fail("NetworkError", "%s%sthe socket is closed", what, lpnet_sep(what));
        return NULL;
    }
    if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQ_REL)) {
        lpnet_fail("NetworkError", "%s%sthe socket is in use by another actor", what, lpnet_sep(what));
        return NULL;
    }
    s->owner = running_actor();
    return s;
}

void lpnet_done(nsock *s) { __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE); }

lpn_value lpnet_fail_with(const char *cls, const char *field, int64_t value, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    uint64_t c = lpnet_class(cls);
    lpn_value e = lpn_error_new(c, lpnet_text(buf, (size_t)n));
    if (!field) return lpn_raise_value(e);
    lpn_inst *in = (lpn_inst *)lpn_ptr(e);
    for (uint64_t i = 0; i < in->nfields; i++)
        if (!strcmp(lpn_prog.field_names[c][i], field)) {
            in->field[i] = lpn_int(value);
            return lpn_raise_value(e);
        }
    lpn_drop(e);
    return lpn_raise("%s", buf);
}

const char *lpnet_sep(const char *what) {
    size_t n = strlen(what);
    return n && what[n - 1] == ':' ? " " : ": ";
}

lpn_value lpnet_os_error(long code, const char *what) {
    int e = (int)-code;
    const char *text = strerror(e);
    if (e == ECONNREFUSED) return lpnet_fail("ConnectionRefused", "%s%sconnection refused", what, lpnet_sep(what));
    if (e == ECONNRESET || e == EPIPE || e == ECONNABORTED)
        return lpnet_fail("ConnectionReset", "%s%sconnection reset by the peer (%s)", what, lpnet_sep(what), text);
    if (e == ETIMEDOUT) return lpnet_fail("Timeout", "%s%sthe network timed out (%s)", what, lpnet_sep(what), text);
    return lpnet_fail("NetworkError", "%s%s%s", what, lpnet_sep(what), text);
}

lpn_value lpnet_os_error_at(long code, const char *what, const char *sep, const char *peer) {
    char w[400];
    snprintf(w, sizeof w, "%s%s%s", what, sep, peer);
    return lpnet_os_error(code, w);
}

lpn_value lpnet_tls_fail(nsock *s, const char *what) {
    return lpnet_fail("TLSError", "%s %s: %s", what, s->peer, lprt_tls_error(s->conn));
}

void lpnet_ms_text(lpn_value ms, char *out, size_t cap) {
    if (ms.cls == LPN_INT) {
        long long n = (long long)(int64_t)ms.bits;
        snprintf(out, cap, "%lld", n > 0 ? n : 0);
        return;
    }
    double d = lpn_f(ms);
    if (!(d > 0)) d = 0;
    if (d == (double)(int64_t)d && d < 9e18) {
        snprintf(out, cap, "%lld", (long long)d);
        return;
    }
    lpn_value t = lpn_print_string(lpn_float(d));
    snprintf(out, cap, "%s", ((lpn_str *)lpn_ptr(t))->data);
    lpn_drop(t);
}

static lpn_value describe_fail(lpn_value v, const char *fmt_what, const char *what, const char *kind) {
    lpn_value d = lpn_describe((lpn_dup(v), v));
    lpn_value r = lpnet_fail("Error", fmt_what, what, kind, ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return r;
}

int lpnet_int(lpn_value v, const char *what, int64_t *out) {
    if (v.cls != LPN_INT) {
        describe_fail(v, "%s expects %s, not %s", what, "an Integer");
        return -1;
    }
    *out = (int64_t)v.bits;
    return 0;
}

int lpnet_str(lpn_value v, const char *what, const char **out) {
    if (v.cls != LPN_STRING) {
        describe_fail(v, "%s expects %s, not %s", what, "a String");
        return -1;
    }
    *out = ((lpn_str *)lpn_ptr(v))->data;
    return 0;
}

int lpnet_deadline(lpn_value ms, const char *what, int64_t *out) {
    char w[256];
    snprintf(w, sizeof w, "%s timeout", what);
    int bad;
    *out = lpn_deadline_of(ms, w, &bad);
    return bad ? -1 : 0;
}

int lpnet_would_block(long r) { return r == LPRT_NET_WANT_READ || r == LPRT_NET_WANT_WRITE; }

static int wait_fd(int fd, long r, int64_t deadline, const char *what, lpn_value ms, int mail) {
    if (deadline != -1 && lprt_now() >= deadline) {
        char t[64];
        lpnet_ms_text(ms, t, sizeof t);
        lpnet_fail("Timeout", "%s timed out after %s ms", what, t);
        return -1;
    }
    lprt_actor *self = lpn_wait_begin();
    int events = r == LPRT_NET_WANT_WRITE ? LPRT_WRITE : LPRT_READ;
    if (mail) {
        lprt_wait_fd_or_receive(self, fd, events, 0, deadline);
        lprt_suspend(self);
    } else {
        lprt_fd_wait(self, fd, events, deadline);
    }
    return lpn_wait_end() ? -1 : 0;
}

int lpnet_wait(int fd, long r, int64_t deadline, const char *what, lpn_value ms) {
    return wait_fd(fd, r, deadline, what, ms, 0);
}

/* lpnet_wait that also ends when a message reaches the running actor's mailbox. */
int lpnet_wait_or_mail(int fd, long r, int64_t deadline, const char *what, lpn_value ms) {
    return wait_fd(fd, r, deadline, what, ms, 1);
}

void lpnet_drop_all(lpn_value *a, int n) {
    for (int i = 0; i < n; i++) lpn_drop(a[i]);
}

lpn_value lpnet_text(const char *p, size_t n) {
    if (lpn_utf8_valid(p, n)) return lpn_str_new(p, n);
    char *u = malloc(2 * n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x80) u[k++] = (char)c;
        else {
            u[k++] = (char)(0xC0 | (c >> 6));
            u[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    lpn_value r = lpn_str_new(u, k);
    free(u);
    return r;
}

lpn_value lpnet_read_error(nsock *s, long r, const char *what, size_t limit) {
    if (r == LPRT_NET_EOF) return lpn_maybe_new(0, LPN_NIL_VALUE);
    if (r == LPRT_NET_TOO_LONG) return lpnet_fail("LimitExceeded", "%s%sthe line is longer than %zu bytes", what,
                                                lpnet_sep(what), limit);
    if (r == LPRT_NET_TRUNCATED)
        return lpnet_fail("ConnectionClosed", "%s%sthe peer (%s) closed the connection in the middle of the data",
                          what, lpnet_sep(what), s->peer);
    if (r == LPRT_NET_TLS) return lpnet_tls_fail(s, what);
    return lpnet_os_error_at(r, what, " from ", s->peer);
}

/* ---- connecting ------------------------------------------------------------------------ */

static int numeric(const char *host) {
    struct in6_addr probe;
    return inet_pton(AF_INET, host, &probe) == 1 || inet_pton(AF_INET6, host, &probe) == 1;
}

/* Tries each address in turn within the deadline: the socket, or UNWIND with the error raised
   (the last address's, or Timeout at once). */
static lpn_value connect_addrs(char **addrs, int n, const char *host, int64_t port, int64_t deadline,
                               lpn_value ms) {
    char where[400], t[64];
    snprintf(where, sizeof where, "connect to %s:%lld", host, (long long)port);
    int have_error = 0;
    lpn_saved *last = NULL;
    for (int i = 0; i < n; i++) {
        int fd = -1;
        int r = lprt_net_connect(addrs[i], (int)port, &fd);
        while (r == LPRT_NET_WANT_WRITE) {
            if (deadline != -1 && lprt_now() >= deadline) {
                lprt_net_close(fd);
                if (last) lpn_unwind_discard(last);
                lpnet_ms_text(ms, t, sizeof t);
                return lpnet_fail("Timeout", "%s timed out after %s ms", where, t);
            }
            lprt_actor *self = lpn_wait_begin();
            lprt_fd_wait(self, fd, LPRT_WRITE, deadline);
            if (lpn_wait_end()) {
                lprt_net_close(fd);
                if (last) lpn_unwind_discard(last);
                return LPN_UNWIND_VALUE;
            }
            r = lprt_net_connect_result(fd);
        }
        if (r == 0) {
            if (last) lpn_unwind_discard(last);
            char peer[300];
            snprintf(peer, sizeof peer, "%s:%lld", host, (long long)port);
            return lpnet_sock_new(NS_TCP, fd, peer);
        }
        if (fd >= 0) lprt_net_close(fd);
        if (last) lpn_unwind_discard(last);
        lpnet_os_error(r, where);
        last = lpn_unwind_save();
        have_error = 1;
    }
    if (have_error) return lpn_unwind_restore(last);
    return lpnet_fail("DNSError", "cannot resolve host '%s': no address", host);
}

static lpn_value tcp_connect(lpn_value *a, int pooled) {
    const char *what = pooled ? "TCP pooledConnect:port:timeout:" : "TCP connect:port:timeout:";
    const char *host;
    int64_t port, deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    if (lpnet_str(a[1], what, &host) || lpnet_int(a[2], what, &port)) goto done;
    if (!(port > 0 && port < 65536)) {
        lpnet_fail("Error", "%s%sport %lld is not between 1 and 65535", what, lpnet_sep(what), (long long)port);
        goto done;
    }
    if (lpnet_deadline(a[3], what, &deadline)) goto done;
    if (numeric(host)) {
        char *one[1] = {(char *)host};
        out = connect_addrs(one, 1, host, port, deadline, a[3]);
        goto done;
    }
    lprt_actor *self = lpn_wait_begin();
    int ok = lprt_wait_resolve(self, host, NULL, AF_UNSPEC, SOCK_STREAM, deadline) == LPRT_OK;
    int reason = ok ? lprt_suspend(self) : 0;
    if (lpn_wait_end()) {
        out = LPN_UNWIND_VALUE;
        goto done;
    }
    char t[64];
    if (!ok) {
        out = lpnet_fail("NetworkError", "connect to %s:%lld: cannot resolve the name", host, (long long)port);
        goto done;
    }
    if (reason != LPRT_WAKE_RESOLVED) {
        lpnet_ms_text(a[3], t, sizeof t);
        out = lpnet_fail("Timeout", "connect to %s:%lld timed out after %s ms (resolving the name)", host,
                         (long long)port, t);
        goto done;
    }
    int status = 0;
    struct addrinfo *ai = lprt_resolved(self, &status);
    if (status != 0 || !ai) {
        if (ai) freeaddrinfo(ai);
        out = lpnet_fail("DNSError", "cannot resolve host '%s': %s", host, status ? gai_strerror(status) : "no address");
        goto done;
    }
    char *addrs[64];
    char bufs[64][INET6_ADDRSTRLEN];
    int n = 0;
    for (struct addrinfo *p = ai; p && n < 64; p = p->ai_next) {
        void *ad = p->ai_family == AF_INET ? (void *)&((struct sockaddr_in *)p->ai_addr)->sin_addr
                 : p->ai_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)p->ai_addr)->sin6_addr : NULL;
        if (!ad || !inet_ntop(p->ai_family, ad, bufs[n], sizeof bufs[n])) continue;
        int dup = 0;
        for (int k = 0; k < n; k++) dup |= !strcmp(bufs[k], bufs[n]);
        if (!dup) {
            addrs[n] = bufs[n];
            n++;
        }
    }
    freeaddrinfo(ai);
    out = connect_addrs(addrs, n, host, port, deadline, a[3]);
done:
    lpnet_drop_all(a, 4);
    return out;
}

lpn_value lpn_tcp_connect(lpn_value *a) { return tcp_connect(a, 0); }

/* ---- the connection pool (prims_pool.py): idle sockets by "host:port", 8 each at most ---- */

enum { POOL_MAX_IDLE = 8 };
typedef struct pool_entry { char *key; nsock *idle[POOL_MAX_IDLE]; int n; struct pool_entry *next; } pool_entry;
static pool_entry *pool;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

static pool_entry *pool_find(const char *key, int create) {
    for (pool_entry *e = pool; e; e = e->next)
        if (!strcmp(e->key, key)) return e;
    if (!create) return NULL;
    pool_entry *e = calloc(1, sizeof *e);
    e->key = strdup(key);
    e->next = pool;
    pool = e;
    return e;
}

lpn_value lpn_tcp_pooled_connect(lpn_value *a) {
    const char *what = "TCP pooledConnect:port:timeout:";
    const char *host;
    int64_t port;
    if (lpnet_str(a[1], what, &host) || lpnet_int(a[2], what, &port)) {
        lpnet_drop_all(a, 4);
        return LPN_UNWIND_VALUE;
    }
    char key[400];
    snprintf(key, sizeof key, "%s:%lld", host, (long long)port);
    for (;;) {
        nsock *s = NULL;
        pthread_mutex_lock(&pool_mu);
        pool_entry *e = pool_find(key, 0);
        if (e && e->n) s = e->idle[--e->n];
        pthread_mutex_unlock(&pool_mu);
        if (!s) break;
        if (s->conn && !s->busy && lprt_conn_reusable(s->conn)) {
            s->reused = 1;
            lpnet_drop_all(a, 4);
            return lpn_ref(s);
        }
        if (s->conn) {
            lprt_conn_free(s->conn);
            s->conn = NULL;
        }
        lpn_drop(lpn_ref(s));
    }
    lpn_value r = tcp_connect(a, 1);
    if (r.cls != LPN_UNWIND) ((nsock *)lpn_ptr(r))->pool_key = strdup(key);
    return r;
}

lpn_value lpn_tcp_release(lpn_value *a) {
    nsock *s = (nsock *)lpn_ptr(a[0]);
    if (__atomic_load_n(&s->busy, __ATOMIC_ACQUIRE)) {
        lpn_drop(a[0]);
        return lpnet_fail("NetworkError", "release: the socket is in use by another actor");
    }
    if (!s->conn || !s->pool_key) {
        if (s->conn) lprt_conn_free(s->conn);
        s->conn = NULL;
        lpn_drop(a[0]);
        return LPN_NIL_VALUE;
    }
    pthread_mutex_lock(&pool_mu);
    pool_entry *e = pool_find(s->pool_key, 1);
    int keep = e->n < POOL_MAX_IDLE;
    for (int i = 0; i < e->n; i++) keep &= e->idle[i] != s;
    if (keep) e->idle[e->n++] = s;   /* the pool keeps the reference a[0] held */
    pthread_mutex_unlock(&pool_mu);
    if (!keep) {
        lprt_conn_free(s->conn);
        s->conn = NULL;
        lpn_drop(a[0]);
    }
    return LPN_NIL_VALUE;
}

lpn_value lpn_tcp_is_reused(lpn_value *a) {
    int r = ((nsock *)lpn_ptr(a[0]))->reused;
    lpn_drop(a[0]);
    return lpn_bool(r);
}

/* ---- listening ------------------------------------------------------------------------- */

static lpn_value listen_on(lpn_value *a, int with_host, const char *what) {
    const char *addr = NULL;
    int64_t port;
    lpn_value out = LPN_UNWIND_VALUE;
    lpn_value pv = a[with_host ? 2 : 1];
    if (lpnet_int(pv, what, &port)) goto done;
    if (!(port >= 0 && port < 65536)) {
        lpnet_fail("Error", "%s%sport %lld is not between 0 and 65535", what, lpnet_sep(what), (long long)port);
        goto done;
    }
    if (with_host) {
        if (lpnet_str(a[1], what, &addr)) goto done;
        if (!strcmp(addr, "localhost")) addr = "127.0.0.1";
        if (!numeric(addr)) {
            lpnet_fail("Error", "%s needs a numeric local address such as 127.0.0.1 or ::1, not '%s'", what, addr);
            goto done;
        }
    }
    char where[300];
    snprintf(where, sizeof where, "%s:%lld", addr ? addr : "*", (long long)port);
    int fd = -1;
    int r = lprt_net_listen(addr, (int)port, 1024, &fd);
    if (r != 0) {
        char w[400];
        if (-r == EADDRINUSE) lpnet_fail("NetworkError", "cannot listen on %s: the address is already in use", where);
        else {
            snprintf(w, sizeof w, "cannot listen on %s", where);
            lpnet_os_error(r, w);
        }
        goto done;
    }
    snprintf(where, sizeof where, "%s:%d", addr ? addr : "*", lprt_net_local_port(fd));   /* the port 0 picked */
    out = lpnet_sock_new(NS_LISTENER, fd, where);
done:
    lpnet_drop_all(a, with_host ? 3 : 2);
    return out;
}

lpn_value lpn_tcp_listen(lpn_value *a) { return listen_on(a, 0, "TCP listen:"); }
lpn_value lpn_tcp_listen_host(lpn_value *a) { return listen_on(a, 1, "TCP listenHost:port:"); }

lpn_value lpn_bound_port(lpn_value *a) {
    int p = ((nsock *)lpn_ptr(a[0]))->port;
    lpn_drop(a[0]);
    return lpn_int(p);
}

lpn_value lpn_bound_close(lpn_value *a) {
    nsock *s = (nsock *)lpn_ptr(a[0]);
    lpn_value out = LPN_NIL_VALUE;
    if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQ_REL)) {
        int listener = a[0].cls == sock_classes[NS_LISTENER];
        out = lpnet_fail("NetworkError", "close: the %s is in use by another actor", listener ? "listener" : "socket");
    } else {
        if (s->fd >= 0) lprt_net_close(s->fd);
        s->fd = -1;
        lpnet_done(s);
    }
    lpn_drop(a[0]);
    return out;
}

lpn_value lpn_tcp_accept(lpn_value *a) {
    const char *what = "accept:";
    int64_t deadline;
    lpn_value out = LPN_UNWIND_VALUE;
    if (lpnet_deadline(a[1], what, &deadline)) goto done;
    for (;;) {
        nsock *s = lpnet_use(a[0], NS_LISTENER, what);
        if (!s) goto done;
        int fd = -1;
        int r = lprt_net_accept(s->fd, &fd);
        lpnet_done(s);
        if (r == 0) {
            char peer[320];
            snprintf(peer, sizeof peer, "a client of %s", s->peer);
            out = lpnet_sock_new(NS_TCP, fd, peer);
            goto done;
        }
        if (r != LPRT_NET_WANT_READ) {
            lpnet_os_error(r, what);
            goto done;
        }
        if (lpnet_wait(s->fd, r, deadline, what, a[1])) goto done;
    }
done:
    lpnet_drop_all(a, 2);
    return out;
}

/* ---- reading --------------------------------------------------------------------------- */

/* One read of the C layer, repeated while it would block: `read(conn, arg, &p)`. */
typedef long (*read_fn)(lprt_conn *c, size_t arg, const char **out);

static long read_waiting(lpn_value sv, read_fn read, size_t arg, const char **p, int64_t deadline,
                         const char *what, lpn_value ms, nsock **sp) {
    for (;;) {
        nsock *s = lpnet_use(sv, NS_TCP, what);
        if (!s) return LPRT_NET_TIMEOUT;   /* raised */
        *sp = s;
        long r = read(s->conn, arg, p);
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (!lpnet_would_block(r)) return r;
        if (lpnet_wait(fd, r, deadline, what, ms)) return LPRT_NET_TIMEOUT;
    }
}

static lpn_value read_line(lpn_value *a, size_t limit, lpn_value ms, const char *what) {
    int64_t deadline;
    const char *p;
    nsock *s = NULL;
    if (lpnet_deadline(ms, what, &deadline)) return LPN_UNWIND_VALUE;
    long r = read_waiting(a[0], lprt_conn_read_line, limit, &p, deadline, what, ms, &s);
    if (r == LPRT_NET_TIMEOUT) return LPN_UNWIND_VALUE;
    if (r >= 0) return lpn_maybe_new(1, lpn_str_new(p, (uint64_t)r)); /* lprt_conn_read_line checked it */
    if (r == LPRT_NET_NOT_TEXT)
        return lpnet_fail("NetworkError", "%s%sthe line is not UTF-8 text (it is still unread: read it with readBytes:timeout:)",
                          what, lpnet_sep(what));
    return lpnet_read_error(s, r, what, limit);
}

lpn_value lpn_tcp_read_line(lpn_value *a) {
    lpn_value r = read_line(a, 65536, a[1], "readLine:");
    lpnet_drop_all(a, 2);
    return r;
}

lpn_value lpn_tcp_read_line_limit(lpn_value *a) {
    const char *what = "readLine:limit:";
    int64_t limit;
    lpn_value r = LPN_UNWIND_VALUE;
    if (lpnet_int(a[2], what, &limit)) goto done;
    if (!(limit > 0 && limit <= (1 << 30))) {
        lpnet_fail("Error", "readLine:limit: the limit must be between 1 and 2^30, not %lld", (long long)limit);
        goto done;
    }
    r = read_line(a, (size_t)limit, a[1], what);
done:
    lpnet_drop_all(a, 3);
    return r;
}

lpn_value lpn_tcp_read_bytes(lpn_value *a) {
    const char *what = "readBytes:timeout:";
    int64_t n, deadline;
    const char *p;
    nsock *s = NULL;
    lpn_value out = LPN_UNWIND_VALUE;
    if (lpnet_int(a[1], what, &n)) goto done;
    if (!(n > 0 && n <= (1 << 30))) {
        lpnet_fail("Error", "%s the count must be between 1 and 2^30, not %lld", what, (long long)n);
        goto done;
    }
    if (lpnet_deadline(a[2], what, &deadline)) goto done;
    long r = read_waiting(a[0], lprt_conn_read_exact, (size_t)n, &p, deadline, what, a[2], &s);
    if (r == LPRT_NET_TIMEOUT) goto done;
    out = r >= 0 ? lpn_maybe_new(1, lpn_bytes_new(p, (uint64_t)r)) : lpnet_read_error(s, r, what, 0);
done:
    lpnet_drop_all(a, 3);
    return out;
}

/* ---- writing --------------------------------------------------------------------------- */

lpn_value lpnet_write_all(lpn_value sock, const void *data, size_t n, lpn_value ms, const char *what) {
    int64_t deadline = -1;
    if (ms.cls != LPN_NIL && lpnet_deadline(ms, what, &deadline)) return LPN_UNWIND_VALUE;
    size_t off = 0;
    long r = 0;
    while (off < n) {
        nsock *s = lpnet_use(sock, NS_TCP, what);
        if (!s) return LPN_UNWIND_VALUE;
        while (off < n) {
            r = lprt_conn_write(s->conn, (const char *)data + off, n - off);
            if (r <= 0) break;
            off += (size_t)r;
        }
        int fd = lprt_conn_fd(s->conn);
        lpnet_done(s);
        if (off >= n) break;
        if (lpnet_would_block(r)) {
            if (lpnet_wait(fd, r, deadline, what, ms)) return LPN_UNWIND_VALUE;
            continue;
        }
        if (r == LPRT_NET_TLS) return lpnet_tls_fail(s, what);
        return lpnet_os_error_at(r, what, " to ", s->peer);
    }
    return lpn_int((int64_t)n);
}

static lpn_value write_value(lpn_value *a, int has_ms, int bytes, const char *what) {
    lpn_value data = a[1], out;
    if (bytes ? data.cls != LPN_BYTES : data.cls != LPN_STRING) {
        describe_fail(data, "%s expects %s, not %s", what, bytes ? "a ByteArray" : "a String");
        out = LPN_UNWIND_VALUE;
    } else if (bytes) {
        lpn_bytes *b = (lpn_bytes *)lpn_ptr(data);
        out = lpnet_write_all(a[0], b->data, b->len, has_ms ? a[2] : LPN_NIL_VALUE, what);
    } else {
        lpn_str *t = (lpn_str *)lpn_ptr(data);
        out = lpnet_write_all(a[0], t->data, t->len, has_ms ? a[2] : LPN_NIL_VALUE, what);
    }
    lpnet_drop_all(a, has_ms ? 3 : 2);
    return out;
}

lpn_value lpn_tcp_write(lpn_value *a) { return write_value(a, 0, 0, "write:"); }
lpn_value lpn_tcp_write_timeout(lpn_value *a) { return write_value(a, 1, 0, "write:timeout:"); }
lpn_value lpn_tcp_write_bytes(lpn_value *a) { return write_value(a, 0, 1, "writeBytes:"); }
lpn_value lpn_tcp_write_bytes_timeout(lpn_value *a) { return write_value(a, 1, 1, "writeBytes:timeout:"); }

lpn_value lpn_tcp_close(lpn_value *a) {
    nsock *s = (nsock *)lpn_ptr(a[0]);
    lpn_value out = LPN_NIL_VALUE;
    if (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQ_REL))
        out = lpnet_fail("NetworkError", "close: the socket is in use by another actor");
    else {
        if (s->conn) lprt_conn_free(s->conn);
        s->conn = NULL;
        lpnet_done(s);
    }
    lpn_drop(a[0]);
    return out;
}

lpn_value lpn_tcp_is_closed(lpn_value *a) {
    int r = ((nsock *)lpn_ptr(a[0]))->conn == NULL;
    lpn_drop(a[0]);
    return lpn_bool(r);
}
