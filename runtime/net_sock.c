/* net_sock.c — non-blocking TCP sockets: connect, listen, accept, close.
 *
 * Nothing here waits: a call that would block answers LPRT_NET_WANT_READ /
 * LPRT_NET_WANT_WRITE and the caller waits for the fd with lprt_wait_fd (its
 * deadline included) before calling again. Addresses are numeric; names are
 * resolved on the resolver thread first (lprt_wait_resolve). Every connected
 * socket gets TCP_NODELAY: request/response protocols write small segments,
 * and Nagle + delayed ACK would add ~40 ms to each round trip.              */
#include "lprt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void set_nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Fills *ss from a numeric address; addr NULL/"" is the wildcard of `family`. */
static int make_addr(const char *addr, int port, int family, struct sockaddr_storage *ss, socklen_t *len) {
    memset(ss, 0, sizeof *ss);
    if (port < 0 || port > 65535) return -EINVAL;
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (!addr || !*addr) {
        if (family == AF_INET6) {
            s6->sin6_family = AF_INET6;
            s6->sin6_addr = in6addr_any;
            s6->sin6_port = htons((uint16_t)port);
            *len = sizeof *s6;
        } else {
            s4->sin_family = AF_INET;
            s4->sin_addr.s_addr = htonl(INADDR_ANY);
            s4->sin_port = htons((uint16_t)port);
            *len = sizeof *s4;
        }
        return 0;
    }
    if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        *len = sizeof *s4;
        return 0;
    }
    if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof *s6;
        return 0;
    }
    return -EINVAL;
}

int lprt_net_connect(const char *addr, int port, int *fd) {
    struct sockaddr_storage ss;
    socklen_t len;
    *fd = -1;
    int r = make_addr(addr, port, AF_INET, &ss, &len);
    if (r) return r;
    int s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return -errno;
    set_nodelay(s);
    *fd = s;
    if (connect(s, (struct sockaddr *)&ss, len) == 0) return 0;
    if (errno == EINPROGRESS || errno == EAGAIN) return LPRT_NET_WANT_WRITE;
    return -errno;
}

int lprt_net_connect_result(int fd) {
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) return -errno;
    if (err == EINPROGRESS) return LPRT_NET_WANT_WRITE;
    return -err;
}

int lprt_net_listen(const char *addr, int port, int backlog, int *fd) {
    struct sockaddr_storage ss;
    socklen_t len;
    *fd = -1;
    int wildcard = !addr || !*addr;
    int r = make_addr(addr, port, AF_INET6, &ss, &len);
    if (r) return r;
    int s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0 && wildcard && (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT)) {
        make_addr(NULL, port, AF_INET, &ss, &len); /* no IPv6: IPv4 wildcard */
        s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
    if (s < 0) return -errno;
    int one = 1, zero = 0;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6 && wildcard) setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(s, (struct sockaddr *)&ss, len) != 0 || listen(s, backlog > 0 ? backlog : 128) != 0) {
        int e = errno;
        close(s);
        return -e;
    }
    *fd = s;
    return 0;
}

int lprt_net_local_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) return -errno;
    if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return -EAFNOSUPPORT;
}

int lprt_net_accept(int listen_fd, int *fd) {
    *fd = -1;
    for (;;) {
        int s = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (s >= 0) {
            set_nodelay(s);
            *fd = s;
            return 0;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LPRT_NET_WANT_READ;
        /* the peer gave up before we took it: try the next one */
        if (errno == ECONNABORTED || errno == EPROTO || errno == EINTR) continue;
        return -errno;
    }
}

int lprt_net_close(int fd) { return close(fd) == 0 ? 0 : -errno; }
