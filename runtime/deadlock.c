/* deadlock.c — noticing that no actor can ever run again.
 *
 * Checked by the last domain to park, so no actor is running and, with the
 * engine's promise that only actors send and signal (the hook is its opt-in),
 * the only things that can still wake one are timers, fd readiness and DNS
 * lookups. If none is pending and every live actor waits for a message with
 * no deadline, nothing will ever happen again: the engine's hook describes the
 * waits, and lprt_run ends with LPRT_EDEADLOCK. A wake in flight from the io
 * or resolver thread shows in the woken actor's own state (still WAITING with
 * a deadline or an fd/resolve wait, or RUNNABLE), so it is never mistaken for
 * a deadlock.                                                               */
#include "lprt_internal.h"

static bool blocked_for_good(lprt_actor *a) {
    uint64_t w = atomic_load_explicit(&a->st, memory_order_seq_cst);
    if (W_STATE(w) != LPRT_ST_WAITING) return false;
    if (atomic_load_explicit(&a->inbound, memory_order_seq_cst)) return false;
    if (atomic_load_explicit(&a->kill_pending, memory_order_seq_cst)) return false;
    /* the owner wrote its wait before its seq_cst move to WAITING, read above */
    int wk = a->wait_kind == WAIT_NONE ? WAIT_RECEIVE : a->wait_kind;
    if (wk != WAIT_RECEIVE && wk != WAIT_SLEEP) return false;
    return a->wait_kind == WAIT_NONE || a->wait_deadline < 0;
}

bool lprt__deadlocked(lprt *rt) {
    if (atomic_load_explicit(&rt->stopping, memory_order_seq_cst) ||
        atomic_load_explicit(&rt->deadlocked, memory_order_seq_cst))
        return false;
    lprt_actor *main = rt->main;
    if (!main || W_STATE(atomic_load_explicit(&main->st, memory_order_seq_cst)) == LPRT_ST_DEAD) return false;
    for (int i = 0; i < rt->ndomains; i++) {
        lprt__domain *d = &rt->domains[i];
        if (atomic_load_explicit(&d->inbox, memory_order_seq_cst) || lprt__domain_queued(d) > 0) return false;
    }
    pthread_mutex_lock(&rt->timers.mu);
    size_t timers = rt->timers.n;
    pthread_mutex_unlock(&rt->timers.mu);
    if (timers) return false;
    for (int i = 0; i < REG_SHARDS; i++) {
        lprt__shard *s = &rt->reg[i];
        bool ok = true;
        pthread_mutex_lock(&s->mu);
        for (lprt_actor *a = s->head; a && ok; a = a->reg_next) ok = blocked_for_good(a);
        pthread_mutex_unlock(&s->mu);
        if (!ok) return false;
    }
    return true;
}

void lprt__report_deadlock(lprt *rt) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&rt->deadlocked, &expected, 1)) return;
    rt->hooks.deadlock(rt, rt->hooks.ud);
    pthread_mutex_lock(&rt->done_mu);
    if (!rt->done) {
        rt->done = 1;
        rt->main_reason = LPRT_EDEADLOCK;
        pthread_cond_signal(&rt->done_cv);
    }
    pthread_mutex_unlock(&rt->done_mu);
}
