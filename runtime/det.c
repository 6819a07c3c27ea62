/* det.c — deterministic simulation (lprt_config.deterministic).
 *
 * The same scheduler with its choice points handed to a PRNG: one domain
 * keeps its runnable actors in an array and runs a PRNG-chosen one each turn
 * (with a PRNG-chosen reduction budget, so preemption points vary too).
 * Time is virtual: every turn advances the clock by TICK_NS and REDUCTION_NS
 * per reduction it spent (nothing else does, so how soon the engine starts the
 * main actor changes nothing, and actors that compute without end still let
 * the clock reach a timer), timers whose
 * deadline has passed fire before the next choice (simultaneous ones become
 * runnable together, so their order is the PRNG's), and when no actor can run
 * the clock jumps to the next deadline instead of waiting. Nothing else
 * decides an order (no io or resolver thread, no stealing), so one seed gives
 * one schedule. Faults draw from a second PRNG stream: kill an actor that does
 * not trap exits, hold back a delivery (and every later one between the same
 * sender and target, so per-sender order holds), let a turn take up to 10 ms
 * of virtual time (a timer fires before the other actors got their usual
 * share of turns: early relative to the work, never before its deadline),
 * fire the timers late at an idle jump.
 * Off (rt->det NULL) the normal scheduler pays one pointer test per choice.  */
#include "lprt_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define TICK_NS 1000                  /* virtual time per turn: 1 us */
#define REDUCTION_NS 1000             /* ... and per reduction it spent: 1 us */
#define KILL_ONE_IN 256               /* faults: per turn, chance of killing an actor */
#define DELAY_ONE_IN 8                /* faults: per user message, chance of holding it */
#define RELEASE_ONE_IN 4              /* faults: per turn, chance of releasing a held one */
#define LATE_ONE_IN 2                 /* faults: per idle jump, chance of firing timers late */
#define LATE_MAX_NS (10 * 1000000LL)  /* ... by up to 10 ms */
#define SLOW_ONE_IN 64                /* faults: per turn with a timer pending, chance of a slow turn */
#define SLOW_MAX_NS (10 * 1000000LL)  /* ... that takes up to 10 ms of virtual time */
#define MAX_FAULT_RATE 256

typedef struct held {
    struct held *next;
    lprt_actor *to; /* referenced */
    uint64_t from;  /* sender's id (0: not an actor) */
    lprt_msg *m;
} held;

struct lprt__det {
    pthread_mutex_t mu; /* the run array: pushes from foreign threads (an interrupt) */
    lprt_actor **q;
    size_t n, cap;
    uint64_t rng, frng; /* schedule and fault streams (splitmix64) */
    int64_t now;
    _Atomic uint64_t steps, injected;
    int faults;
    uint64_t max_faults;
    uint64_t rate; /* faults are this many times as likely (1..MAX_FAULT_RATE) */
    held *held_head, *held_tail;
};

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

lprt__det *lprt__det_new(const lprt_config *cfg) {
    lprt__det *s = calloc(1, sizeof *s);
    if (!s) abort();
    pthread_mutex_init(&s->mu, NULL);
    s->rng = cfg->seed;
    s->frng = cfg->seed ^ 0x5851f42d4c957f2dULL;
    s->faults = cfg->faults;
    s->max_faults = cfg->max_faults;
    s->rate = cfg->fault_rate < 1 ? 1 : cfg->fault_rate > MAX_FAULT_RATE ? MAX_FAULT_RATE : (uint64_t)cfg->fault_rate;
    return s;
}

void lprt__det_free(lprt *rt) {
    lprt__det *s = rt->det;
    if (!s) return;
    for (held *h = s->held_head, *n; h; h = n) {
        n = h->next;
        lprt_msg_free(rt, h->m);
        lprt_release(h->to);
        free(h);
    }
    free(s->q);
    pthread_mutex_destroy(&s->mu);
    free(s);
    rt->det = NULL;
}

int64_t lprt__det_now(lprt__det *s) { return s->now; }

uint64_t lprt_det_steps(lprt *rt) { return rt->det ? atomic_load(&rt->det->steps) : 0; }
uint64_t lprt_det_faults(lprt *rt) { return rt->det ? atomic_load(&rt->det->injected) : 0; }
int64_t lprt_det_clock(lprt *rt) { return rt->det ? rt->det->now : 0; }

void lprt__det_worked(lprt *rt, int reductions) {
    if (reductions > 0) rt->det->now += (int64_t)reductions * REDUCTION_NS;
}

int lprt__det_budget(lprt *rt) { return 1 + (int)(splitmix(&rt->det->rng) % (uint64_t)rt->budget); }

void lprt__det_push(lprt *rt, lprt_actor *a) {
    lprt__det *s = rt->det;
    lprt__domain *d = &rt->domains[0];
    pthread_mutex_lock(&s->mu);
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->q = realloc(s->q, s->cap * sizeof *s->q);
        if (!s->q) abort();
    }
    s->q[s->n++] = a;
    pthread_mutex_unlock(&s->mu);
    if (lprt__cur_domain != d && atomic_load_explicit(&d->parked, memory_order_seq_cst)) lprt__domain_kick(d);
}

static lprt_actor *take_one(lprt__det *s) {
    lprt_actor *a = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->n) {
        size_t i = (size_t)(splitmix(&s->rng) % s->n);
        a = s->q[i];
        s->q[i] = s->q[--s->n];
    }
    pthread_mutex_unlock(&s->mu);
    return a;
}

static bool may_inject(lprt__det *s, uint64_t one_in) {
    if (!s->faults || (s->max_faults && atomic_load(&s->injected) >= s->max_faults)) return false;
    one_in = one_in > s->rate ? one_in / s->rate : 1;
    if (splitmix(&s->frng) % one_in) return false;
    atomic_fetch_add(&s->injected, 1);
    return true;
}

/* ---- delayed deliveries */

static bool pair_held(lprt__det *s, lprt_actor *to, uint64_t from) {
    for (held *h = s->held_head; h; h = h->next)
        if (h->to == to && h->from == from) return true;
    return false;
}

bool lprt__det_hold(lprt_actor *to, lprt_msg *m) {
    lprt__det *s = to->rt->det;
    if (!s->faults) return false;
    lprt_actor *self = lprt__cur_actor;
    uint64_t from = m->kind == LPRT_MSG_USER ? (self ? self->id : 0) : m->actor_id;
    /* once one delivery between a sender and a target is held, later ones queue behind it */
    if (!pair_held(s, to, from) && (m->kind != LPRT_MSG_USER || !may_inject(s, DELAY_ONE_IN))) return false;
    held *h = malloc(sizeof *h);
    if (!h) abort();
    lprt_retain(to);
    *h = (held){NULL, to, from, m};
    if (s->held_tail) s->held_tail->next = h;
    else s->held_head = h;
    s->held_tail = h;
    return true;
}

/* Deliver the oldest held message of a PRNG-chosen sender/target pair. */
static void release_one(lprt__det *s) {
    size_t n = 0;
    for (held *h = s->held_head; h; h = h->next) n++;
    size_t k = (size_t)(splitmix(&s->frng) % n);
    held *pick = s->held_head;
    while (k--) pick = pick->next;
    held **pp = &s->held_head, *prev = NULL;
    while ((*pp)->to != pick->to || (*pp)->from != pick->from) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    held *h = *pp;
    *pp = h->next;
    if (s->held_tail == h) s->held_tail = prev;
    lprt__mbox_deliver(h->to, h->m);
    lprt_release(h->to);
    free(h);
}

/* ---- killing an actor */

static void kill_one(lprt *rt) {
    lprt_actor *pick = NULL;
    size_t live = 0;
    for (int pass = 0; pass < 2 && !pick; pass++) {
        size_t k = pass ? (size_t)(splitmix(&rt->det->frng) % live) : 0;
        for (int i = 0; i < REG_SHARDS && !pick; i++) {
            lprt__shard *sh = &rt->reg[i];
            pthread_mutex_lock(&sh->mu);
            for (lprt_actor *a = sh->head; a; a = a->reg_next) {
                if (a == rt->main || atomic_load(&a->trap) || !a->started) continue;
                if (!pass) live++;
                else if (k-- == 0) {
                    pick = a;
                    lprt_retain(a);
                    break;
                }
            }
            pthread_mutex_unlock(&sh->mu);
        }
        if (!live) return;
    }
    if (!pick) return;
    atomic_fetch_add(&rt->det->injected, 1);
    lprt_exit(NULL, pick, LPRT_KILLED, NULL);
    lprt_release(pick);
}

/* ---- time */

static int64_t next_deadline(lprt *rt) {
    pthread_mutex_lock(&rt->timers.mu);
    int64_t next = rt->timers.n ? rt->timers.heap[0]->t_deadline : -1;
    pthread_mutex_unlock(&rt->timers.mu);
    return next;
}

static void park(lprt__domain *d) {
    lprt *rt = d->rt;
    uint32_t v = atomic_load_explicit(&d->futex, memory_order_seq_cst);
    atomic_store_explicit(&d->parked, 1, memory_order_seq_cst);
    pthread_mutex_lock(&rt->det->mu);
    size_t n = rt->det->n;
    pthread_mutex_unlock(&rt->det->mu);
    if (!n && !atomic_load_explicit(&rt->stopping, memory_order_seq_cst)) {
        if (rt->hooks.deadlock && lprt__deadlocked(rt)) lprt__report_deadlock(rt);
        lprt__futex_wait(&d->futex, v);
    }
    atomic_store_explicit(&d->parked, 0, memory_order_seq_cst);
}

void lprt__det_loop(lprt__domain *d) {
    lprt *rt = d->rt;
    lprt__det *s = rt->det;
    while (!atomic_load_explicit(&rt->stopping, memory_order_acquire)) {
        int64_t next = next_deadline(rt);
        if (next >= 0 && next <= s->now) lprt__timers_fire(rt, s->now);
        lprt_actor *a = take_one(s);
        if (a) {
            /* faults draw only per turn: idle loops (waiting for the engine to start main) vary */
            if (s->faults) {
                if (s->held_head && splitmix(&s->frng) % RELEASE_ONE_IN == 0) release_one(s);
                if (may_inject(s, KILL_ONE_IN)) {
                    atomic_fetch_sub(&s->injected, 1); /* kill_one counts it if it finds a victim */
                    kill_one(rt);
                }
                /* a slow turn: the clock moves on while the others wait, so a pending timer may
                   fire before they get their share (never before its deadline) */
                if (next > s->now && next < INT64_MAX && may_inject(s, SLOW_ONE_IN))
                    s->now += (int64_t)(splitmix(&s->frng) % SLOW_MAX_NS);
            }
            s->now += TICK_NS;
            atomic_fetch_add_explicit(&s->steps, 1, memory_order_relaxed);
            lprt__run_actor(d, a);
            continue;
        }
        if (s->held_head) {
            release_one(s);
            continue;
        }
        if (next >= 0 && next < INT64_MAX) {
            /* nothing can run before the next deadline: jump to it */
            int64_t late = may_inject(s, LATE_ONE_IN) ? (int64_t)(splitmix(&s->frng) % LATE_MAX_NS) : 0;
            if (next + late > s->now) s->now = next + late;
            lprt__timers_fire(rt, s->now);
            continue;
        }
        park(d);
    }
}
