/* resolver.c — getaddrinfo on a worker thread of its own (workers.c), so DNS
 * never blocks a domain, nor waits behind SQLite jobs.
 *
 * A request is shared by the waiting actor and the worker (refcount 2). The
 * worker stores the result and wakes the actor (LPRT_WAKE_RESOLVED) for the
 * wait sequence the request was made in; if the actor gave up (timeout,
 * death) the lookup is skipped or its wake ignored, and whoever drops the
 * last reference frees the result.                                          */
#include "lprt_internal.h"

#include <netdb.h>
#include <stdlib.h>
#include <string.h>

struct lprt__resolve {
    _Atomic int refs;
    lprt__workers *pool;
    long delay_ms;
    char *host, *service;
    int family, socktype;
    struct addrinfo *result;
    int status;
    _Atomic int done;
};

static long test_delay_ms; /* LPRT_TEST_DNS_DELAY_MS: every lookup answers that late */

static void req_unref(void *p) {
    lprt__resolve *q = p;
    if (atomic_fetch_sub(&q->refs, 1) != 1) return;
    if (q->result) freeaddrinfo(q->result);
    free(q->host);
    free(q->service);
    free(q);
}

void lprt__resolve_drop(lprt_actor *a) {
    lprt__resolve *q = a->resolve;
    a->resolve = NULL;
    if (q) req_unref(q);
}

static void lookup(void *p) {
    lprt__resolve *q = p;
    if (atomic_load(&q->refs) < 2) return; /* no longer wanted */
    if (q->delay_ms > 0 && !lprt__workers_sleep(q->pool, q->delay_ms)) return; /* stopping */
    struct addrinfo hints = {0};
    hints.ai_family = q->family;
    hints.ai_socktype = q->socktype;
    q->status = getaddrinfo(q->host, q->service, &hints, &q->result);
    atomic_store_explicit(&q->done, 1, memory_order_release);
}

int lprt_wait_resolve(lprt_actor *self, const char *host, const char *service, int family,
                      int socktype, int64_t deadline) {
    if (self->rt->det) return LPRT_EINVAL; /* deterministic mode: no resolver thread */
    lprt__workers *pool = lprt__workers_once(self->rt, &self->rt->resolver, 1);
    if (!pool) return LPRT_ENOMEM;
    lprt__resolve_drop(self);
    lprt__resolve *q = calloc(1, sizeof *q);
    if (!q) return LPRT_ENOMEM;
    atomic_init(&q->refs, 2);
    q->pool = pool;
    q->delay_ms = test_delay_ms;
    q->host = host ? strdup(host) : NULL;
    q->service = service ? strdup(service) : NULL;
    q->family = family;
    q->socktype = socktype;
    self->resolve = q;
    self->wait_kind = WAIT_RESOLVE;
    self->wait_deadline = deadline;
    int r = lprt__workers_submit(pool, self, LPRT_WAKE_RESOLVED, lookup, req_unref, q);
    if (r != LPRT_OK) {
        self->wait_kind = WAIT_NONE;
        req_unref(q); /* the worker's reference, never handed over */
        lprt__resolve_drop(self);
    }
    return r;
}

struct addrinfo *lprt_resolved(lprt_actor *self, int *status) {
    lprt__resolve *q = self->resolve;
    if (!q || !atomic_load_explicit(&q->done, memory_order_acquire)) {
        if (status) *status = EAI_AGAIN;
        return NULL;
    }
    struct addrinfo *r = q->result;
    q->result = NULL;
    if (status) *status = q->status;
    lprt__resolve_drop(self);
    return r;
}

void lprt__resolver_init(void) {
    const char *delay = getenv("LPRT_TEST_DNS_DELAY_MS");
    test_delay_ms = delay ? atol(delay) : 0;
}

/* Lookups still queued are dropped: nobody is left to read them. */
void lprt__resolver_stop(lprt *rt) {
    lprt__workers_stop(atomic_exchange(&rt->resolver, NULL), 0);
}
