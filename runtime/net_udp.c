/* net_udp.c — non-blocking UDP sockets: bind, send one datagram, receive one.
 * Same rule as net_sock.c: a call that would block answers
 * LPRT_NET_WANT_READ / LPRT_NET_WANT_WRITE; addresses are numeric. An IPv4
 * destination on an IPv6 socket is sent as an IPv4-mapped address, and
 * mapped senders are reported as plain IPv4.                               */
#include "lprt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fill(const char *addr, int port, int family, struct sockaddr_storage *ss, socklen_t *len) {
    memset(ss, 0, sizeof *ss);
    if (port < 0 || port > 65535) return -EINVAL;
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    struct in_addr a4;
    if (!addr || !*addr) {
        if (family == AF_INET6) {
            s6->sin6_family = AF_INET6;
            s6->sin6_addr = in6addr_any;
            s6->sin6_port = htons((uint16_t)port);
            *len = sizeof *s6;
        } else {
            s4->sin_family = AF_INET;
            s4->sin_port = htons((uint16_t)port);
            *len = sizeof *s4;
        }
        return 0;
    }
    if (inet_pton(AF_INET, addr, &a4) == 1) {
        if (family == AF_INET6) { /* IPv4-mapped on a dual-stack socket */
            s6->sin6_family = AF_INET6;
            s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
            memcpy(&s6->sin6_addr.s6_addr[12], &a4, 4);
            s6->sin6_port = htons((uint16_t)port);
            *len = sizeof *s6;
        } else {
            s4->sin_family = AF_INET;
            s4->sin_addr = a4;
            s4->sin_port = htons((uint16_t)port);
            *len = sizeof *s4;
        }
        return 0;
    }
    if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        if (family != AF_INET6 && family != AF_UNSPEC) return -EAFNOSUPPORT; /* IPv6 to an IPv4 socket */
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *len = sizeof *s6;
        return 0;
    }
    return -EINVAL;
}

static int family_of(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    return getsockname(fd, (struct sockaddr *)&ss, &len) == 0 ? ss.ss_family : AF_INET;
}

int lprt_udp_bind(const char *addr, int port, int *fd) {
    struct sockaddr_storage ss;
    socklen_t len;
    *fd = -1;
    int wildcard = !addr || !*addr;
    int r = fill(addr, port, wildcard ? AF_INET6 : AF_UNSPEC, &ss, &len);
    if (r) return r;
    int s = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0 && wildcard) {
        fill(NULL, port, AF_INET, &ss, &len);
        s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
    if (s < 0) return -errno;
    int zero = 0;
    if (ss.ss_family == AF_INET6 && wildcard) setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(s, (struct sockaddr *)&ss, len) != 0) {
        int e = errno;
        close(s);
        return -e;
    }
    *fd = s;
    return 0;
}

long lprt_udp_send(int fd, const char *addr, int port, const void *data, size_t n) {
    struct sockaddr_storage ss;
    socklen_t len;
    int r = fill(addr, port, family_of(fd), &ss, &len);
    if (r) return r;
    for (;;) {
        ssize_t w = sendto(fd, data, n, MSG_NOSIGNAL, (struct sockaddr *)&ss, len);
        if (w >= 0) return (long)w;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return LPRT_NET_WANT_WRITE;
        return -errno;
    }
}

long lprt_udp_receive(int fd, void *buf, size_t cap, char *addr, size_t addr_cap, int *port) {
    struct sockaddr_storage ss;
    for (;;) {
        socklen_t len = sizeof ss;
        ssize_t n = recvfrom(fd, buf, cap, 0, (struct sockaddr *)&ss, &len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? LPRT_NET_WANT_READ : -errno;
        addr[0] = 0;
        *port = 0;
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &s4->sin_addr, addr, (socklen_t)addr_cap);
            *port = ntohs(s4->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], addr, (socklen_t)addr_cap);
            else inet_ntop(AF_INET6, &s6->sin6_addr, addr, (socklen_t)addr_cap);
            *port = ntohs(s6->sin6_port);
        }
        return (long)n;
    }
}
