/* snapshot.c — observability: cheap, lock-per-shard listings of live actors and domains. */
#include "lprt_internal.h"

static int count_links(const lprt__link *l) {
    int n = 0;
    for (; l; l = l->next) n++;
    return n;
}

size_t lprt_snapshot(lprt *rt, lprt_actor_info *out, size_t cap) {
    size_t total = 0;
    for (int i = 0; i < REG_SHARDS; i++) {
        lprt__shard *s = &rt->reg[i];
        pthread_mutex_lock(&s->mu);
        for (lprt_actor *a = s->head; a; a = a->reg_next, total++) {
            if (total >= cap) continue;
            lprt_actor_info *o = &out[total];
            o->id = a->id;
            o->state = W_STATE(atomic_load_explicit(&a->st, memory_order_relaxed));
            o->kind = a->kind;
            o->mailbox = lprt_mbox_len(a);
            o->turns = atomic_load_explicit(&a->turns, memory_order_relaxed);
            o->domain = atomic_load_explicit(&a->ran_on, memory_order_relaxed) - 1;
            o->traps = atomic_load_explicit(&a->trap, memory_order_relaxed);
            pthread_mutex_lock(&a->lock);
            o->links = count_links(a->links);
            o->monitors = count_links(a->monitors);
            pthread_mutex_unlock(&a->lock);
        }
        pthread_mutex_unlock(&s->mu);
    }
    return total;
}

static size_t peer_ids(const lprt__link *l, uint64_t *out, size_t cap) {
    size_t n = 0;
    for (; l; l = l->next, n++)
        if (n < cap) out[n] = l->actor->id;
    return n;
}

int lprt_actor_peers(lprt *rt, uint64_t id, uint64_t *links, size_t *nlinks, uint64_t *watchers,
                     size_t *nwatchers, size_t cap) {
    lprt__shard *s = &rt->reg[id % REG_SHARDS];
    int found = 0;
    pthread_mutex_lock(&s->mu);
    for (lprt_actor *a = s->head; a; a = a->reg_next) {
        if (a->id != id) continue;
        pthread_mutex_lock(&a->lock);
        *nlinks = peer_ids(a->links, links, cap);
        *nwatchers = peer_ids(a->monitors, watchers, cap);
        pthread_mutex_unlock(&a->lock);
        found = 1;
        break;
    }
    pthread_mutex_unlock(&s->mu);
    return found;
}

/* The live actor with this id, retained, or NULL. */
static lprt_actor *find_live(lprt *rt, uint64_t id) {
    lprt__shard *s = &rt->reg[id % REG_SHARDS];
    lprt_actor *found = NULL;
    pthread_mutex_lock(&s->mu);
    for (lprt_actor *a = s->head; a; a = a->reg_next)
        if (a->id == id) {
            lprt_retain(a);
            found = a;
            break;
        }
    pthread_mutex_unlock(&s->mu);
    return found;
}

static int peek(lprt *rt, uint64_t id, int *kinds, void **values, const char **names, int cap,
                const char *(*name_of)(void *value)) {
    if (!rt->observe) return -1;
    lprt_actor *a = find_live(rt, id);   /* not under the shard's lock: the peek may wait for a turn */
    if (!a) return -1;
    int n = lprt__mbox_peek(a, kinds, values, names, cap, name_of);
    lprt_release(a);
    return n;
}

int lprt_mbox_peek(lprt *rt, uint64_t id, int *kinds, void **values, int cap) {
    return peek(rt, id, kinds, values, NULL, cap, NULL);
}

int lprt_mbox_peek_names(lprt *rt, uint64_t id, int *kinds, const char **names, int cap,
                         const char *(*name_of)(void *value)) {
    return peek(rt, id, kinds, NULL, names, cap, name_of);
}

int lprt_domain_snapshot(lprt *rt, lprt_domain_info *out, int cap) {
    int64_t now = lprt__clock_ns();
    for (int i = 0; i < rt->ndomains && i < cap; i++) {
        lprt__domain *d = &rt->domains[i];
        int64_t since = atomic_load_explicit(&d->parked_since, memory_order_relaxed);
        out[i].index = i;
        out[i].turns = atomic_load_explicit(&d->turns, memory_order_relaxed);
        out[i].parked_ns = atomic_load_explicit(&d->parked_ns, memory_order_relaxed) +
                           (since > 0 && now > since ? (uint64_t)(now - since) : 0);
        int64_t q = lprt__domain_queued(d);
        out[i].queued = q > 0 ? (size_t)q : 0;
    }
    return rt->ndomains;
}
