/* t_io.c — fd readiness: socketpair streams with small buffers (writers and
 * readers park on EAGAIN), fd-wait deadlines, churn (hundreds of fds whose
 * waits time out and are registered again by several domains at once while
 * bytes arrive at random moments), loopback TCP accept/connect, a step actor
 * waiting on an fd, and getaddrinfo on the resolver thread. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static _Atomic long fd_waits;

static void nonblock(int fd) { CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0); }

typedef struct {
    int fd;
    long total;
    unsigned seed;
    lprt_actor *report;
} stream_arg;

static void writer(lprt_actor *self, void *ud) {
    stream_arg *a = ud;
    unsigned char buf[3000];
    long sent = 0;
    while (sent < a->total) {
        long n = 1 + h_rand(&a->seed) % sizeof buf;
        if (n > a->total - sent) n = a->total - sent;
        for (long i = 0; i < n; i++) buf[i] = (unsigned char)((sent + i) * 7 + 3);
        long off = 0;
        while (off < n) {
            ssize_t w = write(a->fd, buf + off, (size_t)(n - off));
            if (w > 0) off += w;
            else {
                CHECK(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
                CHECK(lprt_fd_wait(self, a->fd, LPRT_WRITE, -1) == 1);
                atomic_fetch_add(&fd_waits, 1);
            }
        }
        sent += n;
    }
    close(a->fd);
}

static void reader(lprt_actor *self, void *ud) {
    stream_arg *a = ud;
    unsigned char buf[4096];
    long got = 0;
    for (;;) {
        ssize_t r = read(a->fd, buf, sizeof buf);
        if (r > 0) {
            for (ssize_t i = 0; i < r; i++) CHECK(buf[i] == (unsigned char)((got + i) * 7 + 3));
            got += r;
        } else if (r == 0) break;
        else {
            CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
            CHECK(lprt_fd_wait(self, a->fd, LPRT_READ, -1) == 1);
            atomic_fetch_add(&fd_waits, 1);
        }
    }
    CHECK(got == a->total);
    close(a->fd);
    lprt_send(a->report, VAL(got));
}

/* churn: a reader waits with 0-2 ms deadlines, so most waits time out and the
   next one replaces the registration, from whichever domain runs it; its
   writer sends single bytes at random moments. Every byte must arrive. */
#define CHURN_PAIRS 150
#define CHURN_BYTES 40

static void churn_writer(lprt_actor *self, void *ud) {
    stream_arg *a = ud;
    for (long i = 0; i < a->total; i++) {
        lprt_sleep_ms(self, h_rand(&a->seed) % 3);
        unsigned char c = (unsigned char)i;
        CHECK(write(a->fd, &c, 1) == 1);
    }
}

static void churn_reader(lprt_actor *self, void *ud) {
    stream_arg *a = ud;
    long got = 0;
    unsigned seed = (unsigned)a->fd * 7919u + 1;
    while (got < a->total) {
        unsigned char c;
        ssize_t r = read(a->fd, &c, 1);
        if (r == 1) {
            CHECK(c == (unsigned char)got);
            got++;
        } else {
            CHECK(r < 0 && errno == EAGAIN);
            if (lprt_fd_wait(self, a->fd, LPRT_READ, lprt_deadline_ms(h_rand(&seed) % 3)) == 0)
                atomic_fetch_add(&fd_waits, 1); /* timed out: counted */
        }
    }
    lprt_send(a->report, VAL(got));
}

/* step actor: read one byte from fd, waiting with lprt_wait_fd */
typedef struct {
    int fd;
    lprt_actor *report;
    int waits;
} step_reader;

static int step_read(lprt_actor *self, void *ud) {
    step_reader *s = ud;
    char c;
    ssize_t r = read(s->fd, &c, 1);
    if (r == 1) {
        lprt_send(s->report, VAL(c));
        return LPRT_DONE;
    }
    CHECK(r < 0 && errno == EAGAIN);
    if (s->waits++) CHECK(lprt_wake_reason(self) == LPRT_WAKE_FD);
    lprt_wait_fd(self, s->fd, LPRT_READ, -1);
    return LPRT_BLOCK;
}

/* resolver */
typedef struct {
    const char *host;
    lprt_actor *report;
    int phase;
} resolve_arg;

static int resolver_step(lprt_actor *self, void *ud) {
    resolve_arg *a = ud;
    if (a->phase++ == 0) {
        CHECK(lprt_wait_resolve(self, a->host, "80", AF_INET, SOCK_STREAM, -1) == LPRT_OK);
        return LPRT_BLOCK;
    }
    CHECK(lprt_wake_reason(self) == LPRT_WAKE_RESOLVED);
    int status = -1;
    struct addrinfo *ai = lprt_resolved(self, &status);
    CHECK(status == 0 && ai);
    struct sockaddr_in *sin = (struct sockaddr_in *)ai->ai_addr;
    CHECK(ntohs(sin->sin_port) == 80 && ntohl(sin->sin_addr.s_addr) == 0x7f000001);
    freeaddrinfo(ai);
    lprt_send(a->report, VAL(1));
    return LPRT_DONE;
}

static void tcp_server(lprt_actor *self, void *ud) {
    int ls = *(int *)ud;
    int c;
    while ((c = accept(ls, NULL, NULL)) < 0) {
        CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
        CHECK(lprt_fd_wait(self, ls, LPRT_READ, lprt_deadline_ms(5000)) == 1);
    }
    nonblock(c);
    char buf[16];
    ssize_t r;
    while ((r = read(c, buf, sizeof buf)) < 0) CHECK(lprt_fd_wait(self, c, LPRT_READ, -1) == 1);
    CHECK(r == 5 && memcmp(buf, "hello", 5) == 0);
    CHECK(write(c, "world", 5) == 5);
    close(c);
}

static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    int pairs = *(int *)ud;
    /* streams */
    static stream_arg args[64][2];
    for (int i = 0; i < pairs; i++) {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        int small = 4096;
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
        setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        nonblock(sv[0]);
        nonblock(sv[1]);
        long total = SCALE(2000000) + i * 1000;
        args[i][0] = (stream_arg){sv[0], total, (unsigned)i + 1, self};
        args[i][1] = (stream_arg){sv[1], total, 0, self};
        lprt_release(lprt_spawn_fiber(rt, writer, &args[i][0], 0));
        lprt_release(lprt_spawn_fiber(rt, reader, &args[i][1], 0));
    }
    for (int i = 0; i < pairs; i++) CHECK(h_recv_num(self) >= SCALE(2000000));
    CHECK(atomic_load(&fd_waits) > 0);
    printf("    stream fd waits: %ld\n", atomic_exchange(&fd_waits, 0));

    /* churn */
    static stream_arg churn[CHURN_PAIRS][2];
    static int churn_fds[CHURN_PAIRS][2];
    for (int i = 0; i < CHURN_PAIRS; i++) {
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, churn_fds[i]) == 0);
        nonblock(churn_fds[i][1]);
        churn[i][0] = (stream_arg){churn_fds[i][0], SCALE(CHURN_BYTES * 4), (unsigned)i * 31u + 5, self};
        churn[i][1] = (stream_arg){churn_fds[i][1], SCALE(CHURN_BYTES * 4), 0, self};
        lprt_release(lprt_spawn_fiber(rt, churn_reader, &churn[i][1], 0));
        lprt_release(lprt_spawn_fiber(rt, churn_writer, &churn[i][0], 0));
    }
    for (int i = 0; i < CHURN_PAIRS; i++) CHECK(h_recv_num(self) == SCALE(CHURN_BYTES * 4));
    printf("    churn: %ld waits timed out\n", atomic_exchange(&fd_waits, 0));
    for (int i = 0; i < CHURN_PAIRS; i++) {
        close(churn_fds[i][0]);
        close(churn_fds[i][1]);
    }

    /* fd wait with a deadline that passes */
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    nonblock(sv[0]);
    for (int i = 0; i < 5; i++) {
        int64_t dl = lprt_deadline_ms(3);
        CHECK(lprt_fd_wait(self, sv[0], LPRT_READ, dl) == 0);
        CHECK(lprt_now() >= dl);
    }
    /* a step actor waits on the same fd (the timed-out registration is replaced) */
    step_reader sr = {sv[0], self, 0};
    lprt_release(lprt_spawn_step(rt, step_read, &sr));
    lprt_sleep_ms(self, 2);
    CHECK(write(sv[1], "x", 1) == 1);
    CHECK(h_recv_num(self) == 'x');
    close(sv[0]);
    close(sv[1]);

    /* loopback TCP */
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(ls, (struct sockaddr *)&addr, sizeof addr) == 0);
    socklen_t len = sizeof addr;
    CHECK(getsockname(ls, (struct sockaddr *)&addr, &len) == 0);
    CHECK(listen(ls, 16) == 0);
    nonblock(ls);
    lprt_actor *srv = lprt_spawn_fiber(rt, tcp_server, &ls, 0);
    uint64_t ref = lprt_monitor(self, srv);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    nonblock(c);
    int r = connect(c, (struct sockaddr *)&addr, sizeof addr);
    if (r < 0) {
        CHECK(errno == EINPROGRESS);
        CHECK(lprt_fd_wait(self, c, LPRT_WRITE, lprt_deadline_ms(5000)) == 1);
        int err = 0;
        socklen_t el = sizeof err;
        CHECK(getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0);
    }
    CHECK(write(c, "hello", 5) == 5);
    char buf[16];
    ssize_t n;
    while ((n = read(c, buf, sizeof buf)) < 0) CHECK(lprt_fd_wait(self, c, LPRT_READ, -1) == 1);
    CHECK(n == 5 && memcmp(buf, "world", 5) == 0);
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m->kind == LPRT_MSG_DOWN && m->ref == ref && m->reason.kind == LPRT_NORMAL);
    lprt_msg_free(rt, m);
    lprt_release(srv);
    close(c);
    close(ls);

    /* resolver */
    resolve_arg ra[2] = {{"127.0.0.1", self, 0}, {"localhost", self, 0}};
    for (int i = 0; i < 2; i++) lprt_release(lprt_spawn_step(rt, resolver_step, &ra[i]));
    CHECK(h_recv_num(self) == 1);
    CHECK(h_recv_num(self) == 1);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        int pairs = 8;
        lprt *rt = h_new(h_domain_counts[d]);
        double t0 = h_secs();
        h_run(rt, lprt_create_fiber(rt, main_fiber, &pairs, 0));
        printf("  domains=%d %.3fs\n", h_domain_counts[d], h_secs() - t0);
    }
    printf("ok\n");
    return 0;
}
