/* jobs.c — blocking work (SQLite calls, local file I/O) on a pool of two
 * worker threads (workers.c), so it never holds a domain.
 *
 * An actor hands a job (a function and its argument) to the pool and blocks
 * until it has run (LPRT_WAKE_DONE). A job always runs to its end, even when
 * its actor has died or given up meanwhile: the argument's owner keeps it
 * alive until both sides are done (sql.c counts references). Jobs of one
 * actor never overlap, since it waits for each. The threads start with the
 * first job; deterministic mode has none and runs a job in the caller.    */
#include "lprt_internal.h"

#define JOB_THREADS 2

int lprt_wait_job(lprt_actor *self, void (*run)(void *), void (*done)(void *), void *arg, int64_t deadline) {
    if (self->rt->det) {
        run(arg);
        if (done) done(arg);
        return 1;
    }
    lprt__workers *ws = lprt__workers_once(self->rt, &self->rt->jobs, JOB_THREADS);
    if (!ws) return LPRT_ENOMEM;
    self->wait_kind = WAIT_JOB;
    self->wait_deadline = deadline;
    int r = lprt__workers_submit(ws, self, LPRT_WAKE_DONE, run, done, arg);
    if (r != LPRT_OK) self->wait_kind = WAIT_NONE;
    return r;
}

/* After the domains have stopped: queued jobs still run (a job may be a commit its
   actor is waiting for), then the threads end. */
void lprt__jobs_stop(lprt *rt) {
    lprt__workers_stop(atomic_load(&rt->jobs), 1);
    atomic_store(&rt->jobs, NULL);
}
