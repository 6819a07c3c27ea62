/* net_fiber.c — the socket calls for fibers: each "would block" suspends the
 * fiber on lprt_wait_fd with the caller's deadline and retries on wake; names
 * are resolved on the resolver thread. A step actor (the interpreter) does the
 * same dance itself: register the wait, return LPRT_BLOCK, call again.     */
#include "lprt.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

/* Wait for the event a "would block" code asks for: 0 ready, LPRT_NET_TIMEOUT. */
static int await_code(lprt_actor *self, int fd, long code, int64_t deadline) {
    int ev = code == LPRT_NET_WANT_WRITE ? LPRT_WRITE : LPRT_READ;
    if (deadline >= 0 && lprt_now() >= deadline) return LPRT_NET_TIMEOUT;
    return lprt_fd_wait(self, fd, ev, deadline) ? 0 : LPRT_NET_TIMEOUT;
}

static int blocked(long r) { return r == LPRT_NET_WANT_READ || r == LPRT_NET_WANT_WRITE; }

static int connect_one(lprt_actor *self, const char *addr, int port, int64_t deadline, int *fd) {
    int r = lprt_net_connect(addr, port, fd);
    while (r == LPRT_NET_WANT_WRITE) {
        if (await_code(self, *fd, r, deadline)) {
            r = LPRT_NET_TIMEOUT;
            break;
        }
        r = lprt_net_connect_result(*fd);
    }
    if (r != 0 && *fd >= 0) {
        lprt_net_close(*fd);
        *fd = -1;
    }
    return r;
}

int lprt_net_connect_wait(lprt_actor *self, const char *host, int port, int64_t deadline, int *fd) {
    *fd = -1;
    struct in6_addr probe;
    if (inet_pton(AF_INET, host, &probe) == 1 || inet_pton(AF_INET6, host, &probe) == 1)
        return connect_one(self, host, port, deadline, fd);
    if (lprt_wait_resolve(self, host, NULL, AF_UNSPEC, SOCK_STREAM, deadline) != LPRT_OK) return -ENOMEM;
    if (lprt_suspend(self) != LPRT_WAKE_RESOLVED) return LPRT_NET_TIMEOUT;
    int status = 0;
    struct addrinfo *ai = lprt_resolved(self, &status);
    if (status != 0 || !ai) {
        if (ai) freeaddrinfo(ai);
        return LPRT_NET_DNS;
    }
    int r = LPRT_NET_DNS;
    for (struct addrinfo *p = ai; p; p = p->ai_next) {
        char buf[INET6_ADDRSTRLEN];
        void *a = p->ai_family == AF_INET ? (void *)&((struct sockaddr_in *)p->ai_addr)->sin_addr
                : p->ai_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)p->ai_addr)->sin6_addr : NULL;
        if (!a || !inet_ntop(p->ai_family, a, buf, sizeof buf)) continue;
        r = connect_one(self, buf, port, deadline, fd);
        if (r == 0 || r == LPRT_NET_TIMEOUT) break;
    }
    freeaddrinfo(ai);
    return r;
}

int lprt_net_accept_wait(lprt_actor *self, int listen_fd, int64_t deadline, int *fd) {
    int r;
    while (blocked(r = lprt_net_accept(listen_fd, fd)))
        if (await_code(self, listen_fd, r, deadline)) return LPRT_NET_TIMEOUT;
    return r;
}

long lprt_conn_read_line_wait(lprt_actor *self, lprt_conn *c, size_t limit, const char **line, int64_t deadline) {
    long r;
    while (blocked(r = lprt_conn_read_line(c, limit, line)))
        if (await_code(self, lprt_conn_fd(c), r, deadline)) return LPRT_NET_TIMEOUT;
    return r;
}

long lprt_conn_read_exact_wait(lprt_actor *self, lprt_conn *c, size_t n, const char **out, int64_t deadline) {
    long r;
    while (blocked(r = lprt_conn_read_exact(c, n, out)))
        if (await_code(self, lprt_conn_fd(c), r, deadline)) return LPRT_NET_TIMEOUT;
    return r;
}

long lprt_conn_write_all_wait(lprt_actor *self, lprt_conn *c, const void *data, size_t n, int64_t deadline) {
    size_t off = 0;
    while (off < n) {
        long r = lprt_conn_write(c, (const char *)data + off, n - off);
        if (r > 0) off += (size_t)r;
        else if (blocked(r)) {
            if (await_code(self, lprt_conn_fd(c), r, deadline)) return LPRT_NET_TIMEOUT;
        } else return r;
    }
    return (long)n;
}
