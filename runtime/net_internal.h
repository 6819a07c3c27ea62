/* net_internal.h — the buffered connection's insides, shared by net_conn.c and
 * the protocol framing that reads from its buffer (net_http.c). */
#ifndef LPRT_NET_INTERNAL_H
#define LPRT_NET_INTERNAL_H

#include "lprt.h"

#include <stddef.h>

struct lprt_conn {
    int fd;
    int eof;  /* the peer's end of stream was seen */
    int err;  /* a sticky -errno from recv */
    char *buf; /* bytes received, not handed out: [start, end) of cap */
    size_t start, end, cap;
    void *ssl;        /* SSL * once lprt_tls_start made it a TLS connection */
    char tls_err[160]; /* the last TLS failure's reason */
};

/* TLS transport (net_tls.c), used by net_conn.c once c->ssl is set:
   > 0 bytes, 0 at end of stream, or a code. */
long lprt__tls_recv(lprt_conn *c, char *buf, size_t n);
long lprt__tls_send(lprt_conn *c, const void *data, size_t n);
void lprt__tls_free(lprt_conn *c);

/* One recv of at most `room` more bytes into the buffer: > 0 bytes, 0 at EOF,
   LPRT_NET_WANT_READ or -errno. May move the buffered bytes. */
long lprt__conn_recv(lprt_conn *c, size_t room);
/* *out = the buffered bytes' start; consume `consumed` of them; answers n. */
long lprt__conn_hand_out(lprt_conn *c, size_t n, size_t consumed, const char **out);

#endif
