/* t_deadlock.c — deadlock detection: every actor waiting for a message with
 * nothing that could send one is reported once and ends lprt_run with
 * LPRT_EDEADLOCK; programs whose waits a timer, a sleeping actor or main's end
 * resolves are never reported (many random rounds). Also saturating deadlines. */
#include "harness.h"

static _Atomic int dl_calls;

static void on_deadlock(lprt *rt, void *ud) {
    (void)rt, (void)ud;
    atomic_fetch_add(&dl_calls, 1);
}

static lprt *new_rt(int domains) {
    lprt_config cfg = {domains, 0, 0};
    lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL, on_deadlock};
    atomic_store(&dl_calls, 0);
    return lprt_new(&cfg, &hooks);
}

static void wait_forever(lprt_actor *self, void *ud) {
    lprt_msg *m = lprt_receive(self, -1);
    if (m) lprt_msg_free(lprt_runtime(self), m);
}

static void stuck_main(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    long n = (long)(intptr_t)ud;
    for (long i = 0; i < n; i++) lprt_release(lprt_spawn_fiber(rt, wait_forever, NULL, 0));
    lprt_sleep_ms(self, 1); /* a timer pending: not yet a deadlock */
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m == NULL && "nothing can ever arrive");
}

/* a chain: each link sleeps (or waits with a deadline) and then wakes the next */
typedef struct {
    lprt_actor *next;
    unsigned seed;
} link_t;

static void chain_link(lprt_actor *self, void *ud) {
    link_t *l = ud;
    long v = h_recv_num(self);
    switch (h_rand(&l->seed) % 3) {
    case 0: lprt_sleep_ms(self, h_rand(&l->seed) % 3); break;
    case 1: {
        lprt_msg *m = lprt_receive(self, lprt_deadline_ms(h_rand(&l->seed) % 3));
        CHECK(m == NULL);
        break;
    }
    default: break;
    }
    lprt_send(l->next, VAL(v + 1));
    lprt_release(l->next);
    free(l);
}

static void late_sender(lprt_actor *self, void *ud) {
    lprt_actor *to = ud;
    lprt_sleep_ms(self, 2);
    lprt_send(to, VAL(7));
    lprt_release(to);
}

static void legit_main(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    unsigned seed = (unsigned)(uintptr_t)ud;
    int n = 1 + (int)(h_rand(&seed) % 6);
    lprt_actor *next = self;
    lprt_retain(self);
    for (int i = 0; i < n; i++) {
        link_t *l = malloc(sizeof *l);
        l->next = next;
        l->seed = seed + (unsigned)i;
        next = lprt_spawn_fiber(rt, chain_link, l, 0);
    }
    lprt_send(next, VAL(0));
    lprt_release(next);
    CHECK(h_recv_num(self) == n);
    /* a receive whose deadline is past the clock's range waits for the message */
    lprt_retain(self);
    lprt_release(lprt_spawn_fiber(rt, late_sender, self, 0));
    lprt_msg *m = lprt_receive(self, lprt_deadline_ms(INT64_MAX / 2));
    CHECK(m && NUM(m->value) == 7);
    lprt_msg_free(rt, m);
    /* left waiting when main ends: not a deadlock */
    lprt_release(lprt_spawn_fiber(rt, wait_forever, NULL, 0));
}

int main(void) {
    CHECK(lprt_deadline_ms(INT64_MAX) == INT64_MAX);
    CHECK(lprt_deadline_ms(9300000000000LL) > lprt_now());
    CHECK(lprt_deadline_ms(-5) == -1);
    for (size_t d = 0; d < 3; d++) {
        int domains = h_domain_counts[d];
        for (long n = 0; n < 4; n++) {
            lprt *rt = new_rt(domains);
            int r = h_run(rt, lprt_create_fiber(rt, stuck_main, (void *)(intptr_t)(n * 5), 0));
            CHECK(r == LPRT_EDEADLOCK);
            CHECK(atomic_load(&dl_calls) == 1);
        }
        int rounds = SCALE(200);
        for (int i = 0; i < rounds; i++) {
            lprt *rt = new_rt(domains);
            int r = h_run(rt, lprt_create_fiber(rt, legit_main, (void *)(uintptr_t)(i * 7919 + 1), 0));
            CHECK(r == LPRT_NORMAL);
            CHECK(atomic_load(&dl_calls) == 0);
        }
        printf("  domains=%d: deadlocks reported once, %d legitimate runs never\n", domains, rounds);
    }
    return 0;
}
