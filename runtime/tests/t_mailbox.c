/* t_mailbox.c — many concurrent senders (fibers, step actors, foreign threads)
 * to one mailbox: per-sender order preserved, nothing lost or duplicated. */
#include "harness.h"

#include <pthread.h>

enum { MAXS = 64 };
typedef struct {
    lprt_actor *sink;
    int id, count;
} sender_arg;

static void fiber_sender(lprt_actor *self, void *ud) {
    sender_arg *s = ud;
    for (int i = 0; i < s->count; i++) {
        CHECK(lprt_send(s->sink, VAL(s->id * 1000000L + i)) == LPRT_OK);
        if (i % 7 == 0) lprt_reductions(self, 1000); /* vary interleavings */
    }
}

static void *thread_sender(void *ud) {
    sender_arg *s = ud;
    for (int i = 0; i < s->count; i++) CHECK(lprt_send(s->sink, VAL(s->id * 1000000L + i)) == LPRT_OK);
    return NULL;
}

typedef struct {
    int nfib, nthr, per;
    sender_arg args[MAXS];
    pthread_t threads[MAXS];
} test_cfg;

static void sink_main(lprt_actor *self, void *ud) {
    test_cfg *c = ud;
    lprt *rt = lprt_runtime(self);
    int n = c->nfib + c->nthr;
    for (int i = 0; i < n; i++) c->args[i] = (sender_arg){self, i, c->per};
    for (int i = 0; i < c->nfib; i++) lprt_release(lprt_spawn_fiber(rt, fiber_sender, &c->args[i], 0));
    for (int i = c->nfib; i < n; i++) pthread_create(&c->threads[i], NULL, thread_sender, &c->args[i]);
    long next[MAXS] = {0};
    long total = (long)n * c->per;
    for (long k = 0; k < total; k++) {
        long v = h_recv_num(self);
        int id = (int)(v / 1000000);
        CHECK(id >= 0 && id < n);
        CHECK(v % 1000000 == next[id]); /* in order, no loss, no duplicate */
        next[id]++;
    }
    for (int i = c->nfib; i < n; i++) pthread_join(c->threads[i], NULL);
    CHECK(lprt_mbox_first(self) == NULL);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        for (int rep = 0; rep < 3; rep++) {
            test_cfg c = {.nfib = 8 + rep * 8, .nthr = 2 + rep, .per = SCALE(20000)};
            lprt *rt = h_new(h_domain_counts[d]);
            lprt_actor *m = lprt_create_fiber(rt, sink_main, &c, 0);
            double t0 = h_secs();
            h_run(rt, m);
            printf("  domains=%d senders=%d per=%d: %.3fs\n", h_domain_counts[d], c.nfib + c.nthr, c.per,
                   h_secs() - t0);
        }
    }
    printf("ok\n");
    return 0;
}
