/* lprt_internal.h — structures and functions shared between the runtime's .c files. */
#ifndef LPRT_INTERNAL_H
#define LPRT_INTERNAL_H

#include "lprt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#if defined(__SANITIZE_THREAD__)
#define LPRT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LPRT_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LPRT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LPRT_ASAN 1
#endif
#endif

/* ---- the actor state word ----
 * bits 0-3   lifecycle state (LPRT_ST_*)
 * bits 4-7   RUNNABLE: wake reason; RUNNING: a wake that arrived while the
 *            actor was blocking (before it reached WAITING)
 * bit  8     WAITING: messages wake it
 * bits 16-63 wait sequence number; a wake for sequence s only succeeds while
 *            the word still carries s, and every wake bumps it, so stale
 *            timers / fd events / resolutions can never wake a later wait.   */
#define W_STATE(w) ((int)((w) & 0xF))
#define W_REASON(w) ((int)(((w) >> 4) & 0xF))
#define W_WANT_MSG ((uint64_t)1 << 8)
#define W_SEQ(w) ((w) >> 16)
#define W_MAKE(state, reason, seq) ((uint64_t)(state) | ((uint64_t)(reason) << 4) | ((uint64_t)(seq) << 16))
#define W_ANY_SEQ UINT64_MAX

typedef struct lprt__domain lprt__domain;

/* Fiber stacks of one size (the first asked for) come from chunks of slots mapped at once and are
   never unmapped one by one: a free slot not in a domain's cache has its pages given back and waits
   here for reuse (fiber.c). Guarded by mu. */
typedef struct {
    pthread_mutex_t mu;
    size_t size;        /* the stack size it serves; 0 until the first stack */
    void **free;        /* released slots (tagged as stack bases are) */
    size_t nfree, cfree;
    char *next;         /* the next uncarved slot of the newest chunk */
    size_t left;        /* slots left in it */
    void **chunks;      /* every chunk, unmapped with the runtime */
    size_t nchunks, cchunks;
    long guarded;       /* slots carved with a guard page */
} lprt__stack_pool;

typedef struct lprt__link {
    struct lprt__link *next;
    lprt_actor *actor; /* referenced */
    uint64_t ref;      /* monitors: the ref */
} lprt__link;

enum { WAIT_NONE, WAIT_RECEIVE, WAIT_SLEEP, WAIT_FD, WAIT_RESOLVE, WAIT_JOB, WAIT_FD_RECEIVE };

typedef struct lprt__resolve lprt__resolve;

struct lprt_actor {
    lprt *rt;
    uint64_t id;
    int kind;
    _Atomic uint64_t refs;
    _Atomic uint64_t st;
    lprt_actor *qnext;     /* intrusive run-queue / inbox link */
    lprt__domain *home;    /* domain it last ran on */
    _Atomic int background; /* lprt_set_background: wakes no parked domain while another runs */

    lprt_step_fn step;
    lprt_fiber_fn fiber_fn;
    void *ud;

    /* mailbox: senders push on `inbound` (Treiber stack); the owner moves
       them, reversed, to the private list head..tail and numbers them. */
    _Atomic(lprt_msg *) inbound;
    lprt_msg *head, *tail;
    uint64_t next_seq;
    _Atomic int64_t mlen;
    /* a peek in progress (mailbox.c): odd while lprt_mbox_peek reads the list; the owner then
       changes it under its lock and acknowledges the ticket it saw */
    _Atomic uint32_t peek_ticket, peek_ack;

    /* current wait (owner only) */
    int wait_kind;
    int wake_reason;
    uint64_t wait_after;
    int64_t wait_deadline;
    int wait_fd, wait_events;
    lprt__resolve *resolve;
    int budget;
    /* observers read these (snapshot.c); only the running domain writes them */
    _Atomic uint64_t turns;
    _Atomic int ran_on; /* domain index + 1; 0: never ran */

    /* timer heap node (guarded by the timer lock) */
    int64_t t_deadline;
    uint64_t t_seq;
    size_t t_index; /* SIZE_MAX: not armed */

    /* guarded by lock */
    pthread_mutex_t lock;
    lprt__link *links;
    lprt__link *monitors;
    lprt_reason reason;     /* recorded once dead */
    lprt_reason own_reason; /* set by lprt_set_exit_reason (owner) */
    lprt_reason kill_reason;
    _Atomic int kill_pending;
    _Atomic int trap;
    bool started;

    /* registry (guarded by shard lock) */
    lprt_actor *reg_prev, *reg_next;

    /* fiber */
    void *fiber_sp;
    void *stack_base;
    size_t stack_size;
    int fiber_code;
    bool unwinding; /* resumed after a kill to unwind (lprt_config.unwind_killed_fibers) */
    bool on_deep;   /* running on its deep stack (lprt_deep_call), whose address is kept on its stack (fiber.c) */
    void *parked_copy; /* the used part of its stack while blocked with many stacks live (fiber.c) */
    size_t parked_len;
#ifdef LPRT_TSAN
    void *tsan_fiber;
#endif
#ifdef LPRT_ASAN
    void *asan_fake;
#endif
};

/* ---- Chase-Lev deque (deque.c) ---- */
typedef struct lprt__dq_array lprt__dq_array;
typedef struct {
    _Atomic int64_t top, bottom;
    _Atomic(lprt__dq_array *) array;
    lprt__dq_array *retired; /* old arrays, freed with the deque */
} lprt__deque;
void lprt__dq_init(lprt__deque *q);
void lprt__dq_destroy(lprt__deque *q);
void lprt__dq_push(lprt__deque *q, lprt_actor *a); /* owner */
lprt_actor *lprt__dq_pop(lprt__deque *q);          /* owner, LIFO */
lprt_actor *lprt__dq_take(lprt__deque *q);         /* owner, LIFO: lprt__dq_pop, cheaper on one entry */
lprt_actor *lprt__dq_steal(lprt__deque *q);        /* anyone, FIFO */
static inline int64_t lprt__dq_size(lprt__deque *q) {
    int64_t b = atomic_load_explicit(&q->bottom, memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    return b > t ? b - t : 0;
}

/* ---- domains (sched.c) ---- */
struct lprt__domain {
    lprt *rt;
    int index;
    pthread_t thread;
    lprt__deque dq;   /* FIFO: turns that ended runnable (yields), wake-ups from elsewhere */
    lprt__deque lifo; /* spawned and woken here: the owner pops the newest batch first, thieves the oldest */
    int nfresh;        /* pushed onto lifo by the current turn: reordered oldest-first when it ends */
    lprt_actor **flip; /* the reordering's buffer */
    int flip_cap;
    int lifo_work;     /* reductions (at least 1 a turn) run from lifo since dq last had a round (sched.c) */
    int turn_cost;     /* the last turn's */
    bool from_lifo;    /* the last turn was taken from lifo */
    int64_t round;     /* turns of dq's round still due before lifo goes on */
    _Atomic(lprt_actor *) inbox; /* MPSC handover (Treiber stack of actors) */
    _Atomic int64_t bg_queued;   /* background actors in dq: the wake test leaves them out */
    _Atomic int parked;
    _Atomic uint32_t futex;
    void *sched_sp; /* scheduler context while a fiber runs */
    void *stack_cache[256]; /* recycled stacks keep their touched pages: no mmap, munmap or page fault */
    int stack_cache_n;
    size_t stack_cache_size;
    uint64_t reclaim_mark; /* st_exited when this domain last gave memory back (reclaim.c) */
    unsigned rng;
    /* load (snapshot.c): turns run here; nanoseconds parked, and when the current park began (0: busy) */
    _Atomic uint64_t turns, parked_ns;
    _Atomic int64_t parked_since;
#ifdef LPRT_TSAN
    void *tsan_sched;
#endif
#ifdef LPRT_ASAN
    const void *asan_bottom;
    size_t asan_size;
#endif
};

#define REG_SHARDS 64
typedef struct {
    pthread_mutex_t mu;
    lprt_actor *head;
    size_t n;
} lprt__shard;

typedef struct lprt__timers {
    pthread_mutex_t mu;
    lprt_actor **heap;
    size_t n, cap;
    int64_t io_sleep_until; /* deadline the io thread sleeps towards */
} lprt__timers;

typedef struct lprt__io lprt__io;
typedef struct lprt__workers lprt__workers;
typedef struct lprt__det lprt__det;

struct lprt {
    _Atomic uint64_t refs;
    lprt_hooks hooks;
    int ndomains;
    int budget;
    size_t fiber_stack;
    int unwind_killed_fibers;
    lprt__domain *domains;
    _Atomic uint64_t next_id;
    _Atomic uint64_t next_ref;
    _Atomic int nparked;
    _Atomic int stopping;
    int observe; /* lprt_config.observe: lprt_mbox_peek may read mailbox lists (mailbox.c) */
    _Atomic int deadlocked; /* the deadlock hook has fired */
    _Atomic int running;
    lprt_actor *main;
    pthread_mutex_t done_mu;
    pthread_cond_t done_cv;
    int done;
    int main_reason;
    lprt__shard reg[REG_SHARDS];
    lprt__timers timers;
    _Atomic(lprt__io *) io;            /* poller.c: started by the first timer or fd wait */
    _Atomic(lprt__workers *) resolver; /* resolver.c: one thread for DNS, started by the first lookup */
    _Atomic(lprt__workers *) jobs;     /* jobs.c: started by the first job */
    pthread_mutex_t start_mu;          /* guards the starting of those three */
    lprt__det *det; /* deterministic mode (det.c); NULL: the normal scheduler */
    _Atomic uint64_t st_spawned, st_exited, st_steals, st_parks, st_messages, st_seek_steps, st_mbox_locks,
        st_stack_maps;
    _Atomic long live_stacks; /* fiber stacks allocated and not freed (fiber.c) */
    lprt__stack_pool pool;    /* fiber.c: slots of the fiber stack size, carved from big mappings */
    _Atomic size_t deep_size; /* fiber.c: the size of every deep stack, the first one asked for */
    _Atomic uint64_t trim_mark; /* st_exited at the last malloc_trim (reclaim.c) */
};

/* rt.c */
void lprt__rt_release(lprt *rt);
void lprt__value_retain(lprt *rt, void *v);
void lprt__value_release(lprt *rt, void *v);
void lprt__reason_release(lprt *rt, lprt_reason r);
void lprt__registry_remove(lprt_actor *a);
int64_t lprt__clock_ns(void); /* the monotonic clock, never the simulated one */

/* sched.c */
extern _Thread_local lprt__domain *lprt__cur_domain;
extern _Thread_local lprt_actor *lprt__cur_actor;
void lprt__schedule(lprt_actor *a);
/* try to wake `a` from WAITING with `reason`; seq W_ANY_SEQ matches any wait.
   Returns true if this call made it runnable (or recorded a pending wake). */
bool lprt__wake(lprt_actor *a, int reason, uint64_t seq);
void lprt__finish(lprt_actor *a, lprt_reason r); /* on the actor's own domain */
void lprt__run_actor(lprt__domain *d, lprt_actor *a);
void lprt__domain_kick(lprt__domain *d);
int64_t lprt__domain_queued(lprt__domain *d); /* runnable actors in its queues (not the inbox) */

/* det.c: deterministic simulation */
lprt__det *lprt__det_new(const lprt_config *cfg);
void lprt__det_free(lprt *rt);
void lprt__det_push(lprt *rt, lprt_actor *a);  /* a runnable actor */
void lprt__det_loop(lprt__domain *d);          /* the domain's loop in this mode */
int64_t lprt__det_now(lprt__det *s);
int lprt__det_budget(lprt *rt);
void lprt__det_worked(lprt *rt, int reductions); /* a turn spent them: the clock moves on */
bool lprt__det_hold(lprt_actor *to, lprt_msg *m); /* faults: true when the delivery is delayed */

/* deadlock.c */
bool lprt__deadlocked(lprt *rt); /* call with every domain parked */
void lprt__report_deadlock(lprt *rt);

/* mailbox.c */
void lprt__mbox_push(lprt_actor *to, lprt_msg *m); /* wakes the owner */
void lprt__mbox_deliver(lprt_actor *to, lprt_msg *m); /* the same, never delayed by faults */
lprt_msg *lprt__msg_new(int kind);
void lprt__mbox_drain(lprt_actor *self);
bool lprt__mbox_has_after(lprt_actor *self, uint64_t seq);
void lprt__mbox_free_all(lprt_actor *a);
/* lprt_mbox_peek of a retained actor (mailbox.c): how many entries were read, -1 when it died. */
int lprt__mbox_peek(lprt_actor *a, int *kinds, void **values, const char **names, int cap,
                    const char *(*name_of)(void *value));

/* timer.c */
void lprt__timers_init(lprt__timers *t);
void lprt__timers_destroy(lprt *rt);
void lprt__timer_arm(lprt_actor *a, int64_t deadline, uint64_t seq);
void lprt__timer_disarm(lprt_actor *a);
int64_t lprt__timers_fire(lprt *rt, int64_t now); /* wakes expired; returns next deadline or -1 */

/* poller.c */
lprt__io *lprt__io_need(lprt *rt);
void lprt__io_stop(lprt *rt);
void lprt__io_kick(lprt *rt);
void lprt__io_wait_fd(lprt_actor *a, int fd, int events, uint64_t seq);

/* resolver.c */
void lprt__resolver_init(void);
void lprt__resolver_stop(lprt *rt);
void lprt__resolve_drop(lprt_actor *a);

/* jobs.c */
void lprt__jobs_stop(lprt *rt);

/* workers.c: threads running blocking work for actors, which they then wake */
lprt__workers *lprt__workers_start(int nthreads);
lprt__workers *lprt__workers_once(lprt *rt, _Atomic(lprt__workers *) *slot, int nthreads);
int lprt__workers_submit(lprt__workers *ws, lprt_actor *self, int reason, void (*run)(void *),
                         void (*done)(void *), void *arg);
int lprt__workers_sleep(lprt__workers *ws, long ms); /* 0: the pool is stopping */
void lprt__workers_stop(lprt__workers *ws, int run_queued);

/* links.c */
void lprt__notify_death(lprt_actor *a, lprt_reason r);
void lprt__deliver_exit(lprt_actor *from, lprt_actor *target, lprt_reason r, bool from_link);

/* fiber.c */
int lprt__fiber_init(lprt_actor *a, size_t stack_size);
int lprt__fiber_resume(lprt__domain *d, lprt_actor *a); /* returns LPRT_YIELD/BLOCK/DONE */
void lprt__fiber_free(lprt__domain *d, lprt_actor *a);
void lprt__fiber_unwind(lprt__domain *d, lprt_actor *a); /* a killed fiber unwinds (unwind_killed_fibers) */
void lprt__fiber_park(lprt_actor *a); /* blocking: with many stacks live, set its used stack aside */
void lprt__stack_cache_free(lprt__domain *d);
void lprt__stack_pool_init(lprt *rt);
void lprt__stack_pool_free(lprt *rt); /* after every domain's cache */
void lprt__stack_cache_trim(lprt__domain *d, int keep); /* gives back the cached stacks past keep */
/* reclaim.c: park on the domain's futex word (expected value v); a domain that stays parked
   a while after many actors have ended gives their memory back */
void lprt__park_wait(lprt__domain *d, uint32_t v);

/* futex helpers (sched.c) */
void lprt__futex_wait(_Atomic uint32_t *addr, uint32_t val);
void lprt__futex_wake(_Atomic uint32_t *addr, int n);

#endif
