/* lprt.h — the public API of the LP actor runtime.
 *
 * The runtime schedules actors on N domains (OS threads) with work stealing,
 * moves opaque messages between mailboxes, and implements timers, fd readiness,
 * DNS resolution off the domain threads, links, monitors and exit signals.
 * It knows nothing of LP values: messages and error reasons are `void *`
 * owned through the engine's retain/release hooks.
 *
 * Ownership rules:
 *  - every `lprt_actor *` argument must be a reference the caller holds for
 *    the duration of the call (a target may die and be freed the moment a
 *    message lands in its mailbox);
 *  - functions returning `lprt_actor *` return a new reference (lprt_release it);
 *  - a `void *value` passed to lprt_send / lprt_exit / lprt_set_exit_reason is
 *    consumed (the runtime releases it when done), values handed to hooks or
 *    found in messages are borrowed.
 *  - owner-only functions (mailbox, waits, reductions) must be called by the
 *    actor itself, from its step function or fiber.
 */
#ifndef LPRT_H
#define LPRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lprt lprt;
typedef struct lprt_actor lprt_actor;
struct addrinfo;

/* Exit reasons. */
enum { LPRT_NORMAL = 0, LPRT_KILLED = 1, LPRT_ERROR = 2 };

typedef struct {
    int kind;    /* LPRT_NORMAL / LPRT_KILLED / LPRT_ERROR */
    void *value; /* LPRT_ERROR: engine value, else NULL */
} lprt_reason;

/* Mailbox entry kinds. */
enum { LPRT_MSG_USER = 0, LPRT_MSG_DOWN = 1, LPRT_MSG_EXIT = 2 };

typedef struct lprt_msg {
    struct lprt_msg *_next, *_prev; /* runtime-private */
    uint64_t seq;       /* position in the owner's mailbox; increases with arrival */
    int kind;           /* LPRT_MSG_* */
    void *value;        /* USER: the message */
    lprt_actor *actor;  /* DOWN/EXIT: the actor that died / signalled (may be NULL) */
    uint64_t actor_id;  /* DOWN/EXIT: its id (0 when unknown) */
    uint64_t ref;       /* DOWN: the monitor reference */
    lprt_reason reason; /* DOWN/EXIT */
} lprt_msg;

/* Step function results. */
enum { LPRT_YIELD = 0, LPRT_BLOCK = 1, LPRT_DONE = 2 };

/* Why an actor was (re)started: lprt_wake_reason(). */
enum {
    LPRT_WAKE_START = 0,
    LPRT_WAKE_YIELD = 1,
    LPRT_WAKE_MESSAGE = 2,
    LPRT_WAKE_TIMEOUT = 3,
    LPRT_WAKE_FD = 4,
    LPRT_WAKE_RESOLVED = 5,
    LPRT_WAKE_KILLED = 6,
    LPRT_WAKE_DONE = 7 /* a job handed to lprt_wait_job has run */
};

/* Actor lifecycle states (lprt_state, snapshots). */
enum {
    LPRT_ST_EMBRYO = 0, /* created, not started */
    LPRT_ST_RUNNABLE = 1,
    LPRT_ST_RUNNING = 2,
    LPRT_ST_WAITING = 3,
    LPRT_ST_DEAD = 4
};

enum { LPRT_STEP = 0, LPRT_FIBER = 1 };

/* fd wait events */
enum { LPRT_READ = 1, LPRT_WRITE = 2 };

/* Error codes. */
enum { LPRT_OK = 0, LPRT_EDEAD = -1, LPRT_EXIT_DELIVERED = 1, LPRT_EINVAL = -2, LPRT_ENOMEM = -3,
       LPRT_EDEADLOCK = -4 };

typedef int (*lprt_step_fn)(lprt_actor *self, void *userdata);
typedef void (*lprt_fiber_fn)(lprt_actor *self, void *userdata);

/* Engine hooks; any may be NULL. `ud` is passed back to every hook. */
typedef struct {
    void (*retain)(void *value, void *ud);
    void (*release)(void *value, void *ud);
    /* Actor ended (or was stopped at shutdown): free its engine state.
       Runs on a domain thread (or in lprt_run at shutdown); the mailbox is
       still readable with lprt_mbox_len / lprt_mbox_first. */
    void (*on_exit)(lprt_actor *a, int reason_kind, void *reason_value, void *actor_userdata, void *ud);
    /* Abnormal death observed by no link and no monitor. Default: one line on stderr. */
    void (*unobserved)(lprt_actor *a, int reason_kind, void *reason_value, void *ud);
    void *ud;
    /* Deadlock detection, on when set: every domain is idle, the main actor
       is alive, and every live actor waits for a message with no deadline (or
       sleeps forever): no timer, fd, resolver or running actor can wake any
       of them. Called once, on the domain that noticed, while all actors
       stay blocked; then lprt_run stops everything and returns LPRT_EDEADLOCK.
       Only for engines where nothing outside the actors sends or signals. */
    void (*deadlock)(lprt *rt, void *ud);
} lprt_hooks;

typedef struct {
    int domains;        /* <= 0: number of online cores */
    int budget;         /* reductions per turn; <= 0: 2000 */
    size_t fiber_stack; /* default fiber stack bytes; 0: 64 KiB */
    /* Deterministic simulation (runtime/DESIGN.md) when nonzero: one domain,
       every scheduling choice (next actor, turn length, order of simultaneous
       timers) drawn from a PRNG seeded with `seed`, and virtual time
       (lprt_now on the domain reads the simulated clock, which jumps to the
       next deadline when no actor can run). fd waits and name resolution are
       not supported in this mode. `domains` is ignored. */
    int deterministic;
    uint64_t seed;
    /* With deterministic: inject seeded faults (kill an actor that does not
       trap exits, delay deliveries between different senders, let a turn
       take up to 10 ms so timers fire early relative to the work, fire
       timers late), at most max_faults of them (0: no limit), each
       fault_rate times as likely as by default (<= 1: the default). */
    int faults;
    uint64_t max_faults;
    int fault_rate;
    /* Nonzero: a fiber killed after it first ran is resumed once more before it
       is finished, with its pending lprt_suspend / lprt_yield answering
       LPRT_WAKE_KILLED, so that the engine can unwind its frames and release
       what they own; while unwinding, lprt_suspend and lprt_yield return at
       once (LPRT_WAKE_KILLED). The kill's reason ends it, whatever the fiber
       sets. Zero: a killed fiber's stack is released without unwinding. */
    int unwind_killed_fibers;
    /* Nonzero: mailboxes can be looked into from outside (lprt_mbox_peek): the owner then
       takes its own lock around changing its mailbox list. Fixed for the runtime's life. */
    int observe;
} lprt_config;

/* ---- runtime ---- */
lprt *lprt_new(const lprt_config *cfg, const lprt_hooks *hooks); /* NULLs = defaults */
/* Start the domains, run until `main_actor` ends, then stop every remaining
   actor (on_exit with LPRT_KILLED), join all threads and free actor state.
   Starts main_actor if it was only created. Returns main's reason kind, or
   LPRT_EDEADLOCK when the deadlock hook fired. One call per runtime. */
int lprt_run(lprt *rt, lprt_actor *main_actor);
/* Drop the creator's reference; the runtime is freed when no actor handle remains. */
void lprt_free(lprt *rt);
int lprt_domain_count(lprt *rt);
/* CLOCK_MONOTONIC in nanoseconds; on the domain of a deterministic runtime, its virtual clock. */
int64_t lprt_now(void);
int64_t lprt_deadline_ms(int64_t ms);   /* now + ms, saturating at INT64_MAX; ms < 0 gives -1 (no deadline) */

/* Deterministic mode (lprt_config.deterministic): 1 when on. */
int lprt_deterministic(lprt *rt);
/* Deterministic mode: actor turns run so far, and faults injected so far. */
uint64_t lprt_det_steps(lprt *rt);
uint64_t lprt_det_faults(lprt *rt);
/* Deterministic mode: the virtual clock in nanoseconds (0 when off). */
int64_t lprt_det_clock(lprt *rt);

/* ---- actors ---- */
/* create: not yet runnable, so links/monitors/trapping can be set up first. */
lprt_actor *lprt_create_step(lprt *rt, lprt_step_fn fn, void *userdata);
lprt_actor *lprt_create_fiber(lprt *rt, lprt_fiber_fn fn, void *userdata, size_t stack_size);
/* A fiber whose userdata is ud_size zeroed bytes allocated with the actor (one allocation, freed
   with it at its last release, so valid as long as the actor is referenced); init(a, ud, arg) fills
   them before the actor is registered, so lprt_each_actor never sees them half-written. */
lprt_actor *lprt_create_fiber_with(lprt *rt, lprt_fiber_fn fn, size_t ud_size,
                                   void (*init)(lprt_actor *a, void *ud, void *arg), void *arg, size_t stack_size);
/* Calls fn on every live actor (created and not yet past its on_exit hook's registry removal),
   under the lock of the registry shard that holds it: fn must not create, end or wait. */
void lprt_each_actor(lprt *rt, void (*fn)(lprt_actor *a, void *arg), void *arg);
void lprt_start(lprt_actor *a);
lprt_actor *lprt_spawn_step(lprt *rt, lprt_step_fn fn, void *userdata);
lprt_actor *lprt_spawn_fiber(lprt *rt, lprt_fiber_fn fn, void *userdata, size_t stack_size);
void lprt_retain(lprt_actor *a);
void lprt_release(lprt_actor *a);
uint64_t lprt_id(const lprt_actor *a);
void *lprt_userdata(const lprt_actor *a);
lprt *lprt_runtime(const lprt_actor *a);
int lprt_state(const lprt_actor *a);
int lprt_kind(const lprt_actor *a);
lprt_actor *lprt_self(void); /* the actor running on this thread (borrowed), or NULL */
/* Recorded reason of a dead actor: returns its kind and stores the value
   (borrowed) in *value; -1 while alive. */
int lprt_dead_reason(lprt_actor *a, void **value);

/* ---- messages ---- */
int lprt_send(lprt_actor *to, void *value); /* LPRT_OK or LPRT_EDEAD (value released) */
size_t lprt_mbox_len(lprt_actor *a);        /* approximate for non-owners */
/* Owner only: selective receive. Iterate oldest -> newest; take() unlinks the
   entry (others keep their order); the taker frees it with lprt_msg_free. */
lprt_msg *lprt_mbox_first(lprt_actor *self);
lprt_msg *lprt_mbox_next(lprt_actor *self, lprt_msg *m);
lprt_msg *lprt_mbox_after(lprt_actor *self, uint64_t seq); /* first entry with seq > `seq`, sought from both ends */
/* The seq of the newest entry so far (0: none yet): entries arriving later all
   have a greater seq, so a receive for something that cannot have arrived
   yet (a reply, a DOWN for a fresh monitor) can scan from here. */
uint64_t lprt_mbox_mark(lprt_actor *self);
void lprt_mbox_take(lprt_actor *self, lprt_msg *m);
void lprt_msg_free(lprt *rt, lprt_msg *m);

/* ---- blocking (owner only) ----
   Register what the actor waits for; then a step actor returns LPRT_BLOCK,
   a fiber calls lprt_suspend(). Deadlines are absolute lprt_now() values, -1 = none. */
void lprt_wait_receive(lprt_actor *self, uint64_t after_seq, int64_t deadline);
void lprt_wait_sleep(lprt_actor *self, int64_t deadline);
void lprt_wait_fd(lprt_actor *self, int fd, int events, int64_t deadline);
/* Both an fd wait and a receive: the actor wakes when fd is ready (LPRT_WAKE_FD), when a
   message after after_seq is in its mailbox (LPRT_WAKE_MESSAGE) or at the deadline. */
void lprt_wait_fd_or_receive(lprt_actor *self, int fd, int events, uint64_t after_seq, int64_t deadline);
/* Starts getaddrinfo on the resolver thread; wake reason LPRT_WAKE_RESOLVED when done. */
int lprt_wait_resolve(lprt_actor *self, const char *host, const char *service, int family,
                      int socktype, int64_t deadline);
/* After LPRT_WAKE_RESOLVED: the result (caller frees with freeaddrinfo) and
   getaddrinfo's status in *status. */
struct addrinfo *lprt_resolved(lprt_actor *self, int *status);
/* Runs run(arg) on the job threads (blocking work: SQLite, file I/O); wake
   reason LPRT_WAKE_DONE when it has run. done(arg), if given, follows run
   (the pool's reference to arg). The job runs to its end even if the actor
   stops waiting. Answers 1 when it ran at once in the caller (deterministic
   mode: do not block), LPRT_OK when queued, LPRT_ENOMEM. */
int lprt_wait_job(lprt_actor *self, void (*run)(void *), void (*done)(void *), void *arg, int64_t deadline);
int lprt_wake_reason(lprt_actor *self);
/* Spend n reductions. Step actor: returns 1 when the budget is spent (return
   LPRT_YIELD). Fiber: yields to the scheduler itself and returns 0. */
int lprt_reductions(lprt_actor *self, int n);

/* ---- fibers only ---- */
int lprt_suspend(lprt_actor *self); /* after lprt_wait_*: returns the wake reason */
void lprt_yield(lprt_actor *self);
/* FIFO receive: take the oldest entry, waiting until `deadline`; NULL on timeout. */
lprt_msg *lprt_receive(lprt_actor *self, int64_t deadline);
void lprt_sleep_ms(lprt_actor *self, int64_t ms);
/* Wait until fd is ready: 1 ready, 0 timeout. */
int lprt_fd_wait(lprt_actor *self, int fd, int events, int64_t deadline);
/* Deep recursion: a fiber may run part of its work on a second stack of its own, reserved
   (MAP_NORESERVE, committed as it is used) on first need and kept until the fiber ends.
   lprt_deep_reserve: 0 once it exists, -1 if it cannot be mapped; every deep stack of a runtime
   has the size its first reservation asked for (later sizes are ignored). lprt_deep_call runs fn(arg) on it, from the fiber's own stack only (not
   while lprt_on_deep_stack); fn may block, and the fiber may migrate, meanwhile. */
int lprt_deep_reserve(lprt_actor *self, size_t size);
void lprt_deep_call(lprt_actor *self, void (*fn)(void *arg), void *arg);
int lprt_on_deep_stack(lprt_actor *self);

/* ---- failure ---- */
/* Reason used when the actor ends (step returns LPRT_DONE / fiber returns).
   Consumes `value`. Default LPRT_NORMAL. */
void lprt_set_exit_reason(lprt_actor *self, int kind, void *value);
/* Exit signal from `from` (may be NULL) to `target`. LPRT_KILLED is untrappable;
   otherwise a trapping target gets an EXIT message, a non-trapping one dies
   (LPRT_NORMAL is ignored by non-trapping targets). Consumes `value`. */
void lprt_exit(lprt_actor *from, lprt_actor *target, int kind, void *value);
/* Symmetric link. LPRT_OK; if b is dead: LPRT_EXIT_DELIVERED when a traps exits
   (EXIT with b's recorded reason is in a's mailbox), else LPRT_EDEAD. */
int lprt_link(lprt_actor *a, lprt_actor *b);
void lprt_unlink(lprt_actor *a, lprt_actor *b);
/* `watcher` monitors `target`: returns the monitor ref; if target is already
   dead a DOWN with the recorded reason is delivered at once. */
uint64_t lprt_monitor(lprt_actor *watcher, lprt_actor *target);
int lprt_demonitor(lprt_actor *target, uint64_t ref); /* 1 if it was still active */
void lprt_trap_exits(lprt_actor *a, int on);
int lprt_traps_exits(lprt_actor *a);

/* ---- observability ---- */
/* A background actor (the observer's own) never wakes a parked domain while another domain
   runs: woken from outside the domains (a timer, a socket) it joins the queue of a domain that
   is running, and woken or queued on a domain it stays there without waking another, so a
   program whose actors keep to one domain keeps to it while the actor serves. Actors a
   background actor creates are background too. */
void lprt_set_background(lprt_actor *a);

typedef struct {
    uint64_t id;
    int state; /* LPRT_ST_* */
    int kind;  /* LPRT_STEP / LPRT_FIBER */
    size_t mailbox;
    uint64_t turns;  /* times it was given a domain to run on */
    int domain;      /* the domain it last ran on, -1: never ran */
    int traps;       /* traps exit signals */
    int links, monitors; /* links and monitors it holds (its `monitors` are the ones watching it) */
} lprt_actor_info;
/* Fills up to cap entries of live actors; returns how many live actors there are. */
size_t lprt_snapshot(lprt *rt, lprt_actor_info *out, size_t cap);
/* One actor's links and watchers (the actors monitoring it): ids into the arrays, up to cap
   each; answers 0 when the actor is not live. The counts say how many there are. */
int lprt_actor_peers(lprt *rt, uint64_t id, uint64_t *links, size_t *nlinks, uint64_t *watchers,
                     size_t *nwatchers, size_t cap);

/* With lprt_config.observe: the oldest messages waiting in a live actor's mailbox (those the
   owner has already moved to its list; the newest may not be there yet), up to cap: their
   kinds (LPRT_MSG_*) and values, copied under the actor's lock and NOT retained (a peek of an
   actor that is running waits until its turn ends or it next changes its list, mailbox.c), so the engine
   must be able to look a value up after its message was taken and freed (the Python binding's
   handle table can: a freed handle is simply absent). Answers how many were copied, or -1 when
   the actor is not live or the runtime does not observe. */
int lprt_mbox_peek(lprt *rt, uint64_t id, int *kinds, void **values, int cap);

typedef struct {
    int index;
    uint64_t turns;     /* turns run on this domain */
    uint64_t parked_ns; /* time spent parked (idle), including a park in progress */
    size_t queued;      /* actors in its run queue */
} lprt_domain_info;
/* Fills up to cap domains; returns the domain count. Nothing is counted per turn but a
   single-writer counter, so this costs the scheduler nothing while no one asks. */
int lprt_domain_snapshot(lprt *rt, lprt_domain_info *out, int cap);

typedef struct {
    uint64_t spawned, exited, steals, parks, messages;
    uint64_t seek_steps; /* steps lprt_mbox_after took to find where a scan resumes */
    uint64_t mbox_locks; /* times an owner locked its mailbox list because a peek was in progress */
    uint64_t stack_maps; /* mmap calls made for fiber stacks (a chunk of pooled slots, or one stack) */
} lprt_stats;
void lprt_get_stats(lprt *rt, lprt_stats *out);

/* ---- private SQLite stores (sql.c) ----
   A store is one SQLite file, opened by its first request. A request is one
   statement (LPRT_SQL_EXECUTE), a read that always rolls back (LPRT_SQL_QUERY)
   or 1 to 100 statements committed together (LPRT_SQL_TRANSACTION): build it
   with lprt_sql_set / lprt_sql_param, run it on the job threads with
   lprt_wait_sql (or in the caller with lprt_sql_run), then read its status
   and results. A failed request changes nothing. */
enum {
    LPRT_SQL_EXECUTE = 0, LPRT_SQL_QUERY = 1, LPRT_SQL_TRANSACTION = 2
};
enum { /* value types */
    LPRT_SQL_NULL = 0, LPRT_SQL_INT = 1, LPRT_SQL_REAL = 2, LPRT_SQL_TEXT = 3, LPRT_SQL_BLOB = 4
};
enum { /* statuses */
    LPRT_SQL_OK = 0,
    LPRT_SQL_INVALID = 1,    /* SQL the store does not run, or a request outside the limits */
    LPRT_SQL_CONSTRAINT = 2, /* a constraint refused a write */
    LPRT_SQL_NUMERIC = 3,    /* a number outside the safe integer range, or not finite */
    LPRT_SQL_TOO_LARGE = 4,  /* a result value or the results past their limits */
    LPRT_SQL_FULL = 5,       /* the store reached its size limit */
    LPRT_SQL_BUSY = 6,       /* another connection held the store past the busy timeout */
    LPRT_SQL_BACKEND = 7     /* the file cannot be opened, read or written */
};
enum {
    LPRT_SQL_MAX_SQL = 100000, LPRT_SQL_MAX_PARAMS = 100, LPRT_SQL_MAX_VALUE = 1000000,
    LPRT_SQL_MAX_STATEMENTS = 100
};
typedef struct lprt_db lprt_db;
typedef struct lprt_sql lprt_sql;
/* max_bytes: the store's size limit (0: none); busy_ms: how long a request waits for a
   lock another connection holds. */
lprt_db *lprt_db_new(const char *path, int64_t max_bytes, int busy_ms);
void lprt_db_release(lprt_db *db);
lprt_sql *lprt_sql_new(lprt_db *db, int mode, int nstmts, int64_t result_limit);
void lprt_sql_release(lprt_sql *q);
int lprt_sql_set(lprt_sql *q, int i, const char *sql, size_t len, int nparams);
int lprt_sql_param(lprt_sql *q, int i, int j, int type, int64_t iv, double fv, const char *p, size_t n);
int lprt_wait_sql(lprt_actor *self, lprt_sql *q); /* as lprt_wait_job */
void lprt_sql_run(lprt_sql *q);
int lprt_sql_status(const lprt_sql *q);
const char *lprt_sql_message(const lprt_sql *q);
int lprt_sql_failed_at(const lprt_sql *q); /* the statement that failed, -1: none or the commit */
int lprt_sql_columns(const lprt_sql *q, int i);
const char *lprt_sql_column(const lprt_sql *q, int i, int c);
int64_t lprt_sql_rows(const lprt_sql *q, int i);
int64_t lprt_sql_written(const lprt_sql *q, int i);
int lprt_sql_cell(const lprt_sql *q, int i, int64_t r, int c, int64_t *iv, double *fv, const char **p, size_t *n);

/* ---- network (net_sock.c, net_conn.c, net_fiber.c) ----
   Non-blocking sockets. No call ever blocks: LPRT_NET_WANT_READ / _WANT_WRITE
   mean "wait for the fd (lprt_wait_fd with LPRT_READ / LPRT_WRITE and your
   deadline), then call again"; a step actor returns LPRT_BLOCK and repeats
   the call when woken, a fiber uses the *_wait helpers below. Other negative
   results are -errno or one of these codes. Every connected socket (connected
   or accepted) has TCP_NODELAY set and is close-on-exec. */
enum {
    LPRT_NET_WANT_READ = -10001,
    LPRT_NET_WANT_WRITE = -10002,
    LPRT_NET_EOF = -10003,       /* clean end of stream, nothing buffered */
    LPRT_NET_TOO_LONG = -10004,  /* a line longer than the limit */
    LPRT_NET_TRUNCATED = -10005, /* the stream ended inside a read of n bytes */
    LPRT_NET_TIMEOUT = -10006,   /* *_wait helpers: the deadline passed */
    LPRT_NET_DNS = -10007,       /* *_wait helpers: the name did not resolve */
    LPRT_NET_NOT_TEXT = -10008   /* a line that is not UTF-8 (left unread) */
};
/* Whether text[0, n) is UTF-8 (strict: no overlong forms, surrogates or code
   points past U+10FFFF). */
int lprt_utf8_ok(const void *text, size_t n);
/* Numeric address (IPv4 or IPv6) only: resolve names first (lprt_wait_resolve).
   0: connected; LPRT_NET_WANT_WRITE: in progress, wait for write then call
   lprt_net_connect_result; *fd is set in both cases (the caller closes it). */
int lprt_net_connect(const char *addr, int port, int *fd);
int lprt_net_connect_result(int fd); /* 0 or -errno (ECONNREFUSED, ...) */
/* addr NULL or "": every interface (IPv6 dual stack when available). port 0
   picks a free port (lprt_net_local_port tells it). SO_REUSEADDR is set. */
int lprt_net_listen(const char *addr, int port, int backlog, int *fd);
int lprt_net_local_port(int fd);
int lprt_net_accept(int listen_fd, int *fd); /* 0, LPRT_NET_WANT_READ or -errno */
int lprt_net_close(int fd);

/* A buffered byte stream over a connected socket. Reads answer a pointer into
   the connection's buffer, valid until the next call on it; the buffer never
   grows past what one read asks for (a line: its limit). */
typedef struct lprt_conn lprt_conn;
lprt_conn *lprt_conn_new(int fd); /* takes the fd (closed by lprt_conn_free) */
void lprt_conn_free(lprt_conn *c);
int lprt_conn_fd(const lprt_conn *c);
/* One line without its "\n" or "\r\n": its length (>= 0, *line set), or a
   negative code. A last line without a newline before EOF is a line. A line
   that is not UTF-8 answers LPRT_NET_NOT_TEXT and stays in the buffer, so the
   next read (of bytes) begins with it. */
long lprt_conn_read_line(lprt_conn *c, size_t limit, const char **line);
/* Exactly n bytes (1 <= n <= 1 GiB); LPRT_NET_EOF when the stream ended
   before any, LPRT_NET_TRUNCATED when it ended after some. */
long lprt_conn_read_exact(lprt_conn *c, size_t n, const char **out);
/* Between 1 and max bytes, as soon as any are there. */
long lprt_conn_read_some(lprt_conn *c, size_t max, const char **out);
size_t lprt_conn_buffered(const lprt_conn *c);
/* Write some of data: bytes written (> 0), LPRT_NET_WANT_WRITE or -errno. */
long lprt_conn_write(lprt_conn *c, const void *data, size_t n);
/* Half-close (shutdown SHUT_WR). */
int lprt_conn_shutdown(lprt_conn *c);

/* Fiber helpers: the calls above, suspending the fiber on "would block" until
   done or the deadline (LPRT_NET_TIMEOUT). */
int lprt_net_connect_wait(lprt_actor *self, const char *host, int port, int64_t deadline, int *fd);
int lprt_net_accept_wait(lprt_actor *self, int listen_fd, int64_t deadline, int *fd);
long lprt_conn_read_line_wait(lprt_actor *self, lprt_conn *c, size_t limit, const char **line, int64_t deadline);
long lprt_conn_read_exact_wait(lprt_actor *self, lprt_conn *c, size_t n, const char **out, int64_t deadline);
long lprt_conn_write_all_wait(lprt_actor *self, lprt_conn *c, const void *data, size_t n, int64_t deadline);

/* ---- HTTP/1.1 framing (net_http.c) ----
   Request heads and chunked bodies, read from a connection's buffer with the
   same "would block" rule. Errors are the HTTP status to answer, negated. */
enum { LPRT_HTTP_BAD_REQUEST = -400, LPRT_HTTP_TOO_LARGE = -413, LPRT_HTTP_URI_TOO_LONG = -414,
       LPRT_HTTP_HEADERS_TOO_LARGE = -431, LPRT_HTTP_NOT_IMPLEMENTED = -501,
       LPRT_HTTP_BAD_VERSION = -505 };
typedef struct {
    const char *p;
    size_t n;
} lprt_http_field;
typedef struct {
    size_t max_line;    /* request line and each header line, bytes */
    size_t max_headers; /* header fields */
    size_t max_head;    /* the whole head, bytes, with the blank line ending it */
} lprt_http_limits;
/* One request head: answers the number of header fields h (0 <= h <= cap/2 - 2)
   with fields[0..2] = method, target, version and fields[3 + 2i], fields[4 + 2i]
   = name (lowercased) and value (trimmed), pointing into the connection's
   buffer until the next call on it. Empty lines before the request line are
   skipped. LPRT_NET_EOF: the stream ended before any byte of a request;
   LPRT_NET_WANT_READ; -errno; or LPRT_HTTP_*: the request is malformed (400),
   its line too long (414), a header line, the header count or the head too
   large (431), the version not HTTP/1.0 or 1.1 (505). */
long lprt_http_read_head(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap);
/* lprt_http_read_head and, when it read a head, lprt_http_request_framing on it (*framing is
   what that answered, 0 otherwise), in one call: the interpreter's lock is released for each call
   from Python, and on two domains every release can hand it to the other domain. When no head
   was read, *buffered tells whether bytes of one have arrived. */
long lprt_http_read_request(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap,
                            size_t max_body, long long *length, int *keep_alive, long *framing, int *buffered);
/* After a request head whose body is still to come (framing and length as
   lprt_http_request_framing answered them; lprt_http_read_request calls it):
   when the client asked to be told to go on (Expect: 100-continue) and none of
   the body has arrived, the interim "100 Continue" (RFC 9110 10.1.1), best
   effort: a socket that would block gets none, and the client sends the body
   after its own wait. */
void lprt_http_continue(lprt_conn *c, const lprt_http_field *fields, long nheaders, long framing, long long length);
/* A response head, for clients: fields[0..2] = version, status (3 digits),
   reason; errors as above (a malformed status line is LPRT_HTTP_BAD_REQUEST). */
long lprt_http_read_status(lprt_conn *c, const lprt_http_limits *lim, lprt_http_field *fields, size_t cap);
/* 1 when a pooled connection looks reusable: nothing buffered, and the peer
   has neither closed it nor sent anything unasked. */
int lprt_conn_reusable(lprt_conn *c);
/* A whole chunked body (chunks, last chunk, trailers) decoded: its length, with
   *out pointing at the bytes until the next call; LPRT_NET_WANT_READ; -errno;
   LPRT_HTTP_BAD_REQUEST (malformed, or the stream ended inside it) or
   LPRT_HTTP_TOO_LARGE (more than max_body bytes of data). */
long lprt_http_read_chunked(lprt_conn *c, size_t max_body, const char **out);
/* A request's body framing from its head (fields and header count as
   lprt_http_read_head answered them): 0 with *length the Content-Length (0
   without one), 1 chunked; LPRT_HTTP_BAD_REQUEST (a malformed or repeated
   Content-Length, both it and Transfer-Encoding, or two Host fields), LPRT_HTTP_NOT_IMPLEMENTED
   (a coding other than chunked), LPRT_HTTP_TOO_LARGE (a length over max_body).
   *keep_alive: whether the connection stays open after the answer (HTTP/1.1
   unless "Connection: close", HTTP/1.0 only with "Connection: keep-alive"). */
long lprt_http_request_framing(const lprt_http_field *fields, long nheaders, size_t max_body, long long *length,
                               int *keep_alive);
/* What HttpWireError says for a request refused with status (the negated LPRT_HTTP_* code
   lprt_http_read_head answered), NULL for a code that is no such refusal; and for a framing
   error lprt_http_request_framing answered. Both modes word their errors with these. */
const char *lprt_http_error_text(long status);
const char *lprt_http_framing_text(long framing);
/* The reason phrase of a status code ("Unknown" for one it does not know). */
const char *lprt_http_reason(int status);
/* Whether a header a handler gave may be sent: 0, or what is wrong with it (a
   line break in its name or value, a name that is not a token, a control
   character in the value, or Content-Length / Transfer-Encoding, which the
   server writes itself). */
enum { LPRT_HTTP_HEADER_BREAK = 1, LPRT_HTTP_HEADER_NAME = 2, LPRT_HTTP_HEADER_VALUE = 3,
       LPRT_HTTP_HEADER_FRAMING = 4 };
int lprt_http_check_header(const lprt_http_field *name, const lprt_http_field *value);
/* A whole response in out[0, cap): status line, the headers (pairs name, value
   in headers[0 .. 2*nheaders), each passed by lprt_http_check_header),
   Content-Type: text/plain; charset=utf-8 unless one of them is a Content-Type,
   Content-Length, Connection: close unless keep_alive, the blank line and the
   body (not with head_only). A 1xx, 204 or 304 response has neither body nor
   Content-Type nor Content-Length (RFC 9110 6.4.1). Answers its length; when
   that is more than cap, nothing past cap was written. */
size_t lprt_http_render_response(char *out, size_t cap, int status, const lprt_http_field *headers, size_t nheaders,
                                 const void *body, size_t body_n, int keep_alive, int head_only);
/* lprt_http_render_response into out (*size its length; -EINVAL, nothing written, when that is
   more than cap) and lprt_conn_write of it until all is written or the socket takes no more, in
   one call (as lprt_http_read_request, for the interpreter): the bytes written, or, when none
   were, LPRT_NET_WANT_WRITE or -errno. */
long lprt_http_send_response(lprt_conn *c, char *out, size_t cap, size_t *size, int status,
                             const lprt_http_field *headers, size_t nheaders, const void *body, size_t body_n,
                             int keep_alive, int head_only);

/* ---- UDP (net_udp.c) ---- numeric addresses, the same "would block" rule. */
/* addr NULL or "": every interface. port 0 picks one (lprt_net_local_port). */
int lprt_udp_bind(const char *addr, int port, int *fd);
/* One datagram: bytes sent, LPRT_NET_WANT_WRITE or -errno. */
long lprt_udp_send(int fd, const char *addr, int port, const void *data, size_t n);
/* One datagram into buf (cap bytes; a longer one is cut): its length,
   LPRT_NET_WANT_READ or -errno; the sender's numeric address (addr_cap >= 46)
   and port are stored. */
long lprt_udp_receive(int fd, void *buf, size_t cap, char *addr, size_t addr_cap, int *port);

/* ---- TLS (net_tls.c, OpenSSL) ----
   A connection becomes TLS with lprt_tls_start; then lprt_tls_handshake until
   it answers 0, and the lprt_conn_* calls read and write through TLS, with
   the same codes (a TLS read may answer LPRT_NET_WANT_WRITE, and the other way
   round). A client verifies the peer's certificate chain and host name. TLS
   failures answer LPRT_NET_TLS with the reason in the connection
   (lprt_tls_error). */
enum { LPRT_NET_TLS = -10008 };
typedef struct lprt_tls_ctx lprt_tls_ctx;
/* ca_file NULL: the system's trusted CAs. NULL on failure (reason in err). */
lprt_tls_ctx *lprt_tls_client_ctx(const char *ca_file, char *err, size_t err_cap);
lprt_tls_ctx *lprt_tls_server_ctx(const char *cert_file, const char *key_file, char *err, size_t err_cap);
void lprt_tls_ctx_free(lprt_tls_ctx *ctx);
/* host: the name to verify and send as SNI (client); NULL for a server. */
int lprt_tls_start(lprt_conn *c, lprt_tls_ctx *ctx, const char *host);
long lprt_tls_handshake(lprt_conn *c);
const char *lprt_tls_error(const lprt_conn *c);

/* ---- WebSocket frames (net_ws.c, RFC 6455) ---- */
enum { LPRT_WS_PROTOCOL_ERROR = -11002, LPRT_WS_TOO_BIG = -11009 };
/* One frame: its payload length (>= 0), with *opcode, *fin and *out (the
   unmasked payload, in the connection's buffer until the next call);
   LPRT_NET_WANT_READ (or _WRITE under TLS); LPRT_NET_EOF (nothing buffered);
   LPRT_NET_TRUNCATED; LPRT_WS_TOO_BIG (payload over max); LPRT_WS_PROTOCOL_ERROR
   (reserved bits or opcodes, a long or fragmented control frame, a mask
   missing from a client's frame (masked != 0) or present in a server's). */
long lprt_ws_read_frame(lprt_conn *c, size_t max, int masked, int *opcode, int *fin, const char **out);
/* A whole frame into out (n + 14 bytes): header, then the payload, masked
   with mask_key when it is not NULL (clients). Answers the frame's length. */
size_t lprt_ws_encode(unsigned char *out, int opcode, int fin, const void *payload, size_t n,
                      const unsigned char *mask_key);
/* Whether a close code may travel in a close frame (RFC 6455 7.4): 1000-1003,
   1007-1014 and 3000-4999; never 1005, 1006, 1015 nor a reserved one. */
int lprt_ws_close_code_ok(long long code);
/* A received close frame's payload (RFC 6455 5.5.1): 0 with *code (1005 for an
   empty payload), else the code to close with: 1002 for one byte or a code
   that may not be sent, 1007 for a reason that is not UTF-8. */
int lprt_ws_check_close(const void *payload, size_t n, int *code);

#ifdef __cplusplus
}
#endif
#endif
