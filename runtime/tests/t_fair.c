/* t_fair.c — the run queues' order and fairness (sched.c): the actors a turn spawns run in the
 * order it spawned them, a spawn tree runs depth first (few of its actors alive at once), a turn
 * that yields counts as a whole budget of newest-first work, and work that never stops spawning
 * starves nobody: over random seeds on 1, 2 and 4 domains, a yielding actor, a sleeper, a
 * ping-pong and a sibling queued behind an endless tree of spawns all finish. */
#include "harness.h"

#include <unistd.h>

static lprt *fair_new(int domains, int budget) {
    lprt_config cfg = {.domains = domains, .budget = budget};
    lprt_hooks hooks = {.retain = h_retain, .release = h_release, .on_exit = h_on_exit, .unobserved = h_unobserved};
    return lprt_new(&cfg, &hooks);
}

/* ---- order: one turn's spawns run first to last (1 domain) ---- */
static int order_seen[8], order_n;
static void ordered(lprt_actor *self, void *ud) { order_seen[order_n++] = (int)(intptr_t)ud; }
static void order_main(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    for (int i = 0; i < 8; i++) lprt_release(lprt_spawn_fiber(rt, ordered, (void *)(intptr_t)i, 16384));
    lprt_yield(self);
    CHECK(order_n == 8);
    for (int i = 0; i < 8; i++) CHECK(order_seen[i] == i);
}

/* ---- depth first: a 10-ary tree of 11,111 actors never has many alive (1 domain) ---- */
static _Atomic long live, live_max;
static void alive(long d) {
    long n = atomic_fetch_add(&live, d) + d, m = atomic_load(&live_max);
    while (n > m && !atomic_compare_exchange_weak(&live_max, &m, n)) {
    }
}
typedef struct {
    lprt_actor *parent;
    int depth;
} tnode;
static void tree(lprt_actor *self, void *ud) {
    tnode n = *(tnode *)ud;
    free(ud);
    long sum = 1;
    if (n.depth > 0) {
        for (int i = 0; i < 10; i++) {
            tnode *c = malloc(sizeof *c);
            lprt_retain(self);
            *c = (tnode){self, n.depth - 1};
            alive(1);
            lprt_release(lprt_spawn_fiber(lprt_runtime(self), tree, c, 16384));
        }
        for (int i = 0; i < 10; i++) sum += h_recv_num(self);
    }
    lprt_send(n.parent, VAL(sum));
    lprt_release(n.parent);
    alive(-1);
}
static void tree_main(lprt_actor *self, void *ud) {
    tnode *root = malloc(sizeof *root);
    lprt_retain(self);
    *root = (tnode){self, 4};
    alive(1);
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), tree, root, 16384));
    CHECK(h_recv_num(self) == 11111);
}

/* ---- a turn that ends by yielding costs a whole budget (engines counting their own reductions):
   a chain of step actors, each spawning the next and yielding without lprt_reductions, lets the
   actors queued FIFO run between its links, not once every budget's worth of links (1 domain) ---- */
static _Atomic int chain_done;
static long ticker_turns;
/* each link's state, static: the runtime may end before the last links' second turns run */
static intptr_t chain_slots[3001];
static int chain_link(lprt_actor *self, void *ud) {
    intptr_t *left = ud;
    if (*left >= 0) { /* first turn: the next link, then a yield */
        if (*left > 0) {
            intptr_t *next = &chain_slots[*left - 1];
            *next = *left - 1;
            lprt_release(lprt_spawn_step(lprt_runtime(self), chain_link, next));
        } else {
            atomic_store(&chain_done, 1);
        }
        *left = -1;
        return LPRT_YIELD;
    }
    return LPRT_DONE;
}
static int ticker(lprt_actor *self, void *ud) {
    if (atomic_load(&chain_done)) {
        lprt_send(ud, VAL(ticker_turns));
        lprt_release(ud);
        return LPRT_DONE;
    }
    ticker_turns++;
    return LPRT_YIELD;
}
static void chain_main(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    lprt_retain(self);
    lprt_release(lprt_spawn_step(rt, ticker, self));
    chain_slots[3000] = 3000;
    lprt_release(lprt_spawn_step(rt, chain_link, &chain_slots[3000]));
    long turns = h_recv_num(self);
    printf("  a chain of 3000 yielding spawns: a yielding actor had %ld turns meanwhile\n", turns);
    CHECK(turns > 100);
}

/* ---- no starvation ---- */
static _Atomic int stop;
static _Atomic long spawned_live;
#define LIVE_CAP (SANITIZED ? 200 : 2000) /* endless actors alive at once, about */
typedef struct {
    unsigned seed;
    int turns; /* -1: not started */
} gen;

/* spawns one or two more of its kind, then runs 1 to 3 turns of a few reductions */
static void endless(lprt *rt, unsigned seed);
static int endless_step(lprt_actor *self, void *ud) {
    gen *g = ud;
    if (g->turns < 0) {
        g->turns = (int)(h_rand(&g->seed) % 3);
        /* at least one successor: the newest end of the queue never runs dry */
        int kids = atomic_load(&spawned_live) < LIVE_CAP ? 1 + (int)(h_rand(&g->seed) % 2) : 1;
        for (int i = 0; i < kids && !atomic_load(&stop); i++) endless(lprt_runtime(self), h_rand(&g->seed));
    }
    lprt_reductions(self, (int)(h_rand(&g->seed) % 50) + 1);
    if (g->turns-- > 0 && !atomic_load(&stop)) return LPRT_YIELD;
    free(g);
    atomic_fetch_sub(&spawned_live, 1);
    return LPRT_DONE;
}
static void endless_fiber(lprt_actor *self, void *ud) {
    while (endless_step(self, ud) == LPRT_YIELD) lprt_yield(self);
}
static void endless(lprt *rt, unsigned seed) {
    gen *g = malloc(sizeof *g);
    *g = (gen){seed, -1};
    atomic_fetch_add(&spawned_live, 1);
    lprt_release(seed % 2 ? lprt_spawn_step(rt, endless_step, g) : lprt_spawn_fiber(rt, endless_fiber, g, 16384));
}
static void root(lprt_actor *self, void *ud) {
    /* keeps the tree from ever running out: the queue's newest end is never empty */
    unsigned seed = (unsigned)(uintptr_t)ud;
    while (!atomic_load(&stop)) {
        if (atomic_load(&spawned_live) < LIVE_CAP) endless(lprt_runtime(self), h_rand(&seed));
        lprt_reductions(self, 1);
    }
    atomic_fetch_sub(&spawned_live, 1);
}

static void yielder(lprt_actor *self, void *ud) {
    for (int i = 0; i < 10; i++) lprt_yield(self);
    lprt_send(ud, VAL(1));
    lprt_release(ud);
}
static void sleeper(lprt_actor *self, void *ud) {
    for (int i = 0; i < 5; i++) lprt_sleep_ms(self, 1);
    lprt_send(ud, VAL(1));
    lprt_release(ud);
}
static void ponger(lprt_actor *self, void *ud) {
    lprt_msg *m;
    while ((m = lprt_receive(self, -1))) {
        long v = NUM(m->value);
        lprt_msg_free(lprt_runtime(self), m);
        if (v < 0) break;
        lprt_send(ud, VAL(v));
    }
    lprt_release(ud);
}
static void pinger(lprt_actor *self, void *ud) {
    lprt_actor *p = lprt_spawn_fiber(lprt_runtime(self), ponger, self, 16384);
    lprt_retain(self);
    for (long i = 0; i < 50; i++) {
        lprt_send(p, VAL(i));
        CHECK(h_recv_num(self) == i);
    }
    lprt_send(p, VAL(-1));
    lprt_release(p);
    lprt_send(ud, VAL(1));
    lprt_release(ud);
}

typedef struct {
    unsigned seed;
} fair_arg;
static void fair_main(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    unsigned seed = ((fair_arg *)ud)->seed;
    atomic_store(&stop, 0);
    /* one turn: the endless work first, so that the witnesses queue behind it */
    atomic_fetch_add(&spawned_live, 1); /* the root's */
    lprt_release(lprt_spawn_fiber(rt, root, (void *)(uintptr_t)h_rand(&seed), 16384));
    lprt_fiber_fn witnesses[] = {yielder, sleeper, pinger};
    int first = (int)(h_rand(&seed) % 3);
    for (int i = 0; i < 3; i++) {
        lprt_retain(self);
        lprt_release(lprt_spawn_fiber(rt, witnesses[(first + i) % 3], self, 16384));
    }
    int64_t deadline = lprt_deadline_ms(20000);
    for (int i = 0; i < 3; i++) {
        lprt_msg *m = lprt_receive(self, deadline);
        CHECK(m); /* NULL: a witness starved */
        CHECK(NUM(m->value) == 1);
        lprt_msg_free(rt, m);
    }
    atomic_store(&stop, 1);
    while (atomic_load(&spawned_live) > 0) lprt_sleep_ms(self, 1); /* nothing left to leak */
}

int main(void) {
    alarm(120); /* a starved run fails instead of hanging */
    lprt *rt = fair_new(1, 0);
    h_run(rt, lprt_create_fiber(rt, order_main, NULL, 0));

    rt = fair_new(1, 0);
    h_run(rt, lprt_create_fiber(rt, tree_main, NULL, 0));
    printf("  tree of 11111 actors, 1 domain: at most %ld alive\n", atomic_load(&live_max));
    CHECK(atomic_load(&live_max) < 1000);

    rt = fair_new(1, 0);
    h_run(rt, lprt_create_fiber(rt, chain_main, NULL, 0));

    int seeds = SANITIZED ? 3 : 8;
    for (size_t d = 0; d < 3; d++) {
        double t0 = h_secs();
        for (int s = 0; s < seeds; s++) {
            fair_arg arg = {(unsigned)s * 2654435761u + 1};
            rt = fair_new(h_domain_counts[d], (int)(arg.seed % 3) == 0 ? 0 : 50 + (int)(arg.seed % 200));
            h_run(rt, lprt_create_fiber(rt, fair_main, &arg, 0));
        }
        printf("  domains=%d: %d seeds, every witness finished behind endless spawning (%.2fs)\n",
               h_domain_counts[d], seeds, h_secs() - t0);
    }
    printf("ok\n");
    return 0;
}
