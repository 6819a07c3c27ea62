/* t_net.c — the socket layer (net_sock.c, net_conn.c, net_fiber.c) on the
 * scheduler: echo over loopback through fibers (lines with \n and \r\n, a
 * last line without newline, clean EOF), TCP_NODELAY on both ends, a 4 MB
 * transfer that fills the socket buffers (writers park on WANT_WRITE),
 * exact reads and truncation, over-long lines, refused connections, read
 * deadlines, a name that does not resolve, port 0 and two listeners sharing a
 * port on different addresses, a step actor that blocks and retries, and
 * UDP datagrams both ways (IPv4 and dual-stack sockets, receive deadlines). */
#include "harness.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

static int nodelay(int fd) {
    int v = 0;
    socklen_t l = sizeof v;
    CHECK(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &l) == 0);
    return v;
}

static int listen_any(int *port) {
    int fd;
    CHECK(lprt_net_listen("127.0.0.1", 0, 16, &fd) == 0);
    *port = lprt_net_local_port(fd);
    CHECK(*port > 0);
    return fd;
}

#define BIG (4 << 20)

typedef struct {
    int lfd, port;
    lprt_actor *main;
} srv_arg;

/* server: echoes lines, then serves one big exact-read test */
static void echo_server(lprt_actor *self, void *ud) {
    srv_arg *s = ud;
    int fd;
    CHECK(lprt_net_accept_wait(self, s->lfd, lprt_deadline_ms(5000), &fd) == 0);
    CHECK(nodelay(fd));
    lprt_conn *c = lprt_conn_new(fd);
    const char *line;
    long n;
    while ((n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000))) >= 0) {
        char out[80];
        memcpy(out, line, (size_t)n);
        out[n] = '\n';
        CHECK(lprt_conn_write_all_wait(self, c, out, (size_t)n + 1, lprt_deadline_ms(5000)) == n + 1);
        if (n == 3 && memcmp(line, "big", 3) == 0) break;
    }
    /* BIG bytes in exact reads of 100000, checked */
    long got = 0;
    const char *p;
    while ((n = lprt_conn_read_exact_wait(self, c, 100000, &p, lprt_deadline_ms(10000))) > 0) {
        for (long i = 0; i < n; i++) CHECK(p[i] == (char)((got + i) * 13));
        got += n;
    }
    CHECK(n == LPRT_NET_TRUNCATED);   /* BIG is not a multiple of 100000 */
    CHECK(got == BIG / 100000 * 100000);
    lprt_conn_free(c);
    lprt_send(s->main, VAL(got));
}

static void client(lprt_actor *self, srv_arg *s, const char *host) {
    int fd;
    CHECK(lprt_net_connect_wait(self, host, s->port, lprt_deadline_ms(5000), &fd) == 0);
    CHECK(nodelay(fd));
    lprt_conn *c = lprt_conn_new(fd);
    const char *msgs = "hello\r\nworld\n\nlast";
    CHECK(lprt_conn_write_all_wait(self, c, msgs, strlen(msgs), -1) == (long)strlen(msgs));
    const char *want[] = {"hello", "world", "", "last"};
    const char *line;
    for (int i = 0; i < 3; i++) {
        long n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000));
        CHECK(n == (long)strlen(want[i]) && memcmp(line, want[i], (size_t)n) == 0);
    }
    /* "last" has no newline yet: the read waits and times out */
    int64_t t0 = lprt_now();
    CHECK(lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(30)) == LPRT_NET_TIMEOUT);
    CHECK(lprt_now() - t0 >= 30 * 1000000LL);
    CHECK(lprt_conn_write_all_wait(self, c, "\nbig\n", 5, -1) == 5);
    long n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000));
    CHECK(n == 4 && memcmp(line, "last", 4) == 0);
    n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000));
    CHECK(n == 3 && memcmp(line, "big", 3) == 0);
    char *big = malloc(BIG);
    for (long i = 0; i < BIG; i++) big[i] = (char)(i * 13);
    CHECK(lprt_conn_write_all_wait(self, c, big, BIG, lprt_deadline_ms(10000)) == BIG);
    free(big);
    CHECK(lprt_conn_shutdown(c) == 0);
    CHECK(lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000)) == LPRT_NET_EOF);
    lprt_conn_free(c);
}

/* peer for the limit tests: writes its text, then closes */
typedef struct {
    int lfd;
    const char *text;
} writer_arg;

static void text_writer(lprt_actor *self, void *ud) {
    writer_arg *w = ud;
    int fd;
    CHECK(lprt_net_accept_wait(self, w->lfd, lprt_deadline_ms(5000), &fd) == 0);
    lprt_conn *c = lprt_conn_new(fd);
    CHECK(lprt_conn_write_all_wait(self, c, w->text, strlen(w->text), -1) == (long)strlen(w->text));
    lprt_conn_free(c);
}

static lprt_conn *connect_to(lprt_actor *self, int port) {
    int fd;
    CHECK(lprt_net_connect_wait(self, "127.0.0.1", port, lprt_deadline_ms(5000), &fd) == 0);
    return lprt_conn_new(fd);
}

static void limits(lprt_actor *self) {
    int port, lfd = listen_any(&port);
    writer_arg w = {lfd, "0123456789abcdef\nxyz"};
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), text_writer, &w, 0));
    lprt_conn *c = connect_to(self, port);
    const char *p;
    CHECK(lprt_conn_read_line_wait(self, c, 10, &p, lprt_deadline_ms(5000)) == LPRT_NET_TOO_LONG);
    CHECK(lprt_conn_buffered(c) <= 4096);   /* bounded by the limit, not the peer */
    lprt_conn_free(c);

    w.text = "0123456789\r\nab";
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), text_writer, &w, 0));
    c = connect_to(self, port);
    CHECK(lprt_conn_read_line_wait(self, c, 10, &p, lprt_deadline_ms(5000)) == 10);   /* exactly the limit */
    CHECK(lprt_conn_read_exact_wait(self, c, 5, &p, lprt_deadline_ms(5000)) == LPRT_NET_TRUNCATED);
    lprt_conn_free(c);

    w.text = "abc";
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), text_writer, &w, 0));
    c = connect_to(self, port);
    CHECK(lprt_conn_read_exact_wait(self, c, 3, &p, lprt_deadline_ms(5000)) == 3 && memcmp(p, "abc", 3) == 0);
    CHECK(lprt_conn_read_exact_wait(self, c, 3, &p, lprt_deadline_ms(5000)) == LPRT_NET_EOF);
    CHECK(lprt_conn_read_some(c, 3, &p) == LPRT_NET_EOF);
    lprt_conn_free(c);
    lprt_net_close(lfd);

    /* refused: a port nobody listens on any more */
    lfd = listen_any(&port);
    lprt_net_close(lfd);
    int fd;
    CHECK(lprt_net_connect_wait(self, "127.0.0.1", port, lprt_deadline_ms(5000), &fd) == -ECONNREFUSED);
    CHECK(fd == -1);
    /* accept deadline */
    lfd = listen_any(&port);
    CHECK(lprt_net_accept_wait(self, lfd, lprt_deadline_ms(20), &fd) == LPRT_NET_TIMEOUT);
    lprt_net_close(lfd);
    /* a name that cannot resolve: DNS failure, or the deadline if no resolver answers */
    int64_t t0 = lprt_now();
    int r = lprt_net_connect_wait(self, "no-such-host.invalid", 80, lprt_deadline_ms(3000), &fd);
    CHECK(r == LPRT_NET_DNS || r == LPRT_NET_TIMEOUT);
    CHECK(lprt_now() - t0 < 3500 * 1000000LL);
    /* two listeners on one port, different addresses; port 0 picks one */
    int a, b;
    CHECK(lprt_net_listen("127.0.0.1", 0, 4, &a) == 0);
    port = lprt_net_local_port(a);
    CHECK(lprt_net_listen("127.0.0.2", port, 4, &b) == 0);
    CHECK(lprt_net_listen("127.0.0.1", port, 4, &fd) == -EADDRINUSE);
    lprt_net_close(a);
    lprt_net_close(b);
    CHECK(lprt_net_listen("not an address", 0, 4, &fd) == -EINVAL);
}

/* a step actor reading one line: blocks on WANT_READ and retries when woken */
typedef struct {
    lprt_conn *c;
    lprt_actor *report;
    int blocks;
} step_arg;

static int step_reader(lprt_actor *self, void *ud) {
    step_arg *s = ud;
    const char *line;
    long n = lprt_conn_read_line(s->c, 100, &line);
    if (n == LPRT_NET_WANT_READ) {
        s->blocks++;
        lprt_wait_fd(self, lprt_conn_fd(s->c), LPRT_READ, lprt_deadline_ms(5000));
        return LPRT_BLOCK;
    }
    CHECK(n == 4 && memcmp(line, "step", 4) == 0);
    lprt_send(s->report, VAL(s->blocks));
    return LPRT_DONE;
}

static void step_test(lprt_actor *self) {
    int port, lfd = listen_any(&port);
    step_arg s = {connect_to(self, port), self, 0};
    int fd;
    CHECK(lprt_net_accept_wait(self, lfd, lprt_deadline_ms(5000), &fd) == 0);
    lprt_release(lprt_spawn_step(lprt_runtime(self), step_reader, &s));
    lprt_sleep_ms(self, 5);    /* let it block first (the count below allows either order) */
    lprt_conn *peer = lprt_conn_new(fd);
    CHECK(lprt_conn_write_all_wait(self, peer, "step\n", 5, -1) == 5);
    CHECK(h_recv_num(self) >= 0);
    lprt_conn_free(peer);
    lprt_conn_free(s.c);
    lprt_net_close(lfd);
}

static long udp_recv(lprt_actor *self, int fd, char *buf, size_t cap, char *from, int *port, int64_t deadline) {
    long n;
    while ((n = lprt_udp_receive(fd, buf, cap, from, 64, port)) == LPRT_NET_WANT_READ)
        if (!lprt_fd_wait(self, fd, LPRT_READ, deadline)) return LPRT_NET_TIMEOUT;
    return n;
}

static void udp(lprt_actor *self) {
    int a, b, any;
    CHECK(lprt_udp_bind("127.0.0.1", 0, &a) == 0 && lprt_udp_bind("127.0.0.1", 0, &b) == 0);
    CHECK(lprt_udp_bind(NULL, 0, &any) == 0);
    int pa = lprt_net_local_port(a), pb = lprt_net_local_port(b), pany = lprt_net_local_port(any);
    char buf[16], from[64];
    int port;
    CHECK(udp_recv(self, b, buf, sizeof buf, from, &port, lprt_deadline_ms(20)) == LPRT_NET_TIMEOUT);
    CHECK(lprt_udp_send(a, "127.0.0.1", pb, "ping", 4) == 4);
    CHECK(udp_recv(self, b, buf, sizeof buf, from, &port, lprt_deadline_ms(5000)) == 4);
    CHECK(memcmp(buf, "ping", 4) == 0 && strcmp(from, "127.0.0.1") == 0 && port == pa);
    CHECK(lprt_udp_send(b, from, port, "a longer datagram than the buffer", 33) == 33);
    CHECK(udp_recv(self, a, buf, 8, from, &port, lprt_deadline_ms(5000)) == 8); /* cut */
    CHECK(lprt_udp_send(a, "127.0.0.1", pany, "v4", 2) == 2);            /* to the dual-stack socket */
    CHECK(udp_recv(self, any, buf, sizeof buf, from, &port, lprt_deadline_ms(5000)) == 2);
    CHECK(strcmp(from, "127.0.0.1") == 0 && port == pa);
    CHECK(lprt_udp_send(any, from, port, "back", 4) == 4);
    CHECK(udp_recv(self, a, buf, sizeof buf, from, &port, lprt_deadline_ms(5000)) == 4);
    CHECK(lprt_udp_send(a, "nope", 1, "x", 1) == -EINVAL);
    lprt_net_close(a);
    lprt_net_close(b);
    lprt_net_close(any);
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)ud;
    for (int i = 0; i < 2; i++) {
        srv_arg s;
        s.lfd = listen_any(&s.port);
        s.main = self;
        lprt_release(lprt_spawn_fiber(lprt_runtime(self), echo_server, &s, 0));
        client(self, &s, i == 0 ? "127.0.0.1" : "localhost");
        CHECK(h_recv_num(self) == BIG / 100000 * 100000);
        lprt_net_close(s.lfd);
    }
    limits(self);
    step_test(self);
    udp(self);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        lprt *rt = h_new(h_domain_counts[d]);
        double t0 = h_secs();
        h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 256 * 1024));
        printf("  domains=%d %.3fs\n", h_domain_counts[d], h_secs() - t0);
    }
    printf("ok\n");
    return 0;
}
