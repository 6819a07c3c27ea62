/* t_shutdown.c — lprt_run returns when main ends: actors still running,
 * runnable, waiting (receive, timer, fd, resolver) or never started are
 * stopped, on_exit runs once for every actor, every value is released. */
#include "harness.h"

#include <sys/socket.h>
#include <unistd.h>

static int spin(lprt_actor *self, void *ud) {
    while (!lprt_reductions(self, 1)) {
    }
    return LPRT_YIELD;
}
static void waiter(lprt_actor *self, void *ud) {
    long kind = (long)ud;
    if (kind == 1) lprt_sleep_ms(self, 100000);
    for (;;) { /* a selective receive nothing matches */
        lprt_wait_receive(self, UINT64_MAX - 1, -1);
        lprt_suspend(self);
    }
}
static void fd_waiter(lprt_actor *self, void *ud) {
    lprt_fd_wait(self, *(int *)ud, LPRT_READ, -1);
    CHECK(!"not reached");
}
static int resolving(lprt_actor *self, void *ud) {
    if (lprt_wake_reason(self) == LPRT_WAKE_START) {
        lprt_wait_resolve(self, "localhost", NULL, 0, 0, -1);
        return LPRT_BLOCK;
    }
    lprt_wait_receive(self, 0, -1);
    return LPRT_BLOCK;
}

typedef struct {
    int fd;
    lprt_actor *kept;
    int n;
} margs;

static void main_fiber(lprt_actor *self, void *ud) {
    margs *a = ud;
    lprt *rt = lprt_runtime(self);
    int n = 0;
    for (int i = 0; i < 50; i++) {
        lprt_actor *x;
        switch (i % 6) {
        case 0: x = lprt_spawn_step(rt, spin, NULL); break;
        case 1: x = lprt_spawn_fiber(rt, waiter, (void *)0L, 0); break;
        case 2: x = lprt_spawn_fiber(rt, waiter, (void *)1L, 0); break;
        case 3: x = lprt_spawn_fiber(rt, fd_waiter, &a->fd, 0); break;
        case 4: x = lprt_spawn_step(rt, resolving, NULL); break;
        default: x = lprt_create_fiber(rt, waiter, (void *)0L, 0); break; /* never started */
        }
        n++;
        /* messages that stay in mailboxes, links and monitors that stay registered */
        lprt_send(x, VAL(i));
        if (i % 2) lprt_monitor(self, x);
        if (i % 3 == 0 && i != 3) lprt_link(x, self);
        if (i == 7) {
            a->kept = x;
            continue;
        }
        lprt_release(x);
    }
    a->n = n + 1;
    lprt_sleep_ms(self, 10);
    lprt_set_exit_reason(self, LPRT_ERROR, VAL(77)); /* linked actors are stopped, not killed */
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        for (int rep = 0; rep < 3; rep++) {
            int sv[2];
            CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
            margs a = {sv[0], NULL, 0};
            lprt *rt = h_new(h_domain_counts[d]);
            lprt_actor *m = lprt_create_fiber(rt, main_fiber, &a, 0);
            CHECK(lprt_run(rt, m) == LPRT_ERROR);
            CHECK(atomic_load(&h_exits) == a.n);
            CHECK(lprt_state(a.kept) == LPRT_ST_DEAD);
            CHECK(lprt_dead_reason(a.kept, NULL) == LPRT_KILLED);
            CHECK(lprt_send(a.kept, VAL(1)) == LPRT_EDEAD);
            lprt_release(a.kept);
            lprt_release(m);
            lprt_free(rt);
            CHECK(atomic_load(&h_live_values) == 0);
            close(sv[0]);
            close(sv[1]);
        }
    }
    printf("ok\n");
    return 0;
}
