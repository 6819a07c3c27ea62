/* t_background.c — lprt_set_background: a producer sends to a consumer that keeps up on one
 * domain while a background actor (as the observer's) wakes on a timer again and again and
 * spawns a child; the other domain is never woken, so it runs no turn. Without the rule, the
 * background actor queued beside the woken consumer makes two queued actors and wakes it. */
#include "harness.h"

enum { WARM = 5, TICKS = 40 };

typedef struct {
    _Atomic int ticks;
    lprt_actor *consumer;
    _Atomic int child_background_ran;
} shared;

static void child(lprt_actor *self, void *ud) {
    (void)self;
    atomic_store(&((shared *)ud)->child_background_ran, 1);
}

static void ticker(lprt_actor *self, void *ud) {
    shared *sh = ud;
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), child, sh, 0));   /* background too */
    for (;;) {
        lprt_msg *m = lprt_receive(self, lprt_deadline_ms(1));   /* a timer wakes it every millisecond */
        if (m) {
            lprt_msg_free(lprt_runtime(self), m);
            return;
        }
        atomic_fetch_add(&sh->ticks, 1);
    }
}

static void consumer(lprt_actor *self, void *ud) {
    (void)ud;
    while (h_recv_num(self) >= 0) {}
}

/* Turns run and time parked, summed over the domains other than mine. */
static void elsewhere(lprt *rt, int mine, uint64_t *turns, uint64_t *parked_ns) {
    lprt_domain_info d[8];
    int n = lprt_domain_snapshot(rt, d, 8);
    *turns = *parked_ns = 0;
    for (int i = 0; i < n; i++)
        if (i != mine) *turns += d[i].turns, *parked_ns += d[i].parked_ns;
}

static int domain_of(lprt *rt, uint64_t id) {
    lprt_actor_info infos[8];
    size_t n = lprt_snapshot(rt, infos, 8);
    for (size_t k = 0; k < n && k < 8; k++)
        if (infos[k].id == id) return infos[k].domain;
    return -1;
}

static long produce(lprt_actor *self, lprt_actor *c, shared *sh, long i, int until) {
    for (; atomic_load(&sh->ticks) < until; i++) {
        CHECK(lprt_send(c, VAL(i)) == LPRT_OK);
        lprt_reductions(self, 50);
    }
    return i;
}

static void producer(lprt_actor *self, void *ud) {
    shared *sh = ud;
    lprt *rt = lprt_runtime(self);
    lprt_actor *c = lprt_spawn_fiber(rt, consumer, NULL, 0);
    lprt_actor *t = lprt_create_fiber(rt, ticker, sh, 0);
    lprt_set_background(t);
    lprt_start(t);
    /* warm up until the other domain is parked: it ran no turn and its parked time grew
       over a tick (it started with us and may have taken an actor then) */
    long i = produce(self, c, sh, 0, WARM);
    int mine;
    uint64_t turns, parked, turns2, parked2;
    do {
        mine = domain_of(rt, lprt_id(self));
        elsewhere(rt, mine, &turns, &parked);
        i = produce(self, c, sh, i, atomic_load(&sh->ticks) + 2);
        elsewhere(rt, mine, &turns2, &parked2);
    } while (mine != domain_of(rt, lprt_id(self)) || turns2 != turns || parked2 <= parked);
    int until = atomic_load(&sh->ticks) + TICKS;
    produce(self, c, sh, i, until);
    elsewhere(rt, mine, &turns2, &parked2);
    CHECK(turns2 == turns);
    CHECK(atomic_load(&sh->child_background_ran) == 1);
    CHECK(lprt_send(c, VAL(-1)) == LPRT_OK);
    CHECK(lprt_send(t, VAL(0)) == LPRT_OK);
    lprt_release(c);
    lprt_release(t);
}

int main(void) {
    for (int rep = 0; rep < (SANITIZED ? 2 : 5); rep++) {
        shared sh = {0};
        lprt *rt = h_new(2);
        lprt_actor *m = lprt_create_fiber(rt, producer, &sh, 0);
        CHECK(h_run(rt, m) == LPRT_NORMAL);
    }
    printf("ok\n");
    return 0;
}
