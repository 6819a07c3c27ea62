/* t_fdmail.c — lprt_wait_fd_or_receive: a host actor waits for a socket and its mailbox in one
 * wait. Writers (bytes on a socketpair) and senders (messages) race the host with random
 * yields and sleeps; the host must see every byte and every message, each wake being an fd
 * wake or a message wake (never a timeout: it has no deadline), with no polling. Fiber hosts
 * and step hosts, 1, 2 and 4 domains. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

enum { ROUNDS = 300 };

typedef struct {
    int fd;
    long n;
    unsigned seed;
    lprt_actor *host;
    lprt_actor *report;
    long bytes, msgs, waits;
} pair_arg;

static void pause_randomly(lprt_actor *self, unsigned *seed) {
    unsigned r = h_rand(seed) % 8;
    if (r == 0) lprt_sleep_ms(self, 1);
    else if (r < 4) lprt_yield(self);
}

static void writer(lprt_actor *self, void *ud) {
    pair_arg *a = ud;
    unsigned seed = a->seed * 7 + 1;
    for (long i = 0; i < a->n; i++) {
        pause_randomly(self, &seed);
        char c = (char)(i & 0x7f);
        while (write(a->fd, &c, 1) != 1) CHECK(lprt_fd_wait(self, a->fd, LPRT_WRITE, -1) == 1);
    }
}

static void sender(lprt_actor *self, void *ud) {
    pair_arg *a = ud;
    unsigned seed = a->seed * 13 + 5;
    for (long i = 0; i < a->n; i++) {
        pause_randomly(self, &seed);
        lprt_send(a->host, VAL(i));
    }
}

/* One round of the host: take what is there; answers 1 when all has come. */
static int take(lprt_actor *self, pair_arg *a) {
    lprt_msg *m;
    while ((m = lprt_mbox_first(self)) != NULL) {
        CHECK(NUM(m->value) == a->msgs);
        a->msgs++;
        lprt_mbox_take(self, m);
        lprt_msg_free(lprt_runtime(self), m);
    }
    char buf[64];
    ssize_t r;
    while ((r = read(a->fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < r; i++) CHECK(buf[i] == (char)((a->bytes + i) & 0x7f));
        a->bytes += r;
    }
    CHECK(r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    return a->bytes == a->n && a->msgs == a->n;
}

static void fiber_host(lprt_actor *self, void *ud) {
    pair_arg *a = ud;
    while (!take(self, a)) {
        lprt_wait_fd_or_receive(self, a->fd, LPRT_READ, 0, -1);
        int why = lprt_suspend(self);
        CHECK(why == LPRT_WAKE_FD || why == LPRT_WAKE_MESSAGE);
        a->waits++;
    }
    lprt_send(a->report, VAL(a->waits));
}

static int step_host(lprt_actor *self, void *ud) {
    pair_arg *a = ud;
    if (a->waits++) CHECK(lprt_wake_reason(self) == LPRT_WAKE_FD || lprt_wake_reason(self) == LPRT_WAKE_MESSAGE);
    if (take(self, a)) {
        lprt_send(a->report, VAL(a->waits));
        return LPRT_DONE;
    }
    lprt_wait_fd_or_receive(self, a->fd, LPRT_READ, 0, -1);
    return LPRT_BLOCK;
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)ud;
    lprt *rt = lprt_runtime(self);
    enum { PAIRS = 8 };
    /* one set per round: a writer or sender of round 0 may still be leaving its loop (reading its
       pair_arg) when round 1 starts */
    static pair_arg rounds_args[2][PAIRS], rounds_wargs[2][PAIRS];
    int fds[PAIRS][2];
    long waits = 0;
    for (int round = 0; round < 2; round++) {
        pair_arg *args = rounds_args[round], *wargs = rounds_wargs[round];
        for (int i = 0; i < PAIRS; i++) {
            CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]) == 0);
            for (int k = 0; k < 2; k++) CHECK(fcntl(fds[i][k], F_SETFL, O_NONBLOCK) == 0);
            args[i] = (pair_arg){fds[i][0], SCALE(ROUNDS), (unsigned)(i + 1 + 100 * round), NULL, self, 0, 0, 0};
            pair_arg *w = &wargs[i];
            *w = args[i];   /* before the host runs: it changes its own pair_arg */
            w->fd = fds[i][1];
            args[i].host = round == 0 ? lprt_spawn_fiber(rt, fiber_host, &args[i], 0)
                                      : lprt_spawn_step(rt, step_host, &args[i]);
            w->host = args[i].host;
            lprt_release(lprt_spawn_fiber(rt, writer, w, 0));
            lprt_release(lprt_spawn_fiber(rt, sender, w, 0));
        }
        for (int i = 0; i < PAIRS; i++) waits += h_recv_num(self);
        for (int i = 0; i < PAIRS; i++) {
            lprt_release(args[i].host);
            close(fds[i][0]);
            close(fds[i][1]);
        }
    }
    CHECK(waits > 0);
    printf("    host waits: %ld\n", waits);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        lprt *rt = h_new(h_domain_counts[d]);
        double t0 = h_secs();
        h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 0));
        printf("  domains=%d %.3fs\n", h_domain_counts[d], h_secs() - t0);
    }
    printf("ok\n");
    return 0;
}
