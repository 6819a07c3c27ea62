/* jobs.c — blocking work (SQLite calls, local file I/O) on a small pool of
 * threads of its own, so it never holds a domain.
 *
 * An actor hands a job (a function and its argument) to the pool and blocks;
 * a pool thread runs it, then wakes the actor for the wait sequence the job
 * was queued in (LPRT_WAKE_DONE). A job always runs to its end, even when
 * its actor has died or given up meanwhile: the argument's owner keeps it
 * alive until both sides are done (sql.c counts references). Jobs of one
 * actor never overlap, since it waits for each. The threads start with the
 * first job; deterministic mode has none and runs a job in the caller.    */
#include "lprt_internal.h"

#include <stdlib.h>

#define JOB_THREADS 2

typedef struct job {
    struct job *next;
    lprt_actor *a; /* referenced */
    uint64_t seq;
    void (*run)(void *);
    void (*done)(void *); /* after run and the wake: the pool's reference to arg */
    void *arg;
} job;

struct lprt__jobs {
    pthread_t threads[JOB_THREADS];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *head, *tail;
    int stop;
};

static void *jobs_main(void *p) {
    lprt__jobs *js = p;
    pthread_mutex_lock(&js->mu);
    for (;;) {
        while (!js->head && !js->stop) pthread_cond_wait(&js->cv, &js->mu);
        if (!js->head) break; /* stopping with nothing queued */
        job *j = js->head;
        js->head = j->next;
        if (!js->head) js->tail = NULL;
        pthread_mutex_unlock(&js->mu);
        j->run(j->arg);
        if (!atomic_load(&j->a->rt->stopping)) lprt__wake(j->a, LPRT_WAKE_DONE, j->seq);
        lprt_release(j->a);
        if (j->done) j->done(j->arg);
        free(j);
        pthread_mutex_lock(&js->mu);
    }
    pthread_mutex_unlock(&js->mu);
    return NULL;
}

static lprt__jobs *jobs_get(lprt *rt) {
    lprt__jobs *js = atomic_load_explicit(&rt->jobs, memory_order_acquire);
    if (js) return js;
    pthread_mutex_lock(&rt->jobs_mu);
    js = atomic_load_explicit(&rt->jobs, memory_order_acquire);
    if (!js && !atomic_load(&rt->stopping)) {
        js = calloc(1, sizeof *js);
        if (js) {
            pthread_mutex_init(&js->mu, NULL);
            pthread_cond_init(&js->cv, NULL);
            for (int i = 0; i < JOB_THREADS; i++)
                if (pthread_create(&js->threads[js->nthreads], NULL, jobs_main, js) == 0) js->nthreads++;
            if (js->nthreads == 0) {
                pthread_mutex_destroy(&js->mu);
                pthread_cond_destroy(&js->cv);
                free(js);
                js = NULL;
            } else {
                atomic_store_explicit(&rt->jobs, js, memory_order_release);
            }
        }
    }
    pthread_mutex_unlock(&rt->jobs_mu);
    return js;
}

int lprt_wait_job(lprt_actor *self, void (*run)(void *), void (*done)(void *), void *arg, int64_t deadline) {
    if (self->rt->det) {
        run(arg);
        if (done) done(arg);
        return 1;
    }
    lprt__jobs *js = jobs_get(self->rt);
    if (!js) return LPRT_ENOMEM;
    job *j = calloc(1, sizeof *j);
    if (!j) return LPRT_ENOMEM;
    lprt_retain(self);
    j->a = self;
    j->seq = W_SEQ(atomic_load(&self->st));
    j->run = run;
    j->done = done;
    j->arg = arg;
    self->wait_kind = WAIT_JOB;
    self->wait_deadline = deadline;
    pthread_mutex_lock(&js->mu);
    if (js->tail) js->tail->next = j;
    else js->head = j;
    js->tail = j;
    pthread_cond_signal(&js->cv);
    pthread_mutex_unlock(&js->mu);
    return LPRT_OK;
}

/* After the domains have stopped: queued jobs still run (a job may be a commit its
   actor is waiting for), then the threads end. */
void lprt__jobs_stop(lprt *rt) {
    lprt__jobs *js = atomic_load(&rt->jobs);
    if (!js) return;
    pthread_mutex_lock(&js->mu);
    js->stop = 1;
    pthread_cond_broadcast(&js->cv);
    pthread_mutex_unlock(&js->mu);
    for (int i = 0; i < js->nthreads; i++) pthread_join(js->threads[i], NULL);
    pthread_mutex_destroy(&js->mu);
    pthread_cond_destroy(&js->cv);
    free(js);
    atomic_store(&rt->jobs, NULL);
}
