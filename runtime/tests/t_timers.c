/* t_timers.c — receive-after timeouts racing messages (each round resolves
 * exactly once, late messages are kept, never early), many concurrent
 * sleepers (each wakes exactly once, not before its deadline), and the io
 * thread that serves them started by the first timer only, also as the
 * runtime stops. */
#include "harness.h"

#include <dirent.h>

typedef struct {
    lprt_actor *peer;
    int rounds, round;
    int64_t deadline;
    uint64_t cursor;
    long in_time, timeouts, late;
    unsigned seed;
    bool waiting, finishing;
    uint64_t tail_seq;
} rstate;

/* R: each round asks S for message `round`, waits for it with a short deadline */
static int racer(lprt_actor *self, void *ud) {
    rstate *s = ud;
    lprt *rt = lprt_runtime(self);
    for (;;) {
        if (!s->waiting) {
            if (s->round == s->rounds) {
                /* ask the echo to confirm; its earlier replies arrive before */
                if (!s->finishing) lprt_send(s->peer, VAL(-1));
                s->finishing = true;
                for (lprt_msg *m = lprt_mbox_first(self), *n; m; m = n) {
                    n = lprt_mbox_next(self, m);
                    s->tail_seq = m->seq;
                    long v = NUM(m->value);
                    lprt_mbox_take(self, m);
                    lprt_msg_free(rt, m);
                    if (v == -2) return LPRT_DONE;
                    if (!(v >= 0 && v < s->rounds)) fprintf(stderr, "v=%ld rounds=%d late=%ld\n", v, s->rounds, s->late);
                    CHECK(v >= 0 && v < s->rounds);
                    s->late++;
                }
                lprt_wait_receive(self, s->tail_seq, -1);
                return LPRT_BLOCK;
            }
            s->deadline = lprt_now() + (int64_t)(h_rand(&s->seed) % 1500) * 1000;
            s->cursor = 0;
            s->waiting = true;
            lprt_send(s->peer, VAL(s->round));
        }
        bool timed_out = lprt_wake_reason(self) == LPRT_WAKE_TIMEOUT;
        lprt_msg *m = s->cursor ? lprt_mbox_after(self, s->cursor) : lprt_mbox_first(self);
        bool got = false;
        while (m) {
            lprt_msg *n = lprt_mbox_next(self, m);
            long v = NUM(m->value);
            s->cursor = m->seq;
            if (v < s->round) { /* a message whose round timed out */
                s->late++;
                lprt_mbox_take(self, m);
                lprt_msg_free(rt, m);
            } else if (v == s->round) {
                got = true;
                lprt_mbox_take(self, m);
                lprt_msg_free(rt, m);
            } else CHECK(!"message from the future");
            m = n;
        }
        if (got) s->in_time++;
        else if (timed_out) {
            CHECK(lprt_now() >= s->deadline);
            s->timeouts++;
        } else {
            lprt_wait_receive(self, s->cursor, s->deadline);
            return LPRT_BLOCK;
        }
        s->waiting = false;
        s->round++;
        if (lprt_reductions(self, 100)) {
            /* next turn starts a fresh round; make the wake reason irrelevant */
            return LPRT_YIELD;
        }
        if (lprt_wake_reason(self) == LPRT_WAKE_TIMEOUT) {
            /* consumed: later iterations of this turn must not see it again */
            return LPRT_YIELD;
        }
    }
}

static void echo_sender(lprt_actor *self, void *ud) {
    rstate *s = ud;
    unsigned seed = s->seed ^ 0xabcdef;
    for (;;) {
        long r = h_recv_num(self);
        if (r < 0) {
            CHECK(lprt_send(s->peer, VAL(-2)) == LPRT_OK);
            return;
        }
        unsigned k = h_rand(&seed) % 4;
        if (k == 1) lprt_yield(self);
        else if (k == 2) lprt_sleep_ms(self, h_rand(&seed) % 2);
        else if (k == 3) {
            int64_t until = lprt_now() + (h_rand(&seed) % 1500) * 1000;
            while (lprt_now() < until) lprt_reductions(self, 1);
        }
        CHECK(lprt_send(s->peer, VAL(r)) == LPRT_OK);
    }
}

typedef struct {
    int64_t deadline;
    _Atomic int *woken;
} sleeper_arg;

static void sleeper(lprt_actor *self, void *ud) {
    sleeper_arg *a = ud;
    lprt_wait_sleep(self, a->deadline);
    CHECK(lprt_suspend(self) == LPRT_WAKE_TIMEOUT);
    CHECK(lprt_now() >= a->deadline);
    atomic_fetch_add(a->woken, 1);
}

static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    int rounds = *(int *)ud;
    rstate s = {.rounds = rounds, .seed = (unsigned)rounds * 7u + 1};
    rstate es = {.seed = s.seed};
    lprt_actor *r = lprt_create_step(rt, racer, &s);
    lprt_actor *e = lprt_create_fiber(rt, echo_sender, &es, 0);
    s.peer = e;
    es.peer = r;
    uint64_t ref_r = lprt_monitor(self, r), ref_e = lprt_monitor(self, e);
    lprt_start(r);
    lprt_start(e);
    for (int downs = 0; downs < 2; downs++) {
        lprt_msg *m = lprt_receive(self, -1);
        CHECK(m->kind == LPRT_MSG_DOWN && m->reason.kind == LPRT_NORMAL);
        CHECK(m->ref == ref_r || m->ref == ref_e);
        lprt_msg_free(rt, m);
    }
    CHECK(s.in_time + s.timeouts == rounds);
    /* every timed-out round's message arrived late, or is still in R's mailbox */
    CHECK(s.late == s.timeouts);
    printf("    rounds=%d in_time=%ld timeouts=%ld late=%ld\n", rounds, s.in_time, s.timeouts, s.late);
    lprt_release(r);
    lprt_release(e);

    /* sleepers */
    enum { NS = 300 };
    static sleeper_arg args[NS];
    _Atomic int woken = 0;
    unsigned seed = 99;
    for (int i = 0; i < NS; i++) {
        args[i] = (sleeper_arg){lprt_now() + (int64_t)(h_rand(&seed) % 20) * 1000000, &woken};
        lprt_release(lprt_spawn_fiber(rt, sleeper, &args[i], 16384));
    }
    while (atomic_load(&woken) < NS) lprt_sleep_ms(self, 5);
    lprt_sleep_ms(self, 5);
    CHECK(atomic_load(&woken) == NS);
}

static int threads(void) {
    DIR *dir = opendir("/proc/self/task");
    CHECK(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));) n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

static void count_threads(lprt_actor *self, void *ud) {
    int *n = ud;
    n[0] = threads();
    lprt_sleep_ms(self, 1);
    n[1] = threads();
}

static void far_sleeper(lprt_actor *self, void *ud) {
    (void)ud;
    lprt_wait_sleep(self, lprt_now() + 1000000000LL);
    lprt_suspend(self);
}

/* Main ends at once: the io thread that the sleeper's timer starts may not have run yet when
   lprt_run stops it. */
static void quick_main(lprt_actor *self, void *ud) {
    (void)ud;
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), far_sleeper, NULL, 16384));
}

static void lazy_io_thread(void) {
    for (size_t d = 0; d < 3; d++) {
        int n[2];
        lprt *rt = h_new(h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, count_threads, n, 0));
        CHECK(n[1] == n[0] + 1); /* no io thread until the first timer */
        for (int i = 0; i < SCALE(300); i++) {
            rt = h_new(h_domain_counts[d]);
            h_run(rt, lprt_create_fiber(rt, quick_main, NULL, 0));
        }
        printf("  domains=%d: the io thread starts with the first timer, stops as it starts\n", h_domain_counts[d]);
    }
}

int main(void) {
    lazy_io_thread();
    for (size_t d = 0; d < 3; d++) {
        int rounds = SCALE(3000);
        lprt *rt = h_new(h_domain_counts[d]);
        printf("  domains=%d\n", h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, main_fiber, &rounds, 0));
    }
    printf("ok\n");
    return 0;
}
