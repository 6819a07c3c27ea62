/* t_observe.c — the observer's reads (lprt_snapshot, lprt_mbox_peek, lprt_actor_peers,
 * lprt_domain_snapshot) from a foreign thread and from an actor of the runtime (as the
 * observer reads), hammering a runtime whose actors receive selectively, take, die with mail
 * left and link to each other: every peeked entry is a value that was sent, nothing is lost,
 * and the sanitizers see no race or use after free. An owner locks its list only while a peek
 * is in progress: without peeks, 100,000 messages cost no lock (lprt_stats.mbox_locks). */
#include "harness.h"

#include <pthread.h>

enum { SENDERS = 8, DYING = 200 };

typedef struct {
    lprt *rt;
    _Atomic uint64_t sink_id;
    _Atomic int done;
    _Atomic long peeks, seen;
    long per;
    lprt_actor *inner;   /* the peeker actor, stopped by the sink */
} shared;

typedef struct {
    lprt_actor *sink;
    int id;
    long count;
} sender_arg;

static void sender(lprt_actor *self, void *ud) {
    sender_arg *s = ud;
    for (long i = 0; i < s->count; i++) {
        CHECK(lprt_send(s->sink, VAL(s->id * 1000000L + i)) == LPRT_OK);
        if (i % 5 == 0) lprt_reductions(self, 1000);
    }
}

static void dying(lprt_actor *self, void *ud) {
    (void)ud;
    /* take one message, leave the rest to be freed at death while someone may be peeking */
    lprt_msg_free(lprt_runtime(self), lprt_receive(self, -1));
}

/* One peek, checked: every entry is a notice or a value that was sent. */
static void peek_checked(shared *sh, uint64_t id, int *kinds, void **values) {
    int n = lprt_mbox_peek(sh->rt, id, kinds, values, 16);
    CHECK(n >= -1 && n <= 16);
    for (int i = 0; i < n; i++) {
        CHECK(kinds[i] == LPRT_MSG_USER || kinds[i] == LPRT_MSG_DOWN || kinds[i] == LPRT_MSG_EXIT);
        if (kinds[i] == LPRT_MSG_USER) {
            CHECK(((uintptr_t)values[i] & 1) == 1);
            long v = NUM(values[i]);
            CHECK(v >= 0 && v % 1000000 < (sh->per > 1000 ? sh->per : 1000));
        }
    }
    if (n > 0) atomic_fetch_add(&sh->seen, n);
}

/* The observer's way: an actor peeks the sink (running on another domain, or not) between
   turns of random length, until the sink sends it a message. */
static void inner_peeker(lprt_actor *self, void *ud) {
    shared *sh = ud;
    int kinds[16];
    void *values[16];
    unsigned seed = (unsigned)lprt_id(self);
    while (!lprt_mbox_first(self)) {
        peek_checked(sh, atomic_load(&sh->sink_id), kinds, values);
        lprt_reductions(self, (int)(h_rand(&seed) % 3000));
    }
    lprt_msg_free(sh->rt, lprt_receive(self, -1));
}

static void *peeker(void *ud) {
    shared *sh = ud;
    int kinds[16];
    void *values[16];
    uint64_t ids[8];
    size_t nl, nw;
    lprt_actor_info infos[512];
    lprt_domain_info doms[8];
    unsigned seed = 7;
    while (!atomic_load(&sh->done)) {
        uint64_t sink = atomic_load(&sh->sink_id);
        uint64_t id = sink && h_rand(&seed) % 2 ? sink : 1 + h_rand(&seed) % (DYING + SENDERS + 4);
        peek_checked(sh, id, kinds, values);
        lprt_actor_peers(sh->rt, id, ids, &nl, ids, &nw, 8);
        size_t live = lprt_snapshot(sh->rt, infos, 512);
        for (size_t i = 0; i < live && i < 512; i++) CHECK(infos[i].state >= 0 && infos[i].state <= LPRT_ST_DEAD);
        CHECK(lprt_domain_snapshot(sh->rt, doms, 8) >= 1);
        atomic_fetch_add(&sh->peeks, 1);
    }
    return NULL;
}

static void sink_main(lprt_actor *self, void *ud) {
    shared *sh = ud;
    lprt *rt = lprt_runtime(self);
    atomic_store(&sh->sink_id, lprt_id(self));
    sh->inner = lprt_spawn_fiber(rt, inner_peeker, sh, 0);
    while (atomic_load(&sh->peeks) < 1) lprt_sleep_ms(self, 1);   /* the peeker is running */
    /* actors that die with mail left in their mailboxes, linked to each other and to us */
    lprt_trap_exits(self, 1);
    for (int i = 0; i < DYING; i++) {
        lprt_actor *a = lprt_spawn_fiber(rt, dying, NULL, 0);
        for (int k = 0; k < 4; k++) {   /* it may already have taken one and ended */
            int r = lprt_send(a, VAL(k));
            CHECK(r == LPRT_OK || r == LPRT_EDEAD);
        }
        lprt_release(a);
    }
    sender_arg args[SENDERS];
    for (int i = 0; i < SENDERS; i++) {
        args[i] = (sender_arg){self, i, sh->per};
        lprt_release(lprt_spawn_fiber(rt, sender, &args[i], 0));
    }
    /* selective: odd numbers first, as they come; evens stay behind (and are peeked). The
       cursor keeps the scan linear: everything before it is an even left in place. */
    long next_odd[SENDERS] = {0}, got = 0, odds = SENDERS * sh->per / 2, total = SENDERS * sh->per;
    (void)total;
    uint64_t cursor = 0;
    while (got < odds) {
        lprt_msg *m = cursor ? lprt_mbox_after(self, cursor) : lprt_mbox_first(self);
        while (m && (m->kind != LPRT_MSG_USER || NUM(m->value) % 2 == 0)) {
            cursor = m->seq;
            m = lprt_mbox_next(self, m);
        }
        if (!m) {
            lprt_reductions(self, 10000);
            continue;
        }
        long v = NUM(m->value);
        int id = (int)(v / 1000000);
        CHECK(v % 1000000 >= next_odd[id]);
        next_odd[id] = v % 1000000 + 1;
        lprt_mbox_take(self, m);
        lprt_msg_free(rt, m);
        if (++got % 64 == 0) {   /* a peek of itself reads its own list */
            int kinds[16];
            void *values[16];
            peek_checked(sh, lprt_id(self), kinds, values);
        }
    }
    /* let the peeker look at the evens waiting here, then take them, in order per sender */
    long seen = atomic_load(&sh->peeks);
    while (atomic_load(&sh->peeks) < seen + 50) lprt_sleep_ms(self, 1);
    long next_even[SENDERS] = {0};
    for (long k = 0; k < total / 2; k++) {
        long v = h_recv_num(self);
        int id = (int)(v / 1000000);
        CHECK(v % 2 == 0 && v % 1000000 >= next_even[id]);
        next_even[id] = v % 1000000 + 1;
    }
    for (lprt_msg *m; (m = lprt_mbox_first(self));) {   /* the dying actors' notices, if any */
        lprt_mbox_take(self, m);
        lprt_msg_free(rt, m);
    }
    CHECK(lprt_send(sh->inner, VAL(0)) == LPRT_OK);
    lprt_release(sh->inner);
}

/* Without a peek in progress an observing runtime's owners take no lock for their lists. */
static void quiet_main(lprt_actor *self, void *ud) {
    sender_arg *arg = ud;
    arg->sink = self;
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), sender, arg, 0));
    for (long k = 0; k < arg->count; k++) CHECK(h_recv_num(self) == k);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        for (int rep = 0; rep < (SANITIZED ? 1 : 3); rep++) {
            shared sh = {.per = SCALE(2000) * 2};
            lprt_config cfg = {.domains = h_domain_counts[d], .observe = 1};
            lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL};
            sh.rt = lprt_new(&cfg, &hooks);
            lprt_actor *m = lprt_create_fiber(sh.rt, sink_main, &sh, 0);
            pthread_t t;
            pthread_create(&t, NULL, peeker, &sh);
            double t0 = h_secs();
            int r = lprt_run(sh.rt, m);
            atomic_store(&sh.done, 1);
            pthread_join(t, NULL);
            CHECK(r == LPRT_NORMAL);
            lprt_stats st;
            lprt_get_stats(sh.rt, &st);
            lprt_release(m);
            lprt_free(sh.rt);
            CHECK(atomic_load(&h_live_values) == 0);
            CHECK(atomic_load(&sh.peeks) > 0);
            printf("  domains=%d: %ld peeks saw %ld messages, owners locked %llu times, %.3fs\n",
                   h_domain_counts[d], atomic_load(&sh.peeks), atomic_load(&sh.seen),
                   (unsigned long long)st.mbox_locks, h_secs() - t0);
        }
    }
    for (size_t d = 0; d < 3; d++) {
        lprt_config cfg = {.domains = h_domain_counts[d], .observe = 1};
        lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL};
        lprt *rt = lprt_new(&cfg, &hooks);
        sender_arg arg = {NULL, 0, SCALE(100000)};
        lprt_actor *m = lprt_create_fiber(rt, quiet_main, &arg, 0);
        CHECK(lprt_run(rt, m) == LPRT_NORMAL);
        lprt_stats st;
        lprt_get_stats(rt, &st);
        CHECK(st.messages >= (uint64_t)arg.count && st.mbox_locks == 0);
        lprt_release(m);
        lprt_free(rt);
    }
    /* without observe, peeking is refused */
    lprt_config cfg = {.domains = 1};
    lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL};
    lprt *rt = lprt_new(&cfg, &hooks);
    int kinds[1];
    void *values[1];
    CHECK(lprt_mbox_peek(rt, 1, kinds, values, 1) == -1);
    lprt_free(rt);
    printf("ok\n");
    return 0;
}
