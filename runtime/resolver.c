/* resolver.c — getaddrinfo on a dedicated thread, so DNS never blocks a domain.
 *
 * A request is shared by the waiting actor and the resolver thread (refcount
 * 2). The resolver stores the result, then wakes the actor for the wait
 * sequence the request was made in; if the actor gave up (timeout, death) the
 * wake is ignored and whoever drops the last reference frees the result.   */
#include "lprt_internal.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lprt__resolve {
    _Atomic int refs;
    lprt__resolve *next;
    lprt_actor *a;
    uint64_t seq;
    char *host, *service;
    int family, socktype;
    struct addrinfo *result;
    int status;
    _Atomic int done;
};

struct lprt__resolver {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    lprt__resolve *head, *tail;
    int stop;
    long delay_ms; /* test hook LPRT_TEST_DNS_DELAY_MS: every lookup answers that late */
};

static void req_unref(lprt__resolve *q) {
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

int lprt_wait_resolve(lprt_actor *self, const char *host, const char *service, int family,
                      int socktype, int64_t deadline) {
    lprt__resolver *rs = self->rt->resolver;
    if (!rs) return LPRT_EINVAL; /* deterministic mode: no resolver thread */
    lprt__resolve_drop(self);
    lprt__resolve *q = calloc(1, sizeof *q);
    if (!q) return LPRT_ENOMEM;
    atomic_init(&q->refs, 2);
    lprt_retain(self);
    q->a = self;
    q->seq = W_SEQ(atomic_load(&self->st));
    q->host = host ? strdup(host) : NULL;
    q->service = service ? strdup(service) : NULL;
    q->family = family;
    q->socktype = socktype;
    self->resolve = q;
    self->wait_kind = WAIT_RESOLVE;
    self->wait_deadline = deadline;
    pthread_mutex_lock(&rs->mu);
    if (rs->tail) rs->tail->next = q;
    else rs->head = q;
    rs->tail = q;
    pthread_cond_signal(&rs->cv);
    pthread_mutex_unlock(&rs->mu);
    return LPRT_OK;
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

/* The test hook's delay: a DNS server that takes delay_ms to answer. 0 when stopping. */
static int late_answer(lprt__resolver *rs) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += rs->delay_ms / 1000;
    until.tv_nsec += (rs->delay_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&rs->mu);
    while (!rs->stop && pthread_cond_timedwait(&rs->cv, &rs->mu, &until) != ETIMEDOUT) {
    }
    int ok = !rs->stop;
    pthread_mutex_unlock(&rs->mu);
    return ok;
}

static void *resolver_main(void *arg) {
    lprt__resolver *rs = arg;
    pthread_mutex_lock(&rs->mu);
    for (;;) {
        while (!rs->head && !rs->stop) pthread_cond_wait(&rs->cv, &rs->mu);
        if (rs->stop) break;
        lprt__resolve *q = rs->head;
        rs->head = q->next;
        if (!rs->head) rs->tail = NULL;
        pthread_mutex_unlock(&rs->mu);
        if (rs->delay_ms > 0 && !late_answer(rs)) {
            lprt_release(q->a); /* stopping: the runtime is going away */
            req_unref(q);
            pthread_mutex_lock(&rs->mu);
            continue;
        }
        if (atomic_load(&q->refs) > 1) { /* still wanted */
            struct addrinfo hints = {0};
            hints.ai_family = q->family;
            hints.ai_socktype = q->socktype;
            q->status = getaddrinfo(q->host, q->service, &hints, &q->result);
            atomic_store_explicit(&q->done, 1, memory_order_release);
            lprt__wake(q->a, LPRT_WAKE_RESOLVED, q->seq);
        }
        lprt_release(q->a);
        req_unref(q);
        pthread_mutex_lock(&rs->mu);
    }
    pthread_mutex_unlock(&rs->mu);
    return NULL;
}

int lprt__resolver_start(lprt *rt) {
    lprt__resolver *rs = calloc(1, sizeof *rs);
    if (!rs) return -1;
    pthread_mutex_init(&rs->mu, NULL);
    pthread_cond_init(&rs->cv, NULL);
    const char *delay = getenv("LPRT_TEST_DNS_DELAY_MS");
    rs->delay_ms = delay ? atol(delay) : 0;
    rt->resolver = rs;
    return pthread_create(&rs->thread, NULL, resolver_main, rs) == 0 ? 0 : -1;
}

void lprt__resolver_stop(lprt *rt) {
    lprt__resolver *rs = rt->resolver;
    if (!rs) return;
    pthread_mutex_lock(&rs->mu);
    rs->stop = 1;
    pthread_cond_signal(&rs->cv);
    pthread_mutex_unlock(&rs->mu);
    pthread_join(rs->thread, NULL);
    while (rs->head) {
        lprt__resolve *q = rs->head;
        rs->head = q->next;
        lprt_release(q->a);
        req_unref(q);
    }
    pthread_mutex_destroy(&rs->mu);
    pthread_cond_destroy(&rs->cv);
    free(rs);
    rt->resolver = NULL;
}
