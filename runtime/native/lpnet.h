/* lpnet.h — what the network primitives of native binaries (net_*.c here) share: the socket
 * values (foreign cells over the runtime's net layer, runtime/net_*.c), the library's error
 * classes, deadlines and the one wait that suspends the calling fiber (docs/native.md
 * "Network"). Every primitive takes its receiver and arguments as one array `a` (a[0] the
 * receiver) and consumes them, as lp.compiler.net emits the call. */
#ifndef LPNET_H
#define LPNET_H

#include <stdarg.h>
#include <stddef.h>

#include "../lprt.h"
#include "lpn.h"

/* A connected TCP socket (also a TLS one), a listener, a UDP socket. `busy` is taken for
   each call, so two actors never run C code on one socket at once. */
typedef struct nsock {
    lpn_foreign f;
    lprt_conn *conn;       /* NULL once closed (TCPSocket) */
    int fd;                /* the listening / UDP socket; -1 once closed */
    int port;              /* bound sockets: the local port */
    int busy;
    int reused;            /* taken from the connection pool */
    int tls;               /* a TLS handshake was begun on it */
    char *pool_key;        /* "host:port" of TCP pooledConnect:..., else NULL */
    char peer[300];        /* sockets: who it talks to; bound sockets: where they are bound */
    uint64_t owner;        /* the id of the actor that made or last used it */
    struct nsock *prev, *next;   /* every live socket (closing a killed actor's) */
} nsock;

enum { NS_TCP, NS_LISTENER, NS_UDP };
uint64_t lpnet_class(const char *name);             /* a library class id by name (Error when absent) */
lpn_value lpnet_sock_new(int kind, int fd, const char *peer); /* TCP: fd taken by a new lprt_conn */
/* The socket a[0] for `what`, marked busy; NULL with the error raised (closed, in use). */
nsock *lpnet_use(lpn_value v, int kind, const char *what);
void lpnet_done(nsock *s);

/* Raises a cls with the message and, when field is not NULL, that Integer field set to value
   (HttpWireError's status, RemoteError's code); a plain Error when the program's cls has no such
   field (a program declaring its own RemoteError without a code). */
lpn_value lpnet_fail_with(const char *cls, const char *field, int64_t value, const char *fmt, ...);
#define lpnet_fail(cls, ...) lpnet_fail_with(cls, NULL, 0, __VA_ARGS__)   /* raises a cls with the message */
/* What goes between what failed and the text: ": ", or " " after a selector's own colon. */
const char *lpnet_sep(const char *what);
lpn_value lpnet_os_error(long code, const char *what);          /* -errno as prims_net.os_error */
lpn_value lpnet_os_error_at(long code, const char *what, const char *sep, const char *peer); /* what+sep+peer */
lpn_value lpnet_tls_fail(nsock *s, const char *what);
void lpnet_ms_text(lpn_value ms, char *out, size_t cap);        /* a timeout as messages show it */
int lpnet_int(lpn_value v, const char *what, int64_t *out);     /* 0, or -1 with the error raised */
int lpnet_str(lpn_value v, const char *what, const char **out); /* borrows v */
int lpnet_deadline(lpn_value ms, const char *what, int64_t *out); /* "<what> timeout must be ..." */
int lpnet_would_block(long r);
/* r said "would block": 0 after waiting (call again), or -1 with Timeout raised
   ("<what> timed out after <ms> ms") when the deadline had passed. */
int lpnet_wait(int fd, long r, int64_t deadline, const char *what, lpn_value ms);
int lpnet_wait_or_mail(int fd, long r, int64_t deadline, const char *what, lpn_value ms);
void lpnet_drop_all(lpn_value *a, int n);
lpn_value lpnet_text(const char *p, size_t n);     /* UTF-8, else Latin-1 (header text) */
/* Writes all of data (borrows sock and ms; ms nil: no deadline): the byte count, or UNWIND. */
lpn_value lpnet_write_all(lpn_value sock, const void *data, size_t n, lpn_value ms, const char *what);
lpn_value lpnet_read_error(nsock *s, long r, const char *what, size_t limit);

/* digest.c */
void lpn_sha1(const void *data, size_t n, unsigned char out[20]);
void lpn_sha256(const void *data, size_t n, unsigned char out[32]);

/* grain_shape.c: where state (borrowed) is not of the shape text (lp/types/grain_shapes.py), as the
   message of its #badState (malloc'd); NULL when it is */
char *lpn_grain_shape_check(lpn_value state, const char *text);

#endif
