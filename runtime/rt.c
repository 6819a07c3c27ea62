/* rt.c — runtime object, engine hooks, actor creation, refcounts and the registry. */
#include "lprt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void default_unobserved(lprt_actor *a, int kind, void *value, void *ud) {
    (void)value;
    (void)ud;
    fprintf(stderr, "lprt: actor %llu died unobserved: %s\n", (unsigned long long)a->id,
            kind == LPRT_KILLED ? "killed" : "error");
}

lprt *lprt_new(const lprt_config *cfg, const lprt_hooks *hooks) {
    lprt *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    atomic_init(&rt->refs, 1);
    if (hooks) rt->hooks = *hooks;
    if (!rt->hooks.unobserved) rt->hooks.unobserved = default_unobserved;
    int n = cfg && cfg->domains > 0 ? cfg->domains : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cfg && cfg->deterministic) {
        rt->det = lprt__det_new(cfg);
        n = 1;
    }
    if (n < 1) n = 1;
    if (n > 256) n = 256;
    rt->ndomains = n;
    rt->budget = cfg && cfg->budget > 0 ? cfg->budget : 2000;
    rt->observe = cfg && cfg->observe;
    rt->fiber_stack = cfg && cfg->fiber_stack ? cfg->fiber_stack : 64 * 1024;
    rt->unwind_killed_fibers = cfg && cfg->unwind_killed_fibers;
    atomic_init(&rt->next_id, 1);
    atomic_init(&rt->next_ref, 1);
    pthread_mutex_init(&rt->done_mu, NULL);
    pthread_cond_init(&rt->done_cv, NULL);
    pthread_mutex_init(&rt->start_mu, NULL);
    for (int i = 0; i < REG_SHARDS; i++) pthread_mutex_init(&rt->reg[i].mu, NULL);
    lprt__timers_init(&rt->timers);
    lprt__stack_pool_init(rt);
    rt->domains = calloc((size_t)n, sizeof(lprt__domain));
    if (!rt->domains) abort();
    for (int i = 0; i < n; i++) {
        lprt__domain *d = &rt->domains[i];
        d->rt = rt;
        d->index = i;
        d->rng = 0x9e3779b9u * (unsigned)(i + 1);
        lprt__dq_init(&d->dq);
        lprt__dq_init(&d->lifo);
    }
    return rt;
}

static void rt_destroy(lprt *rt) {
    for (int i = 0; i < rt->ndomains; i++) {
        lprt__dq_destroy(&rt->domains[i].dq);
        lprt__dq_destroy(&rt->domains[i].lifo);
        free(rt->domains[i].flip);
        lprt__stack_cache_free(&rt->domains[i]);
    }
    lprt__stack_pool_free(rt);
    free(rt->domains);
    lprt__det_free(rt);
    lprt__timers_destroy(rt);
    for (int i = 0; i < REG_SHARDS; i++) pthread_mutex_destroy(&rt->reg[i].mu);
    pthread_mutex_destroy(&rt->done_mu);
    pthread_cond_destroy(&rt->done_cv);
    free(rt);
}

void lprt__rt_release(lprt *rt) {
    if (atomic_fetch_sub(&rt->refs, 1) == 1) rt_destroy(rt);
}

void lprt_free(lprt *rt) {
    if (rt) lprt__rt_release(rt);
}

int lprt_domain_count(lprt *rt) { return rt->ndomains; }

int lprt_deterministic(lprt *rt) { return rt->det != NULL; }

int64_t lprt__clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t lprt_now(void) {
    lprt__domain *d = lprt__cur_domain;
    if (d && d->rt->det) return lprt__det_now(d->rt->det);
    return lprt__clock_ns();
}

int64_t lprt_deadline_ms(int64_t ms) {
    if (ms < 0) return -1;
    int64_t now = lprt_now();
    /* saturate: a deadline past the clock's range is "never" (still a timer, not -1) */
    if (ms > (INT64_MAX - now) / 1000000) return INT64_MAX;
    return now + ms * 1000000;
}

void lprt__value_retain(lprt *rt, void *v) {
    if (v && rt->hooks.retain) rt->hooks.retain(v, rt->hooks.ud);
}

void lprt__value_release(lprt *rt, void *v) {
    if (v && rt->hooks.release) rt->hooks.release(v, rt->hooks.ud);
}

void lprt__reason_release(lprt *rt, lprt_reason r) {
    if (r.kind == LPRT_ERROR) lprt__value_release(rt, r.value);
}

/* An actor with extra zeroed bytes after it (the engine's state, lprt_create_fiber_with). */
typedef struct {
    lprt_actor a;
    _Alignas(16) char ud[];
} actor_with;

static lprt_actor *create(lprt *rt, int kind, size_t ud_size, void (*init)(lprt_actor *, void *, void *),
                          void *arg) {
    actor_with *w = calloc(1, sizeof(actor_with) + ud_size);
    if (!w) return NULL;
    lprt_actor *a = &w->a;
    a->rt = rt;
    a->kind = kind;
    a->id = atomic_fetch_add(&rt->next_id, 1);
    atomic_init(&a->refs, 2); /* caller + registry (dropped at death) */
    atomic_init(&a->st, W_MAKE(LPRT_ST_EMBRYO, LPRT_WAKE_START, 0));
    a->t_index = SIZE_MAX;
    a->next_seq = 1;
    a->wait_fd = -1;
    lprt_actor *creator = lprt__cur_actor;
    if (creator && creator->rt == rt && atomic_load_explicit(&creator->background, memory_order_relaxed))
        atomic_init(&a->background, 1);
    pthread_mutex_init(&a->lock, NULL);
    atomic_fetch_add(&rt->refs, 1);
    if (init) {
        a->ud = w->ud;
        init(a, w->ud, arg);
    }
    lprt__shard *s = &rt->reg[a->id % REG_SHARDS];
    pthread_mutex_lock(&s->mu);
    a->reg_next = s->head;
    if (s->head) s->head->reg_prev = a;
    s->head = a;
    s->n++;
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add_explicit(&rt->st_spawned, 1, memory_order_relaxed);
    return a;
}

void lprt__registry_remove(lprt_actor *a) {
    lprt__shard *s = &a->rt->reg[a->id % REG_SHARDS];
    pthread_mutex_lock(&s->mu);
    if (a->reg_prev) a->reg_prev->reg_next = a->reg_next;
    else s->head = a->reg_next;
    if (a->reg_next) a->reg_next->reg_prev = a->reg_prev;
    a->reg_prev = a->reg_next = NULL;
    s->n--;
    pthread_mutex_unlock(&s->mu);
}

void lprt_each_actor(lprt *rt, void (*fn)(lprt_actor *, void *), void *arg) {
    for (int i = 0; i < REG_SHARDS; i++) {
        lprt__shard *s = &rt->reg[i];
        pthread_mutex_lock(&s->mu);
        for (lprt_actor *a = s->head; a; a = a->reg_next) fn(a, arg);
        pthread_mutex_unlock(&s->mu);
    }
}

lprt_actor *lprt_create_step(lprt *rt, lprt_step_fn fn, void *ud) {
    lprt_actor *a = create(rt, LPRT_STEP, 0, NULL, NULL);
    if (a) {
        a->step = fn;
        a->ud = ud;
    }
    return a;
}

static lprt_actor *create_fiber(lprt *rt, lprt_fiber_fn fn, void *ud, size_t ud_size,
                                void (*init)(lprt_actor *, void *, void *), void *arg, size_t stack_size) {
    lprt_actor *a = create(rt, LPRT_FIBER, ud_size, init, arg);
    if (!a) return NULL;
    a->fiber_fn = fn;
    if (!init) a->ud = ud;
    if (lprt__fiber_init(a, stack_size ? stack_size : rt->fiber_stack) != 0) {
        /* never started: unregister and drop both references */
        lprt__registry_remove(a);
        atomic_store(&a->st, W_MAKE(LPRT_ST_DEAD, 0, 0));
        lprt_release(a);
        lprt_release(a);
        return NULL;
    }
    return a;
}

lprt_actor *lprt_create_fiber(lprt *rt, lprt_fiber_fn fn, void *ud, size_t stack_size) {
    return create_fiber(rt, fn, ud, 0, NULL, NULL, stack_size);
}

lprt_actor *lprt_create_fiber_with(lprt *rt, lprt_fiber_fn fn, size_t ud_size,
                                   void (*init)(lprt_actor *, void *, void *), void *arg, size_t stack_size) {
    return create_fiber(rt, fn, NULL, ud_size, init, arg, stack_size);
}

void lprt_start(lprt_actor *a) {
    pthread_mutex_lock(&a->lock);
    bool first = !a->started;
    a->started = true;
    pthread_mutex_unlock(&a->lock);
    if (!first) return;
    atomic_store(&a->st, W_MAKE(LPRT_ST_RUNNABLE, LPRT_WAKE_START, 1));
    lprt__schedule(a);
}

lprt_actor *lprt_spawn_step(lprt *rt, lprt_step_fn fn, void *ud) {
    lprt_actor *a = lprt_create_step(rt, fn, ud);
    if (a) lprt_start(a);
    return a;
}

lprt_actor *lprt_spawn_fiber(lprt *rt, lprt_fiber_fn fn, void *ud, size_t stack_size) {
    lprt_actor *a = lprt_create_fiber(rt, fn, ud, stack_size);
    if (a) lprt_start(a);
    return a;
}

void lprt_set_background(lprt_actor *a) { atomic_store_explicit(&a->background, 1, memory_order_relaxed); }

void lprt_retain(lprt_actor *a) { atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed); }

void lprt_release(lprt_actor *a) {
    if (!a || atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1) return;
    lprt *rt = a->rt;
    lprt__mbox_free_all(a);
    lprt__reason_release(rt, a->reason);
    lprt__reason_release(rt, a->own_reason);
    lprt__reason_release(rt, a->kill_reason);
    pthread_mutex_destroy(&a->lock);
    free(a);
    lprt__rt_release(rt);
}

uint64_t lprt_id(const lprt_actor *a) { return a->id; }
void *lprt_userdata(const lprt_actor *a) { return a->ud; }
lprt *lprt_runtime(const lprt_actor *a) { return a->rt; }
int lprt_kind(const lprt_actor *a) { return a->kind; }
int lprt_state(const lprt_actor *a) { return W_STATE(atomic_load(&((lprt_actor *)a)->st)); }
lprt_actor *lprt_self(void) { return lprt__cur_actor; }

int lprt_dead_reason(lprt_actor *a, void **value) {
    int k = -1;
    pthread_mutex_lock(&a->lock);
    if (W_STATE(atomic_load(&a->st)) == LPRT_ST_DEAD) {
        k = a->reason.kind;
        if (value) *value = a->reason.value;
    }
    pthread_mutex_unlock(&a->lock);
    return k;
}

void lprt_get_stats(lprt *rt, lprt_stats *o) {
    o->spawned = atomic_load(&rt->st_spawned);
    o->exited = atomic_load(&rt->st_exited);
    o->steals = atomic_load(&rt->st_steals);
    o->parks = atomic_load(&rt->st_parks);
    o->messages = atomic_load(&rt->st_messages);
    o->seek_steps = atomic_load(&rt->st_seek_steps);
    o->mbox_locks = atomic_load(&rt->st_mbox_locks);
    o->stack_maps = atomic_load(&rt->st_stack_maps);
}
