/* sched.c — domains, the run loop, parking, and actor state transitions.
 *
 * Each domain is an OS thread with two Chase-Lev deques and an MPSC inbox.
 * Actors spawned or woken by a turn go onto `lifo` as it runs (thieves see
 * them at once) and are put back in order when it ends: the domain runs the
 * newest batch first, in the order the turn made it runnable, so a tree of
 * spawns is walked depth first and few of its actors are alive at once.
 * Turns that end runnable (yields) and actors handed over from elsewhere go
 * to `dq`, which runs FIFO (a yielding actor goes behind the others). After a
 * turn budget's worth of lifo turns, lifo's oldest entry and a round of dq
 * run (take_local), so nothing queued waits for ever, whatever keeps
 * spawning. Thieves take the oldest work of either. With nothing to do a
 * domain parks on a futex. Parking protocol: read the futex word, publish
 * parked=1 (seq_cst), re-check inbox and deques, then futex_wait on the old
 * word. A waker publishes work (seq_cst) and then reads `parked`; if set it
 * bumps the word and wakes. One side always sees the other.
 *
 * Waking an actor is a CAS on its state word (see lprt_internal.h): exactly one
 * waker moves WAITING(s) -> RUNNABLE(s+1, reason) and enqueues it.            */
#include "lprt_internal.h"

#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

_Thread_local lprt__domain *lprt__cur_domain;
_Thread_local lprt_actor *lprt__cur_actor;

void lprt__futex_wait(_Atomic uint32_t *addr, uint32_t val) {
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void lprt__futex_wake(_Atomic uint32_t *addr, int n) {
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void lprt__domain_kick(lprt__domain *d) {
    atomic_fetch_add_explicit(&d->futex, 1, memory_order_seq_cst);
    lprt__futex_wake(&d->futex, 1);
}

static void domain_wake_if_parked(lprt__domain *d) {
    if (atomic_load_explicit(&d->parked, memory_order_seq_cst)) lprt__domain_kick(d);
}

static void wake_one_parked(lprt *rt, lprt__domain *me) {
    int n = rt->ndomains;
    for (int i = 1; i < n; i++) {
        lprt__domain *d = &rt->domains[(me->index + i) % n];
        if (atomic_load_explicit(&d->parked, memory_order_seq_cst)) {
            lprt__domain_kick(d);
            return;
        }
    }
}

static bool background(lprt_actor *a) { return atomic_load_explicit(&a->background, memory_order_relaxed); }

/* The run queues' push and take, counting the background actors queued (sched.c's wake test). */
static void dq_push(lprt__domain *d, lprt__deque *q, lprt_actor *a) {
    if (background(a)) atomic_fetch_add_explicit(&d->bg_queued, 1, memory_order_relaxed);
    lprt__dq_push(q, a);
}

static lprt_actor *counted(lprt__domain *d, lprt_actor *a) {
    if (a && background(a)) atomic_fetch_sub_explicit(&d->bg_queued, 1, memory_order_relaxed);
    return a;
}

static lprt_actor *dq_steal(lprt__domain *d, lprt__deque *q) { return counted(d, lprt__dq_steal(q)); }

int64_t lprt__domain_queued(lprt__domain *d) { return lprt__dq_size(&d->dq) + lprt__dq_size(&d->lifo); }

/* Queued work another domain could take: the background actors are left out. */
static int64_t program_queued(lprt__domain *d) {
    return lprt__domain_queued(d) - atomic_load_explicit(&d->bg_queued, memory_order_relaxed);
}

/* Where a background actor woken from outside the domains goes: home, unless home is parked
   and another domain is running. */
static lprt__domain *awake_domain(lprt *rt, lprt__domain *home) {
    if (!atomic_load_explicit(&home->parked, memory_order_seq_cst)) return home;
    for (int i = 0; i < rt->ndomains; i++)
        if (!atomic_load_explicit(&rt->domains[i].parked, memory_order_seq_cst)) return &rt->domains[i];
    return home;
}

static void inbox_push(lprt__domain *d, lprt_actor *a) {
    lprt_actor *h = atomic_load_explicit(&d->inbox, memory_order_relaxed);
    do {
        a->qnext = h;
    } while (!atomic_compare_exchange_weak_explicit(&d->inbox, &h, a, memory_order_seq_cst,
                                                    memory_order_relaxed));
}

static void inbox_drain(lprt__domain *d) {
    lprt_actor *s = atomic_exchange_explicit(&d->inbox, NULL, memory_order_acquire);
    lprt_actor *rev = NULL;
    while (s) {
        lprt_actor *n = s->qnext;
        s->qnext = rev;
        rev = s;
        s = n;
    }
    while (rev) {
        lprt_actor *n = rev->qnext;
        rev->qnext = NULL;
        dq_push(d, &d->dq, rev);
        rev = n;
    }
}

void lprt__schedule(lprt_actor *a) {
    lprt *rt = a->rt;
    if (rt->det) {
        lprt__det_push(rt, a);
        return;
    }
    lprt__domain *me = lprt__cur_domain;
    lprt__domain *home = a->home;
    if (me && me->rt == rt) {
        /* Spawned or woken by a turn running here: it joins the turn's batch,
           which runs next on this domain (typically as soon as the waker
           blocks: message passing chains such as the thread ring stay on one
           domain and cost no futex wake); a parked home domain is handed the
           actor only when it would otherwise queue behind other work here. */
        bool bg = background(a);
        if (!bg && home && home != me && program_queued(me) > 0 &&
            atomic_load_explicit(&home->parked, memory_order_seq_cst)) {
            inbox_push(home, a);
            domain_wake_if_parked(home);
            return;
        }
        if (bg) {
            dq_push(me, &me->dq, a);
            return;
        }
        lprt__dq_push(&me->lifo, a);
        me->nfresh++;
        if (atomic_load_explicit(&rt->nparked, memory_order_seq_cst) > 0 && program_queued(me) > 1)
            wake_one_parked(rt, me);
        return;
    }
    if (!home) home = &rt->domains[a->id % (uint64_t)rt->ndomains];
    if (background(a)) home = awake_domain(rt, home);
    inbox_push(home, a);
    domain_wake_if_parked(home);
}

bool lprt__wake(lprt_actor *a, int reason, uint64_t seq) {
    uint64_t w = atomic_load_explicit(&a->st, memory_order_seq_cst);
    for (;;) {
        int s = W_STATE(w);
        if (s == LPRT_ST_WAITING) {
            if (seq != W_ANY_SEQ && W_SEQ(w) != seq) return false;
            if (reason == LPRT_WAKE_MESSAGE && !(w & W_WANT_MSG)) return false;
            uint64_t nw = W_MAKE(LPRT_ST_RUNNABLE, reason, W_SEQ(w) + 1);
            if (atomic_compare_exchange_weak_explicit(&a->st, &w, nw, memory_order_seq_cst,
                                                      memory_order_seq_cst)) {
                lprt__schedule(a);
                return true;
            }
            continue;
        }
        if (s == LPRT_ST_RUNNING && seq != W_ANY_SEQ && W_SEQ(w) == seq && W_REASON(w) == 0) {
            /* the actor is between registering this wait and reaching WAITING */
            if (atomic_compare_exchange_weak_explicit(&a->st, &w, w | ((uint64_t)reason << 4),
                                                      memory_order_seq_cst, memory_order_seq_cst))
                return true;
            continue;
        }
        return false;
    }
}

static void requeue(lprt__domain *d, lprt_actor *a, int reason, uint64_t seq) {
    atomic_store_explicit(&a->st, W_MAKE(LPRT_ST_RUNNABLE, reason, seq + 1), memory_order_seq_cst);
    if (d->rt->det) lprt__det_push(d->rt, a);
    else dq_push(d, &d->dq, a);
}

static void block(lprt__domain *d, lprt_actor *a, uint64_t seq) {
    int wk = a->wait_kind;
    if (wk == WAIT_NONE) {
        wk = WAIT_RECEIVE;
        a->wait_after = a->tail ? a->tail->seq : 0;
        a->wait_deadline = -1;
    }
    bool want_msg = wk == WAIT_RECEIVE || wk == WAIT_FD_RECEIVE;
    int64_t dl = a->wait_deadline;
    if (want_msg && lprt__mbox_has_after(a, a->wait_after)) {
        requeue(d, a, LPRT_WAKE_MESSAGE, seq);
        return;
    }
    if (dl >= 0 && dl <= lprt_now()) {
        requeue(d, a, LPRT_WAKE_TIMEOUT, seq);
        return;
    }
    if (dl >= 0) lprt__timer_arm(a, dl, seq);
    else lprt__timer_disarm(a);
    if (wk == WAIT_FD || wk == WAIT_FD_RECEIVE) {
        if (d->rt->det) {
            fprintf(stderr, "lprt: fd waits are not supported in deterministic mode\n");
            abort();
        }
        if (lprt__io_need(d->rt)) lprt__io_wait_fd(a, a->wait_fd, a->wait_events, seq); /* else stopping */
    }

    if (a->kind == LPRT_FIBER) lprt__fiber_park(a); /* before WAITING: then another domain may resume it */
    uint64_t exp = W_MAKE(LPRT_ST_RUNNING, 0, seq);
    uint64_t nw = W_MAKE(LPRT_ST_WAITING, 0, seq) | (want_msg ? W_WANT_MSG : 0);
    lprt_retain(a); /* once WAITING is published `a` may run and die elsewhere */
    if (!atomic_compare_exchange_strong_explicit(&a->st, &exp, nw, memory_order_seq_cst,
                                                 memory_order_seq_cst)) {
        requeue(d, a, W_REASON(exp), seq); /* a timer / fd / resolver wake arrived first */
    } else if (want_msg && atomic_load_explicit(&a->inbound, memory_order_seq_cst)) {
        /* re-check what senders and killers did while they saw RUNNING */
        lprt__wake(a, LPRT_WAKE_MESSAGE, seq);
    } else if (atomic_load_explicit(&a->kill_pending, memory_order_seq_cst)) {
        lprt__wake(a, LPRT_WAKE_KILLED, seq);
    }
    lprt_release(a);
}

static lprt_reason take_kill_reason(lprt_actor *a) {
    pthread_mutex_lock(&a->lock);
    lprt_reason r = a->kill_reason;
    a->kill_reason = (lprt_reason){LPRT_NORMAL, NULL};
    pthread_mutex_unlock(&a->lock);
    return r;
}

void lprt__finish(lprt_actor *a, lprt_reason r) {
    lprt *rt = a->rt;
    lprt__timer_disarm(a);
    lprt__resolve_drop(a);
    lprt__notify_death(a, r); /* records the reason, DEAD, links + monitors */
    if (rt->hooks.on_exit) rt->hooks.on_exit(a, r.kind, r.value, a->ud, rt->hooks.ud);
    lprt__mbox_free_all(a);
    if (a->kind == LPRT_FIBER) lprt__fiber_free(lprt__cur_domain, a);
    lprt__registry_remove(a);
    atomic_fetch_add_explicit(&rt->st_exited, 1, memory_order_relaxed);
    if (a == rt->main) {
        pthread_mutex_lock(&rt->done_mu);
        rt->done = 1;
        rt->main_reason = r.kind;
        pthread_cond_signal(&rt->done_cv);
        pthread_mutex_unlock(&rt->done_mu);
    }
    lprt_release(a); /* the registry's reference */
}

void lprt__run_actor(lprt__domain *d, lprt_actor *a) {
    uint64_t w = atomic_load_explicit(&a->st, memory_order_acquire);
    uint64_t seq = W_SEQ(w);
    atomic_store_explicit(&a->st, W_MAKE(LPRT_ST_RUNNING, 0, seq), memory_order_seq_cst);
    a->home = d;
    /* single writer: plain relaxed load and store, no locked instruction on the turn's path */
    atomic_store_explicit(&a->turns, atomic_load_explicit(&a->turns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&a->ran_on, d->index + 1, memory_order_relaxed);
    atomic_store_explicit(&d->turns, atomic_load_explicit(&d->turns, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    a->wake_reason = W_REASON(w);
    int budget = a->budget = d->rt->det ? lprt__det_budget(d->rt) : d->rt->budget;
    a->wait_kind = WAIT_NONE;
    d->turn_cost = 1;
    if (atomic_load_explicit(&a->kill_pending, memory_order_acquire)) {
        if (a->kind == LPRT_FIBER) lprt__fiber_unwind(d, a);
        lprt__finish(a, take_kill_reason(a));
        return;
    }
    lprt__cur_actor = a;
    int r = a->kind == LPRT_STEP ? a->step(a, a->ud) : lprt__fiber_resume(d, a);
    lprt__cur_actor = NULL;
    d->turn_cost = budget - a->budget > 1 ? budget - a->budget : 1;
    if (d->rt->det) lprt__det_worked(d->rt, budget - a->budget);
    if (r == LPRT_DONE) {
        lprt_reason own = a->own_reason;
        a->own_reason = (lprt_reason){LPRT_NORMAL, NULL};
        lprt__finish(a, own);
    } else if (atomic_load_explicit(&a->kill_pending, memory_order_acquire)) {
        if (a->kind == LPRT_FIBER) lprt__fiber_unwind(d, a);
        lprt__finish(a, take_kill_reason(a));
    } else if (r == LPRT_BLOCK) {
        block(d, a, seq);
    } else {
        d->turn_cost = d->rt->budget; /* preempted (engines that count their own reductions) or yielding */
        requeue(d, a, LPRT_WAKE_YIELD, seq);
    }
}

/* The last turn's batch, pushed newest last, is taken back from lifo's bottom and pushed again
   oldest last, so that it runs in the order the turn made it runnable (what thieves took meanwhile
   is simply not there). */
static void flip_fresh(lprt__domain *d) {
    int n = d->nfresh;
    d->nfresh = 0;
    if (n < 2) return;
    if (n > d->flip_cap) {
        d->flip_cap = n > 2 * d->flip_cap ? n : 2 * d->flip_cap;
        d->flip = realloc(d->flip, (size_t)d->flip_cap * sizeof *d->flip);
        if (!d->flip) abort();
    }
    int k = 0;
    lprt_actor *a;
    while (k < n && (a = lprt__dq_pop(&d->lifo))) d->flip[k++] = a;
    for (int i = 0; i < k; i++) lprt__dq_push(&d->lifo, d->flip[i]);
}

/* Newest batch first, until the turns taken from lifo since dq last had a round have cost a turn's
   budget (each turn its reductions, at least 1). Then the oldest entry of lifo runs, and a round of dq:
   every actor queued there at that moment gets a turn before lifo goes on. So neither a spawning tree
   nor a message chain keeps the rest waiting: an actor in dq waits for the actors ahead of it and at
   most two budgets of lifo work; lifo's oldest entry for one budget per entry above it. */
static lprt_actor *take_local(lprt__domain *d) {
    lprt_actor *a;
    if (d->from_lifo) d->lifo_work += d->turn_cost;
    d->from_lifo = false;
    if (d->lifo_work >= d->rt->budget) {
        d->lifo_work = 0;
        d->round = lprt__dq_size(&d->dq);
        a = lprt__dq_steal(&d->lifo);
        if (a) return a;
    }
    if (d->round > 0) {
        d->round--;
        a = dq_steal(d, &d->dq);
        if (a) return a;
        d->round = 0;
    }
    a = lprt__dq_take(&d->lifo);
    if (a) {
        d->from_lifo = true;
        return a;
    }
    d->lifo_work = 0;
    return dq_steal(d, &d->dq);
}

static lprt_actor *find_work(lprt__domain *d) {
    lprt *rt = d->rt;
    flip_fresh(d);
    if (atomic_load_explicit(&d->inbox, memory_order_relaxed)) inbox_drain(d);
    lprt_actor *a = take_local(d);
    if (a) return a;
    int n = rt->ndomains;
    d->rng = d->rng * 1103515245u + 12345u;
    int off = (int)((d->rng >> 16) % (unsigned)n);
    for (int i = 0; i < n; i++) {
        lprt__domain *v = &rt->domains[(off + i) % n];
        if (v == d) continue;
        a = dq_steal(v, &v->lifo);
        if (!a) a = dq_steal(v, &v->dq);
        if (a) {
            atomic_fetch_add_explicit(&rt->st_steals, 1, memory_order_relaxed);
            return a;
        }
    }
    return NULL;
}

static bool any_work(lprt__domain *d) {
    lprt *rt = d->rt;
    if (atomic_load_explicit(&d->inbox, memory_order_seq_cst)) return true;
    for (int i = 0; i < rt->ndomains; i++)
        if (lprt__domain_queued(&rt->domains[i]) > 0) return true;
    return false;
}

static void park(lprt__domain *d) {
    lprt *rt = d->rt;
    uint32_t v = atomic_load_explicit(&d->futex, memory_order_seq_cst);
    atomic_store_explicit(&d->parked, 1, memory_order_seq_cst);
    int np = atomic_fetch_add_explicit(&rt->nparked, 1, memory_order_seq_cst) + 1;
    if (!atomic_load_explicit(&rt->stopping, memory_order_seq_cst) && !any_work(d)) {
        /* the last domain to park checks whether anything can ever wake an actor again */
        if (np == rt->ndomains && rt->hooks.deadlock && lprt__deadlocked(rt)) lprt__report_deadlock(rt);
        atomic_fetch_add_explicit(&rt->st_parks, 1, memory_order_relaxed);
        int64_t since = lprt__clock_ns();
        atomic_store_explicit(&d->parked_since, since, memory_order_relaxed);
        lprt__park_wait(d, v);
        atomic_store_explicit(&d->parked_since, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&d->parked_ns, (uint64_t)(lprt__clock_ns() - since), memory_order_relaxed);
    }
    atomic_fetch_sub_explicit(&rt->nparked, 1, memory_order_seq_cst);
    atomic_store_explicit(&d->parked, 0, memory_order_seq_cst);
}

static void *domain_main(void *arg) {
    lprt__domain *d = arg;
    lprt *rt = d->rt;
    lprt__cur_domain = d;
#ifdef LPRT_TSAN
    extern void *__tsan_get_current_fiber(void);
    d->tsan_sched = __tsan_get_current_fiber();
#endif
    if (rt->det) {
        lprt__det_loop(d);
        lprt__cur_domain = NULL;
        return NULL;
    }
    while (!atomic_load_explicit(&rt->stopping, memory_order_acquire)) {
        lprt_actor *a = find_work(d);
        if (a) lprt__run_actor(d, a);
        else park(d);
    }
    lprt__cur_domain = NULL;
    return NULL;
}

/* Shutdown: no domain runs any more; stop an actor without notifying anyone. */
static void stop_actor(lprt_actor *a) {
    lprt *rt = a->rt;
    lprt__timer_disarm(a);
    lprt__resolve_drop(a);
    pthread_mutex_lock(&a->lock);
    lprt__link *links = a->links, *mons = a->monitors;
    a->links = a->monitors = NULL;
    lprt__reason_release(rt, a->reason);
    a->reason = (lprt_reason){LPRT_KILLED, NULL};
    atomic_store(&a->st, W_MAKE(LPRT_ST_DEAD, 0, 0));
    pthread_mutex_unlock(&a->lock);
    for (lprt__link *l = links, *n; l; l = n) {
        n = l->next;
        lprt_release(l->actor);
        free(l);
    }
    for (lprt__link *l = mons, *n; l; l = n) {
        n = l->next;
        lprt_release(l->actor);
        free(l);
    }
    if (rt->hooks.on_exit) rt->hooks.on_exit(a, LPRT_KILLED, NULL, a->ud, rt->hooks.ud);
    lprt__mbox_free_all(a);
    if (a->kind == LPRT_FIBER) lprt__fiber_free(NULL, a);
    lprt_release(a);
}

int lprt_run(lprt *rt, lprt_actor *main_actor) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&rt->running, &expected, 1)) return LPRT_EINVAL;
    lprt_retain(main_actor);
    rt->main = main_actor;
    lprt__resolver_init();
    for (int i = 0; i < rt->ndomains; i++)
        if (pthread_create(&rt->domains[i].thread, NULL, domain_main, &rt->domains[i]) != 0) abort();
    lprt_start(main_actor);
    pthread_mutex_lock(&rt->done_mu);
    while (!rt->done) pthread_cond_wait(&rt->done_cv, &rt->done_mu);
    int result = rt->main_reason;
    pthread_mutex_unlock(&rt->done_mu);

    atomic_store(&rt->stopping, 1);
    for (int i = 0; i < rt->ndomains; i++) lprt__domain_kick(&rt->domains[i]);
    for (int i = 0; i < rt->ndomains; i++) pthread_join(rt->domains[i].thread, NULL);
    lprt__io_stop(rt);
    lprt__resolver_stop(rt);
    lprt__jobs_stop(rt);
    for (int i = 0; i < REG_SHARDS; i++) {
        lprt__shard *s = &rt->reg[i];
        for (;;) {
            pthread_mutex_lock(&s->mu);
            lprt_actor *a = s->head;
            if (a) {
                s->head = a->reg_next;
                if (s->head) s->head->reg_prev = NULL;
                a->reg_next = a->reg_prev = NULL;
                s->n--;
            }
            pthread_mutex_unlock(&s->mu);
            if (!a) break;
            stop_actor(a);
        }
    }
    rt->main = NULL;
    lprt_release(main_actor);
    return result;
}
