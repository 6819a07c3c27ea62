/* workers.c — a pool of threads of the runtime's own that run blocking work for
 * actors (DNS lookups in resolver.c, SQLite and file I/O in jobs.c), so no
 * domain ever blocks on it.
 *
 * An actor submits a function and its argument, then suspends; a pool thread
 * runs it and wakes the actor, with the submitter's reason, for the wait
 * sequence current at submission (a wake for a wait the actor has given up is
 * ignored). done(arg) follows, whether or not the work ran: the pool's
 * reference to arg. Stopping either runs what is queued (a commit its actor
 * waits for) or drops it (a lookup nobody will read).                       */
#include "lprt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 4

typedef struct work {
    struct work *next;
    lprt_actor *a; /* referenced */
    uint64_t seq;
    int reason;
    void (*run)(void *);
    void (*done)(void *);
    void *arg;
} work;

struct lprt__workers {
    pthread_t threads[MAX_THREADS];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* work queued, or stopping */
    pthread_cond_t stop_cv; /* stopping: ends lprt__workers_sleep */
    work *head, *tail;
    int stop;       /* set by lprt__workers_stop */
    int run_queued; /* ... which then still runs the queue */
};

static void finish(work *w, int ran) {
    if (ran && !atomic_load(&w->a->rt->stopping)) lprt__wake(w->a, w->reason, w->seq);
    lprt_release(w->a);
    if (w->done) w->done(w->arg);
    free(w);
}

static void *workers_main(void *p) {
    lprt__workers *ws = p;
    pthread_mutex_lock(&ws->mu);
    for (;;) {
        while (!ws->head && !ws->stop) pthread_cond_wait(&ws->cv, &ws->mu);
        if (!ws->head || (ws->stop && !ws->run_queued)) break;
        work *w = ws->head;
        ws->head = w->next;
        if (!ws->head) ws->tail = NULL;
        pthread_mutex_unlock(&ws->mu);
        w->run(w->arg);
        finish(w, 1);
        pthread_mutex_lock(&ws->mu);
    }
    pthread_mutex_unlock(&ws->mu);
    return NULL;
}

lprt__workers *lprt__workers_start(int nthreads) {
    lprt__workers *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    pthread_mutex_init(&ws->mu, NULL);
    pthread_cond_init(&ws->cv, NULL);
    pthread_cond_init(&ws->stop_cv, NULL);
    if (nthreads > MAX_THREADS) nthreads = MAX_THREADS;
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&ws->threads[ws->nthreads], NULL, workers_main, ws) == 0) ws->nthreads++;
    if (ws->nthreads == 0) {
        pthread_mutex_destroy(&ws->mu);
        pthread_cond_destroy(&ws->cv);
        pthread_cond_destroy(&ws->stop_cv);
        free(ws);
        return NULL;
    }
    return ws;
}

lprt__workers *lprt__workers_once(lprt *rt, _Atomic(lprt__workers *) *slot, int nthreads) {
    lprt__workers *ws = atomic_load_explicit(slot, memory_order_acquire);
    if (ws) return ws;
    pthread_mutex_lock(&rt->start_mu);
    ws = atomic_load_explicit(slot, memory_order_acquire);
    if (!ws && !atomic_load(&rt->stopping)) {
        ws = lprt__workers_start(nthreads);
        if (ws) atomic_store_explicit(slot, ws, memory_order_release);
    }
    pthread_mutex_unlock(&rt->start_mu);
    return ws;
}

int lprt__workers_submit(lprt__workers *ws, lprt_actor *self, int reason, void (*run)(void *),
                         void (*done)(void *), void *arg) {
    work *w = calloc(1, sizeof *w);
    if (!w) return LPRT_ENOMEM;
    lprt_retain(self);
    w->a = self;
    w->seq = W_SEQ(atomic_load(&self->st));
    w->reason = reason;
    w->run = run;
    w->done = done;
    w->arg = arg;
    pthread_mutex_lock(&ws->mu);
    if (ws->tail) ws->tail->next = w;
    else ws->head = w;
    ws->tail = w;
    pthread_cond_signal(&ws->cv);
    pthread_mutex_unlock(&ws->mu);
    return LPRT_OK;
}

int lprt__workers_sleep(lprt__workers *ws, long ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&ws->mu);
    while (!ws->stop && pthread_cond_timedwait(&ws->stop_cv, &ws->mu, &until) != ETIMEDOUT) {
    }
    int ok = !ws->stop;
    pthread_mutex_unlock(&ws->mu);
    return ok;
}

void lprt__workers_stop(lprt__workers *ws, int run_queued) {
    if (!ws) return;
    pthread_mutex_lock(&ws->mu);
    ws->stop = 1;
    ws->run_queued = run_queued;
    pthread_cond_broadcast(&ws->cv);
    pthread_cond_broadcast(&ws->stop_cv);
    pthread_mutex_unlock(&ws->mu);
    for (int i = 0; i < ws->nthreads; i++) pthread_join(ws->threads[i], NULL);
    while (ws->head) {
        work *w = ws->head;
        ws->head = w->next;
        finish(w, 0);
    }
    pthread_mutex_destroy(&ws->mu);
    pthread_cond_destroy(&ws->cv);
    pthread_cond_destroy(&ws->stop_cv);
    free(ws);
}
