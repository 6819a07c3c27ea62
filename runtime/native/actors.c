/* actors.c — actors in native binaries: every LP actor (the main program included) is a fiber
 * of the runtime (lprt_create_fiber). Messages, futures, selective receive, links, monitors,
 * exit reasons and the reports `lp run` prints (docs/native.md "Actors").
 *
 * A fiber may resume on another domain thread, so the per-thread unwinding context (lpn_cx),
 * frame depth and reduction budget are saved in the actor's state around every switch
 * (park / lpn_preempt) and restored after it.                                            */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lprt.h"
#include "lpn.h"

enum { REASON_CUT = 300 };   /* the reduction budget is the compiler's (compiler/actors.py) */
#define ACTOR_STACK ((size_t)LPN_ACTOR_STACK_KIB * 1024)

static uint64_t cls_actor = UINT64_MAX, cls_future = UINT64_MAX, cls_promise = UINT64_MAX, cls_down = UINT64_MAX,
                cls_exit = UINT64_MAX;
static int quiet;
static volatile int main_done;

/* ---- actor state ---------------------------------------------------------------------- */

/* An Actor value: one cell per actor, in its state (actor_value). */
typedef struct { lpn_foreign f; lprt_actor *a; uint64_t id; } actor_ref;

typedef struct nactor {   /* its runtime actor and id: ref.a, ref.id */
    actor_ref ref;               /* its Actor value; a count of 0: no value refers to it */
    lpn_ctx cx;                  /* saved while the fiber is switched out */
    uint64_t depth;              /* lpn_depth */
    uint64_t reductions;         /* lpn_reductions */
    uint64_t floor;              /* lpn_stack_floor */
    lpn_value block;             /* the spawned block, until it runs */
    int is_main;
    int killed;                  /* unwinding after a kill by another actor or a link */
    int32_t exit_site;           /* the `exit:` send that ended it, or -1 */
    int32_t wait_site;
    const char *wait_what;       /* what it blocks in (the deadlock report) */
    uint64_t wait_asked;         /* await: the actor asked (0: none) */
    lpn_monitors mons;           /* by the id of the actor watched */
    uint64_t *stale;             /* refs of ask: monitors whose Down is to be dropped */
    uint32_t nstale, cstale;
    int gone;                    /* past its on_exit hook: no longer listed (deadlock report, observer) */
    int returned;                /* its body returned (else it was ended where it stood: killed) */
    int32_t spawn_site;          /* the `spawn:` send that made it, or -1 (the observer's table) */
    int hidden;                  /* one of the observer's own actors (RuntimeView hide) */
    void *grain;                 /* the durable grain it owns (storage.c), freed by grain_free */
    void (*grain_free)(void *);
} nactor;

/* Set by the network primitives: called with the id of an actor ended without unwinding, whose
   frames' values are not dropped, so the sockets it was using get closed. */
void (*lpn_abandoned_hook)(uint64_t actor_id);

/* The state of a spawned actor is allocated with its runtime actor (lprt_create_fiber_with) and
   the live actors are listed from the runtime's sharded registry (lprt_each_actor): a spawn takes
   no lock of its own and makes one allocation for both. */
static lprt *program_rt;
static nactor main_state;
static lpn_ctx main_cx;          /* the main actor's context when it ended (the uncaught report) */

/* The state of a listed actor, or NULL once it is past its on_exit hook. */
static nactor *listed(lprt_actor *a) {
    nactor *s = lprt_userdata(a);
    return s && !__atomic_load_n(&s->gone, __ATOMIC_ACQUIRE) ? s : NULL;
}

static nactor *self_state(void) {
    lprt_actor *a = lprt_self();
    return a ? lprt_userdata(a) : NULL;
}

int lpn_output_allowed(void) {
    if (!main_done) return 1;
    nactor *s = self_state();
    return !s || s->is_main;
}

/* Killed by another actor (or a link) while switched out: the runtime resumed it once to unwind
   (lprt_config.unwind_killed_fibers), so that its frames drop what they own; the kill's reason
   ends it. */
static void killed(nactor *s) {
    s->killed = 1;
    lpn_signalled(LPN_NIL_VALUE);
}

/* This thread's lpn_cx, lpn_depth, lpn_reductions and lpn_stack_floor. A fiber may resume on another domain
   thread, and C compilers keep a thread-local's address across calls (to them the thread pointer
   never changes), so code running after a switch, or after LP code that may switch, reaches them
   through these. */
__attribute__((noinline)) static lpn_ctx *cx_here(void) {
    __asm__ volatile("");
    return &lpn_cx;
}
__attribute__((noinline)) static uint64_t *depth_here(void) {
    __asm__ volatile("");
    return &lpn_depth;
}
__attribute__((noinline)) static uint64_t *reductions_here(void) {
    __asm__ volatile("");
    return &lpn_reductions;
}
__attribute__((noinline)) static uint64_t *floor_here(void) {
    __asm__ volatile("");
    return &lpn_stack_floor;
}

static void tls_save(nactor *s) {
    s->cx = lpn_cx;
    s->depth = lpn_depth;
    s->reductions = lpn_reductions;
    s->floor = lpn_stack_floor;
}

static void tls_restore(nactor *s) {
    *cx_here() = s->cx;
    memset(&s->cx, 0, sizeof s->cx);   /* the running context owns its trace again */
    *depth_here() = s->depth;
    *reductions_here() = s->reductions;
    *floor_here() = s->floor;
}

/* Switch out until woken; answers the wake reason (LPRT_WAKE_KILLED: unwind, LPN_SIGNALLED). */
static int park(nactor *s) {
    lpn_flush_pending();
    tls_save(s);
    int r = lprt_suspend(s->ref.a);
    tls_restore(s);
    s->wait_what = NULL;
    if (r == LPRT_WAKE_KILLED) killed(s);
    return r;
}

/* Around a wait made outside this file (the network primitives, runtime/native/net_*.c, which
   suspend the fiber through the runtime's fd and resolver waits): the actor, with its per-thread
   state saved; lpn_wait_end restores it once the fiber runs again and answers nonzero when the
   actor was killed meanwhile (the unwinding is then set: the primitive gives up and unwinds). */
lprt_actor *lpn_wait_begin(void) {
    lpn_flush_pending();
    nactor *s = self_state();
    tls_save(s);
    return s->ref.a;
}

int lpn_wait_end(void) {
    nactor *s = self_state();
    tls_restore(s);
    if (lprt_wake_reason(s->ref.a) != LPRT_WAKE_KILLED) return 0;
    killed(s);
    return 1;
}

void *lpn_actor_grain(void) {
    nactor *s = self_state();
    return s ? s->grain : NULL;
}

void lpn_actor_set_grain(void *grain, void (*free_fn)(void *)) {
    nactor *s = self_state();
    if (s->grain) s->grain_free(s->grain);
    s->grain = grain;
    s->grain_free = free_fn;
}

int64_t lpn_preempt(void) {
    lpn_reductions = 0;   /* a new turn: no reductions spent */
    nactor *s = self_state();
    if (!s) return 0;
    tls_save(s);
    lprt_yield(s->ref.a);
    tls_restore(s);
    if (lprt_wake_reason(s->ref.a) != LPRT_WAKE_KILLED) return 0;
    killed(s);
    return 1;
}

/* ---- foreign values: actors, futures, promises, reply addresses ----------------------- */

typedef struct {
    lpn_foreign f;
    pthread_mutex_t mu;
    int resolved;
    lpn_value value;             /* shared once resolved */
    lprt_actor *asked;           /* ask: the actor asked (retained), else NULL */
    uint64_t asked_id;
    lprt_actor **waiters;        /* retained */
    size_t nw, cw;
} future;

typedef struct { lpn_foreign f; lpn_value fut; } fut_holder;   /* a Promise or a reply address */

static void actor_fin(lpn_foreign *f) { lprt_release(((actor_ref *)f)->a); }
static int actor_print(lpn_foreign *f, char *buf, size_t cap) {
    return snprintf(buf, cap, "Actor<%llu>", (unsigned long long)((actor_ref *)f)->id);
}
static uint64_t actor_identity(lpn_foreign *f) { return ((actor_ref *)f)->id; }
static const lpn_foreign_ops actor_ops = {actor_fin, actor_print, actor_identity, 1};

static void future_fin(lpn_foreign *f) {
    future *u = (future *)f;
    if (u->resolved) lpn_drop(u->value);
    if (u->asked) lprt_release(u->asked);
    for (size_t i = 0; i < u->nw; i++) lprt_release(u->waiters[i]);
    free(u->waiters);
    pthread_mutex_destroy(&u->mu);
}
static int future_print(lpn_foreign *f, char *buf, size_t cap) { (void)f; return snprintf(buf, cap, "a Future"); }
static uint64_t by_address(lpn_foreign *f) { return (uint64_t)(uintptr_t)f; }
static const lpn_foreign_ops future_ops = {future_fin, future_print, by_address, 0};

static void holder_fin(lpn_foreign *f) { lpn_drop(((fut_holder *)f)->fut); }
static int promise_print(lpn_foreign *f, char *buf, size_t cap) { (void)f; return snprintf(buf, cap, "a Promise"); }
static int reply_print(lpn_foreign *f, char *buf, size_t cap) { (void)f; return snprintf(buf, cap, "a reply address"); }
static const lpn_foreign_ops promise_ops = {holder_fin, promise_print, by_address, 0};
static const lpn_foreign_ops reply_ops = {holder_fin, reply_print, by_address, 0};

/* Foreign cells are shared from birth (atomic counts): they cross actors inside messages. */
static void *foreign_new(uint64_t cls, size_t size, const lpn_foreign_ops *ops) {
    lpn_foreign *f = lpn_alloc((uint32_t)cls, size);
    f->h.rc = -1;
    f->nfields = LPN_FOREIGN;
    f->ops = ops;
    return f;
}

static void actor_ref_init(nactor *s, lprt_actor *a) {
    s->ref.f.h.cls = (uint32_t)cls_actor;
    s->ref.f.nfields = LPN_FOREIGN;
    s->ref.f.ops = &actor_ops;
    s->ref.a = a;
    s->ref.id = lprt_id(a);
}

/* The Actor value of a (which the caller holds): the cell in its state, counted (shared counts are
   negative). The first value after none holds the actor (actor_fin lets it go): a spawn allocates
   no Actor value, and `Actor self` none either. */
static lpn_value actor_value(lprt_actor *a) {
    actor_ref *r = &((nactor *)lprt_userdata(a))->ref;
    int32_t rc = __atomic_load_n(&r->f.h.rc, __ATOMIC_RELAXED);
    for (;;) {
        if (__atomic_compare_exchange_n(&r->f.h.rc, &rc, rc < 0 ? rc - 1 : -1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            if (rc == 0) lprt_retain(a);
            return lpn_ref(r);
        }
    }
}

static const lpn_foreign_ops *ops_of(lpn_value v) {
    if (v.cls < LPN_FIRST_INST || !lpn_is_foreign(lpn_ptr(v))) return NULL;
    return ((lpn_foreign *)lpn_ptr(v))->ops;
}

static lprt_actor *actor_of(lpn_value v) {
    return ops_of(v) == &actor_ops ? ((actor_ref *)lpn_ptr(v))->a : NULL;
}

static future *future_new(lprt_actor *asked) {
    future *u = foreign_new(cls_future, sizeof *u, &future_ops);
    pthread_mutex_init(&u->mu, NULL);
    u->resolved = 0;
    u->value = LPN_NIL_VALUE;
    u->asked = asked;
    u->asked_id = asked ? lprt_id(asked) : 0;
    if (asked) lprt_retain(asked);
    u->waiters = NULL;
    u->nw = u->cw = 0;
    return u;
}

/* ---- messages as the runtime's void * -------------------------------------------------
 * low 3 bits: 0 a heap object (shared), 1 a Symbol, 2 a small Integer, 3 another small
 * immediate, 4 a counted box {value, site} (Floats, large Integers, error reasons),
 * 5 a future's wake-up (the future, counted).                                            */
typedef struct { int64_t rc; lpn_value v; int32_t site; } vbox;
enum { T_HEAP = 0, T_SYM = 1, T_INT = 2, T_IMM = 3, T_BOX = 4, T_WAKE = 5 };
#define TAG(p) ((uintptr_t)(p) & 7)
#define UNTAG(p) ((void *)((uintptr_t)(p) & ~(uintptr_t)7))

static void *box(lpn_value v, int32_t site) {
    vbox *b = malloc(sizeof *b);
    if (!b) abort();
    b->rc = 1;
    b->v = v;
    b->site = site;
    return (void *)((uintptr_t)b | T_BOX);
}

/* Consumes v, which must already be shared when it is on the heap. */
static void *encode(lpn_value v) {
    if (lpn_is_heap(v)) return lpn_ptr(v);
    if (v.cls == LPN_SYMBOL) return (void *)(uintptr_t)(v.bits | T_SYM);
    int64_t n = (int64_t)v.bits;
    if (v.cls == LPN_INT && n >= -((int64_t)1 << 59) && n < ((int64_t)1 << 59))
        return (void *)(uintptr_t)(((uint64_t)n << 3) | T_INT);
    if (v.cls != LPN_INT && v.cls != LPN_FLOAT && v.bits < ((uint64_t)1 << 55) && v.cls < 32)
        return (void *)(uintptr_t)((v.bits << 8) | (v.cls << 3) | T_IMM);
    return box(v, -1);
}

/* The value in p, borrowed. */
static inline lpn_value view(void *p) {
    uintptr_t x = (uintptr_t)p;
    switch (TAG(p)) {
    case T_HEAP: return lpn_ref(p);
    case T_SYM: return (lpn_value){LPN_SYMBOL, x & ~(uintptr_t)7};
    case T_INT: return lpn_int((int64_t)x >> 3);
    case T_IMM: return (lpn_value){(x >> 3) & 31, x >> 8};
    case T_BOX: return ((vbox *)UNTAG(p))->v;
    default: return LPN_NIL_VALUE;
    }
}

static void msg_retain(void *p, void *ud) {
    (void)ud;
    switch (TAG(p)) {
    case T_HEAP: lpn_dup_obj(p); break;
    case T_BOX: __atomic_add_fetch(&((vbox *)UNTAG(p))->rc, 1, __ATOMIC_RELAXED); break;
    case T_WAKE: lpn_dup_obj(UNTAG(p)); break;
    }
}

static void msg_release(void *p, void *ud) {
    (void)ud;
    switch (TAG(p)) {
    case T_HEAP: lpn_drop_obj(p); break;
    case T_BOX: {
        vbox *b = UNTAG(p);
        if (__atomic_sub_fetch(&b->rc, 1, __ATOMIC_ACQ_REL) == 0) {
            lpn_drop(b->v);
            free(b);
        }
        break;
    }
    case T_WAKE: lpn_drop_obj(UNTAG(p)); break;
    }
}

/* An owned copy of the value in p. */
static lpn_value value_of(void *p) {
    lpn_value v = view(p);
    lpn_dup(v);
    return v;
}

static int32_t site_of(void *reason) { return reason && TAG(reason) == T_BOX ? ((vbox *)UNTAG(reason))->site : -1; }

/* ---- reasons --------------------------------------------------------------------------- */

static lpn_value sym_normal, sym_killed;   /* interned at start */

static lpn_value symbol(const char *name) {
    return (lpn_value){LPN_SYMBOL, (uint64_t)(uintptr_t)lpn_intern(name, strlen(name))};
}

static lpn_value reason_value(int kind, void *value) {
    if (kind == LPRT_NORMAL) return sym_normal;
    if (kind == LPRT_KILLED) return sym_killed;
    return value ? value_of(value) : LPN_NIL_VALUE;
}

/* An LP reason as the runtime's (kind, value); consumes v. */
static int reason_kind(lpn_value v, int32_t site, void **out) {
    *out = NULL;
    if (v.cls == LPN_SYMBOL && v.bits == sym_normal.bits) return LPRT_NORMAL;
    if (v.cls == LPN_SYMBOL && v.bits == sym_killed.bits) return LPRT_KILLED;
    lpn_share(v);
    *out = box(v, site);
    return LPRT_ERROR;
}

static const char *cname(uint64_t cls) {
    return cls < lpn_prog.nclasses && lpn_prog.class_names[cls] ? lpn_prog.class_names[cls] : "Object";
}

static int field_index(uint64_t cls, const char *name) {
    if (cls >= lpn_prog.nclasses || cls < LPN_FIRST_INST) return -1;
    for (uint64_t i = 0; i < lpn_prog.nfields[cls]; i++)
        if (strcmp(lpn_prog.field_names[cls][i], name) == 0) return (int)i;
    return -1;
}

/* printString of v (borrowed), cut after REASON_CUT characters with `...`. */
static void put_cut(char *out, size_t cap, const char *text) {
    size_t n = 0, chars = 0;
    while (text[n] && chars < REASON_CUT) {
        n++;
        while ((text[n] & 0xC0) == 0x80) n++;
        chars++;
    }
    snprintf(out, cap, "%.*s%s", (int)n, text, text[n] ? "..." : "");
}

static void bounded(char *out, size_t cap, lpn_value v) {
    lpn_dup(v);
    lpn_value s = lpn_print_string(v);
    if (s.cls == LPN_STRING) put_cut(out, cap, ((lpn_str *)lpn_ptr(s))->data);
    else snprintf(out, cap, "?");
    if (s.cls != LPN_UNWIND) lpn_drop(s);
}

static void describe_reason(char *out, size_t cap, int kind, void *value) {
    if (kind == LPRT_KILLED) { snprintf(out, cap, "killed"); return; }
    if (kind == LPRT_NORMAL) { snprintf(out, cap, "normal"); return; }
    lpn_value v = value ? view(value) : LPN_NIL_VALUE;
    int mi = lpn_is_heap(v) && !lpn_is_foreign(lpn_ptr(v)) ? field_index(v.cls, "message") : -1;
    if (mi >= 0) {
        lpn_value msg = ((lpn_inst *)lpn_ptr(v))->field[mi];
        char text[1400];
        if (msg.cls == LPN_STRING) put_cut(text, sizeof text, ((lpn_str *)lpn_ptr(msg))->data);
        else bounded(text, sizeof text, msg);
        snprintf(out, cap, "%s: %s", cname(v.cls), text);
        return;
    }
    bounded(out, cap, v);
}

static void report(const char *text) {
    lpn_flush();
    flockfile(stderr);
    fprintf(stderr, "lp: %s\n", text);
    funlockfile(stderr);
}

/* ---- the hooks -------------------------------------------------------------------------- */

static void unobserved(lprt_actor *a, int kind, void *value, void *ud) {
    (void)ud;
    nactor *s = lprt_userdata(a);
    int seen = lpn_observing && s && !s->hidden;
    if ((quiet && !seen) || main_done || (s && s->is_main)) return;
    char why[1600], where[300] = "", line[2000];
    describe_reason(why, sizeof why, kind, value);
    int32_t site = site_of(value);
    if (site >= 0) snprintf(where, sizeof where, " at %s", lpn_prog.sites[site].where);
    if (seen) lpn_observe_death(s->ref.id, s->spawn_site, why, site >= 0 ? lpn_prog.sites[site].where : "");
    if (quiet) return;
    snprintf(line, sizeof line, "actor %llu died (%s)%s, and no link or monitor observed it",
             (unsigned long long)lprt_id(a), why, where);
    report(line);
}

static void state_free(nactor *s) {
    if (s->grain) s->grain_free(s->grain);
    s->grain = NULL;
    lpn_drop(s->block);
    s->block = LPN_NIL_VALUE;
    lpn_monitors_free(&s->mons);
    free(s->stale);
    s->stale = NULL;
    free(s->cx.trace);
    s->cx.trace = NULL;
}

static void on_exit_hook(lprt_actor *a, int kind, void *value, void *ud_actor, void *ud) {
    (void)a; (void)kind; (void)value; (void)ud;
    nactor *s = ud_actor;
    if (!s) return;
    __atomic_store_n(&s->gone, 1, __ATOMIC_RELEASE);
    if (lpn_observing) lpn_observe_ended(s->ref.id);
    if (s->is_main) {
        main_done = 1;
        return;
    }
    if (!s->returned && lpn_abandoned_hook) lpn_abandoned_hook(s->ref.id);
    state_free(s);   /* its memory goes with the runtime actor's */
}

typedef struct { nactor **all; size_t n, cap; } listing;

static void list_one(lprt_actor *a, void *arg) {
    listing *l = arg;
    nactor *s = listed(a);
    if (!s) return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->all = realloc(l->all, l->cap * sizeof *l->all);
        if (!l->all) abort();
    }
    l->all[l->n++] = s;
}

static int by_id(const void *x, const void *y) {
    uint64_t a = (*(nactor *const *)x)->ref.id, b = (*(nactor *const *)y)->ref.id;
    return a < b ? -1 : a > b;
}

static void deadlocked(lprt *rt, void *ud) {
    (void)rt; (void)ud;
    /* every domain is parked: no actor starts or ends while the states are read */
    listing l = {0};
    lprt_each_actor(rt, list_one, &l);
    nactor **all = l.all;
    size_t n = l.n;
    if (n) qsort(all, n, sizeof *all, by_id);
    size_t cap = 256 + n * 600, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "deadlock: every actor is waiting and nothing can wake any of them");
    for (size_t i = 0; i < n; i++) {
        nactor *s = all[i];
        char what[520];
        if (s->wait_asked)
            snprintf(what, sizeof what, "%s for a reply from Actor<%llu>", s->wait_what ? s->wait_what : "in await",
                     (unsigned long long)s->wait_asked);
        else snprintf(what, sizeof what, "%s", s->wait_what ? s->wait_what : "for a message");
        len += (size_t)snprintf(text + len, cap - len, "\n  actor %llu%s waits %s", (unsigned long long)s->ref.id,
                                s->is_main ? " (main)" : "", what);
        if (s->wait_site >= 0)
            len += (size_t)snprintf(text + len, cap - len, " at %s", lpn_prog.sites[s->wait_site].where);
    }
    report(text);
    free(text);
    free(all);
}

/* ---- actors: running, spawning ------------------------------------------------------- */

lpn_value lpn_call_block(lpn_value blk, lpn_value arg, int64_t nargs);   /* generated (compiler/actors.py) */

static void report_unmatched(nactor *s) {
    if (s->is_main || quiet || main_done) return;
    size_t n = 0;
    for (lprt_msg *m = lprt_mbox_first(s->ref.a); m; m = lprt_mbox_next(s->ref.a, m)) {
        if (m->kind == LPRT_MSG_USER && TAG(m->value) == T_WAKE) continue;
        if (m->kind == LPRT_MSG_DOWN) {
            int stale = 0;
            for (size_t i = 0; i < s->nstale; i++) stale |= s->stale[i] == m->ref;
            if (stale) continue;
        }
        n++;
    }
    if (n) {
        char line[160];
        snprintf(line, sizeof line, "actor %llu ended with %zu unmatched message%s in its mailbox",
                 (unsigned long long)s->ref.id, n, n != 1 ? "s" : "");
        report(line);
    }
}

/* Where an `Actor exit:` reason is reported: an instance is placed at the `exit:` send, as the
   interpreter does for an Error that was never raised; other values nowhere. */
static int32_t exit_site_of(lpn_value v, nactor *s) {
    return v.cls >= LPN_FIRST_INST && !lpn_is_foreign(lpn_ptr(v)) ? s->exit_site : -1;
}

/* The actor's body answered r: set its exit reason from how it ended. */
static void ended(nactor *s, lpn_value r) {
    lpn_ctx *cx = cx_here();
    int kind = LPRT_NORMAL;
    void *value = NULL;
    if (r.cls == LPN_UNWIND) {
        if (cx->kind == LPN_RAISING) {
            lpn_value e = cx->error;
            int32_t site = cx->ntrace ? (int32_t)cx->trace[0].site : -1;
            cx->kind = 0;
            lpn_share(e);
            kind = LPRT_ERROR;
            value = box(e, site);
        } else if (s->killed) {
            cx->kind = 0;   /* the runtime ends it with the kill's reason */
            return;
        } else if (cx->kind == LPN_EXITING || cx->kind == LPN_SIGNALLED) {
            lpn_value v = cx->error;
            cx->kind = 0;
            kind = reason_kind(v, exit_site_of(v, s), &value);
        } else {
            cx->kind = 0;   /* a `^` from a method that has returned */
            lpn_raise("`^` returns from a method that has already returned");
            lpn_value e = cx->error;
            cx->kind = 0;
            lpn_share(e);
            kind = LPRT_ERROR;
            value = box(e, -1);
        }
    } else {
        lpn_drop(r);
    }
    report_unmatched(s);
    lprt_set_exit_reason(s->ref.a, kind, value);
}

static void actor_fiber(lprt_actor *self, void *ud) {
    nactor *s = ud;
    memset(&lpn_cx, 0, sizeof lpn_cx);
    lpn_depth = 0;
    lpn_reductions = 0;
    lpn_stack_floor_set(ACTOR_STACK);
    lpn_value blk = s->block;
    s->block = LPN_NIL_VALUE;
    int64_t nargs = ((lpn_block *)lpn_ptr(blk))->arity;
    lpn_value r = lpn_call_block(blk, nargs ? actor_value(self) : LPN_NIL_VALUE, nargs);
    s->returned = 1;
    ended(s, r);
    free(cx_here()->trace);
    memset(cx_here(), 0, sizeof lpn_cx);
}

typedef struct { lpn_value block; int32_t site; int hidden; } spawning;

static void state_init(lprt_actor *a, void *ud, void *arg) {
    nactor *s = ud;
    spawning *sp = arg;
    actor_ref_init(s, a);
    s->block = sp->block;
    s->exit_site = -1;
    s->wait_site = -1;
    s->spawn_site = sp->site;
    s->hidden = sp->hidden;
}

lpn_value lpn_actor_spawn(lpn_value blk, int64_t link, int64_t site) {
    if (blk.cls != LPN_BLOCK) {
        lpn_value d = lpn_describe(blk);
        lpn_value e = lpn_raise("Actor spawn: needs a block, not %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        return e;
    }
    uint32_t arity = ((lpn_block *)lpn_ptr(blk))->arity;
    if (arity > 1) {
        lpn_drop(blk);
        return lpn_raise("Actor spawn: takes a block with one parameter (the actor itself), not %u", arity);
    }
    nactor *me = self_state();
    lpn_share(blk);
    spawning sp = {blk, (int32_t)site, me->hidden};
    lprt_actor *a = lprt_create_fiber_with(lprt_runtime(me->ref.a), actor_fiber, sizeof(nactor), state_init, &sp,
                                           ACTOR_STACK);
    if (!a) {
        lpn_flush();
        fputs("lp: out of memory\n", stderr);
        exit(1);
    }
    lpn_value v = actor_value(a);
    if (link) lprt_link(me->ref.a, a);
    lprt_start(a);
    lprt_release(a);
    return v;
}

lpn_value lpn_actor_self(void) { return actor_value(lprt_self()); }

/* ---- sending, futures ------------------------------------------------------------------- */

static int resolve(future *u, lpn_value v) {
    pthread_mutex_lock(&u->mu);
    if (u->resolved) {
        pthread_mutex_unlock(&u->mu);
        lpn_drop(v);
        return 0;
    }
    lpn_share(v);
    u->value = v;
    u->resolved = 1;
    lprt_actor **w = u->waiters;
    size_t n = u->nw;
    u->waiters = NULL;
    u->nw = u->cw = 0;
    pthread_mutex_unlock(&u->mu);
    for (size_t i = 0; i < n; i++) {
        lpn_dup_obj(&u->f.h);
        lprt_send(w[i], (void *)((uintptr_t)u | T_WAKE));
        lprt_release(w[i]);
    }
    free(w);
    return 1;
}

/* `to ! msg` with `to` borrowed (the compiler passes a variable that lives on without a dup):
   answers msg. */
lpn_value lpn_actor_send_b(lpn_value to, lpn_value msg) {
    if (lpn_is_heap(msg)) {
        lpn_share(msg);
        lpn_dup_obj(lpn_ptr(msg));
    }
    if (ops_of(to) == &reply_ops) {
        resolve((future *)lpn_ptr(((fut_holder *)lpn_ptr(to))->fut), msg);
    } else {
        lprt_actor *a = actor_of(to);
        if (a) lprt_send(a, encode(msg));
        else lpn_drop(msg);
    }
    return msg;
}

/* `to ! msg`, consuming to. */
lpn_value lpn_actor_send(lpn_value to, lpn_value msg) {
    lpn_value r = lpn_actor_send_b(to, msg);
    lpn_drop(to);
    return r;
}

lpn_value lpn_actor_ask(lpn_value to, lpn_value msg) {
    int ri = lpn_is_heap(msg) && !lpn_is_foreign(lpn_ptr(msg)) ? field_index(msg.cls, "reply") : -1;
    if (ri < 0) {
        lpn_drop(to);
        lpn_value d = lpn_describe(msg);
        lpn_value e = lpn_raise("ask: needs an instance of a class with a `reply` field, not %s",
                                ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        return e;
    }
    future *u = future_new(actor_of(to));
    fut_holder *r = foreign_new(cls_actor, sizeof *r, &reply_ops);
    lpn_dup_obj(&u->f.h);
    r->fut = lpn_ref(u);
    lpn_inst *src = (lpn_inst *)lpn_ptr(msg);
    lpn_inst *copy = lpn_inst_new(msg.cls, src->nfields);
    for (uint64_t i = 0; i < src->nfields; i++) {
        copy->field[i] = (int)i == ri ? lpn_ref(r) : src->field[i];
        if ((int)i != ri) lpn_dup(copy->field[i]);
    }
    lpn_drop(msg);
    lpn_drop(lpn_actor_send(to, lpn_ref(copy)));
    return lpn_ref(u);
}

/* ---- waiting ------------------------------------------------------------------------- */

static int64_t deadline_of(lpn_value ms, const char *what, int *bad);
int64_t lpn_deadline_of(lpn_value ms, const char *what, int *bad) { return deadline_of(ms, what, bad); }

static int64_t deadline_of(lpn_value ms, const char *what, int *bad) {
    *bad = 0;
    double x;
    if (ms.cls == LPN_INT) x = (double)(int64_t)ms.bits;
    else if (ms.cls == LPN_FLOAT) x = lpn_f(ms);
    else {
        lpn_value d = lpn_describe(ms);
        lpn_raise("%s must be a number of milliseconds, not %s", what, ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        *bad = 1;
        return -1;
    }
    if (!(x > 0)) return lprt_deadline_ms(0);
    if (x > 4.6e18) return lprt_deadline_ms(INT64_MAX / 2);
    return lprt_deadline_ms((int64_t)x);
}

static int is_stale_down(nactor *s, uint64_t ref, int forget) {
    for (size_t i = 0; i < s->nstale; i++)
        if (s->stale[i] == ref) {
            if (forget) s->stale[i] = s->stale[--s->nstale];
            return 1;
        }
    return 0;
}

static void take_free(nactor *s, lprt_msg *m) {
    lprt_mbox_take(s->ref.a, m);
    lprt_msg_free(lprt_runtime(s->ref.a), m);
}

/* A Down / Exit entry becomes an ordinary message holding the LP instance, once (a Down's
   monitor is over then). */
static void as_user(nactor *s, lprt_msg *m) {
    if (m->kind == LPRT_MSG_USER) return;
    if (m->kind == LPRT_MSG_DOWN && m->actor) lpn_monitors_take(&s->mons, lprt_id(m->actor), m->ref);
    uint64_t cls = m->kind == LPRT_MSG_DOWN ? cls_down : cls_exit;
    lpn_inst *o = lpn_inst_new(cls, 2);
    o->field[0] = m->actor ? actor_value(m->actor) : LPN_NIL_VALUE;
    o->field[1] = reason_value(m->reason.kind, m->reason.value);
    if (m->reason.kind == LPRT_ERROR && m->reason.value) msg_release(m->reason.value, NULL);
    if (m->actor) lprt_release(m->actor);
    m->actor = NULL;
    m->reason = (lprt_reason){LPRT_NORMAL, NULL};
    lpn_share(lpn_ref(o));
    m->value = o;
    __atomic_store_n(&m->kind, LPRT_MSG_USER, __ATOMIC_RELEASE);   /* the observer peeks (lprt_mbox_peek_names) */
}

static int key_matches(const lpn_value *k, lpn_value v) {
    if (k->cls == LPN_CLASS) return (v.cls == k->bits && v.cls < lpn_prog.nclasses) || lpn_is_kind_of(v.cls, k->bits);
    return k->cls == v.cls && lpn_equal_b(*k, v);
}

static int check_receiver(lpn_value me, nactor *s) {
    if (actor_of(me) == s->ref.a) return 1;
    lpn_dup(me);
    lpn_value d = lpn_describe(me);
    lpn_raise("only an actor can receive its own messages; this is %s, not the running actor",
              ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return 0;
}

/* Selective receive: the oldest message some key matches (me and keys borrowed; none: any message).
   Answers the entry's index with the message in *out, -1 after the timeout, -2 when raising. */
int64_t lpn_receive(lpn_value me, lpn_value tmo, const lpn_value *keys, int64_t nkeys, int64_t has_tmo,
                    const char *what, int64_t site, lpn_value *out) {
    nactor *s = self_state();
    if (!check_receiver(me, s)) {
        lpn_drop(tmo);
        return -2;
    }
    int64_t deadline = -1;
    if (has_tmo) {
        int bad;
        deadline = deadline_of(tmo, "a receive timeout", &bad);
        lpn_drop(tmo);
        if (bad) return -2;
    }
    uint64_t cursor = 0;
    int timed_out = 0;
    for (;;) {
        lprt_msg *m = cursor ? lprt_mbox_after(s->ref.a, cursor) : lprt_mbox_first(s->ref.a);
        while (m) {
            cursor = m->seq;
            if ((m->kind == LPRT_MSG_USER && TAG(m->value) == T_WAKE) ||
                (m->kind == LPRT_MSG_DOWN && is_stale_down(s, m->ref, 1))) {
                lprt_msg *next = lprt_mbox_next(s->ref.a, m);
                take_free(s, m);
                m = next;
                continue;
            }
            as_user(s, m);
            lpn_value v = view(m->value);
            for (int64_t i = 0; i < (nkeys ? nkeys : 1); i++) {
                if (nkeys && !key_matches(&keys[i], v)) continue;
                lpn_dup(v);
                *out = v;
                take_free(s, m);
                return i;
            }
            m = lprt_mbox_next(s->ref.a, m);
        }
        if (deadline >= 0 && (timed_out || lprt_now() >= deadline)) return -1;
        s->wait_what = what;
        s->wait_site = (int32_t)site;
        s->wait_asked = 0;
        lprt_wait_receive(s->ref.a, cursor, deadline);
        int why = park(s);
        if (why == LPRT_WAKE_KILLED) return -2;
        timed_out = why == LPRT_WAKE_TIMEOUT;
    }
}

lpn_value lpn_actor_sleep(lpn_value ms) {
    int bad;
    int64_t deadline = deadline_of(ms, "Actor sleep:", &bad);
    lpn_drop(ms);
    if (bad) return LPN_UNWIND_VALUE;
    nactor *s = self_state();
    lprt_wait_sleep(s->ref.a, deadline);
    s->wait_what = "in sleep:";
    return park(s) == LPRT_WAKE_KILLED ? LPN_UNWIND_VALUE : LPN_NIL_VALUE;
}

static void end_wait(nactor *s, future *u, uint64_t mref, int took_down) {
    pthread_mutex_lock(&u->mu);
    for (size_t i = 0; i < u->nw; i++)
        if (u->waiters[i] == s->ref.a) {
            lprt_release(u->waiters[i]);
            u->waiters[i] = u->waiters[--u->nw];
            break;
        }
    pthread_mutex_unlock(&u->mu);
    if (mref && !took_down && !lprt_demonitor(u->asked, mref)) {
        if (s->nstale == s->cstale) {
            s->cstale = s->cstale ? 2 * s->cstale : 8;
            s->stale = realloc(s->stale, s->cstale * sizeof *s->stale);
        }
        s->stale[s->nstale++] = mref;
    }
}

static lpn_value resolved_value(future *u) {
    lpn_value v = u->value;
    lpn_dup(v);
    return v;
}

/* `fut await` (has_tmo 0) / `fut await: ms`; site: the send (deadlock report). */
lpn_value lpn_future_await(lpn_value fv, lpn_value ms, int64_t has_tmo, int64_t site) {
    future *u = (future *)lpn_ptr(fv);
    nactor *s = self_state();
    int64_t deadline = -1;
    if (has_tmo) {
        int bad;
        deadline = deadline_of(ms, "an await: timeout", &bad);
        if (bad) {
            lpn_drop(ms);
            lpn_drop(fv);
            return LPN_UNWIND_VALUE;
        }
    }
    uint64_t cursor = lprt_mbox_mark(s->ref.a);
    pthread_mutex_lock(&u->mu);
    if (u->resolved) {
        pthread_mutex_unlock(&u->mu);
        lpn_value v = resolved_value(u);
        lpn_drop(ms);
        lpn_drop(fv);
        return v;
    }
    if (u->nw == u->cw) {
        u->cw = u->cw ? 2 * u->cw : 4;
        u->waiters = realloc(u->waiters, u->cw * sizeof *u->waiters);
    }
    lprt_retain(s->ref.a);
    u->waiters[u->nw++] = s->ref.a;
    pthread_mutex_unlock(&u->mu);
    uint64_t mref = u->asked ? lprt_monitor(s->ref.a, u->asked) : 0;
    int timed_out = 0;
    lpn_value result = LPN_UNWIND_VALUE;
    for (;;) {
        lprt_msg *m = lprt_mbox_after(s->ref.a, cursor);
        int done = 0;
        while (m) {
            lprt_msg *next = lprt_mbox_next(s->ref.a, m);
            cursor = m->seq;
            if (m->kind == LPRT_MSG_USER && TAG(m->value) == T_WAKE) {
                int ours = UNTAG(m->value) == (void *)u;
                take_free(s, m);
                if (ours) {
                    end_wait(s, u, mref, 0);
                    result = resolved_value(u);
                    done = 1;
                    break;
                }
            } else if (m->kind == LPRT_MSG_DOWN && mref && m->ref == mref) {
                int kind = m->reason.kind;
                char why[1600];
                describe_reason(why, sizeof why, kind, m->reason.value);
                take_free(s, m);
                end_wait(s, u, mref, 1);
                if (u->resolved) result = resolved_value(u);
                else
                    lpn_raise("the actor asked (Actor<%llu>) died before replying: %s",
                              (unsigned long long)u->asked_id, why);
                done = 1;
                break;
            } else if (m->kind == LPRT_MSG_DOWN && is_stale_down(s, m->ref, 1)) {
                take_free(s, m);
            }
            m = next;
        }
        if (done) break;
        if (deadline >= 0 && (timed_out || lprt_now() >= deadline)) {
            end_wait(s, u, mref, 0);
            if (u->resolved) result = resolved_value(u);
            else {
                int none = ms.cls == LPN_INT ? (int64_t)ms.bits <= 0 : !(lpn_f(ms) > 0);   /* a negative timeout is 0 */
                lpn_value p = lpn_print_string(none ? (lpn_drop(ms), lpn_int(0)) : ms);
                ms = LPN_NIL_VALUE;
                lpn_raise("await: timed out after %s ms", p.cls == LPN_STRING ? ((lpn_str *)lpn_ptr(p))->data : "?");
                lpn_drop(p);
            }
            break;
        }
        s->wait_what = has_tmo ? "in await:" : (u->asked ? "in await" : "in await for a future no one has resolved");
        s->wait_site = (int32_t)site;
        s->wait_asked = u->asked_id;
        lprt_wait_receive(s->ref.a, cursor, deadline);
        int why = park(s);
        if (why == LPRT_WAKE_KILLED) {
            end_wait(s, u, mref, 0);
            break;
        }
        timed_out = why == LPRT_WAKE_TIMEOUT;
    }
    lpn_drop(ms);
    lpn_drop(fv);
    return result;
}

lpn_value lpn_future_is_resolved(lpn_value fv) {
    future *u = (future *)lpn_ptr(fv);
    pthread_mutex_lock(&u->mu);
    int r = u->resolved;
    pthread_mutex_unlock(&u->mu);
    lpn_drop(fv);
    return lpn_bool(r);
}

lpn_value lpn_promise_new(void) {
    fut_holder *p = foreign_new(cls_promise, sizeof *p, &promise_ops);
    p->fut = lpn_ref(future_new(NULL));
    return lpn_ref(p);
}

lpn_value lpn_promise_future(lpn_value pv) {
    lpn_value f = ((fut_holder *)lpn_ptr(pv))->fut;
    lpn_dup(f);
    lpn_drop(pv);
    return f;
}

lpn_value lpn_promise_resolve(lpn_value pv, lpn_value v) {
    future *u = (future *)lpn_ptr(((fut_holder *)lpn_ptr(pv))->fut);
    lpn_dup(v);
    int ok = resolve(u, v);
    lpn_drop(pv);
    if (!ok) {
        lpn_drop(v);
        return lpn_raise("this promise is already resolved");
    }
    return v;
}

/* ---- links, monitors, exits ------------------------------------------------------------ */

/* The two actors of a link / monitor send are consumed; answers r. */
static lpn_value consumed(lpn_value a, lpn_value b, lpn_value r) {
    lpn_drop(a);
    lpn_drop(b);
    return r;
}

static lpn_value not_self(lpn_value a, lpn_value b, const char *text) {
    return consumed(a, b, lpn_raise("%s", text));
}

lpn_value lpn_actor_link(lpn_value a, lpn_value b) {
    nactor *s = self_state();
    if (actor_of(a) != s->ref.a)
        return not_self(a, b, "linkTo: is sent by an actor to link itself: `Actor self linkTo: other`");
    lprt_actor *t = actor_of(b);
    lpn_value r = LPN_NIL_VALUE;
    if (t && lprt_link(s->ref.a, t) == LPRT_EDEAD) {
        void *value = NULL;
        int kind = lprt_dead_reason(t, &value);
        char why[1600];
        if (kind < 0) snprintf(why, sizeof why, "dead");
        else describe_reason(why, sizeof why, kind, value);
        r = lpn_raise("cannot link to Actor<%llu>: it has already ended (%s)", (unsigned long long)lprt_id(t), why);
    }
    return consumed(a, b, r);
}

lpn_value lpn_actor_unlink(lpn_value a, lpn_value b) {
    nactor *s = self_state();
    lprt_actor *t = actor_of(b);
    if (t) lprt_unlink(s->ref.a, t);
    return consumed(a, b, LPN_NIL_VALUE);
}

lpn_value lpn_actor_monitor(lpn_value a, lpn_value b) {
    nactor *s = self_state();
    if (actor_of(a) != s->ref.a)
        return not_self(a, b, "monitor: is sent by the watching actor: `Actor self monitor: other`");
    lprt_actor *t = actor_of(b);
    if (t) {
        uint64_t ref = lprt_monitor(s->ref.a, t);
        lpn_monitors_put(&s->mons, lprt_id(t), ref);
    }
    return consumed(a, b, LPN_NIL_VALUE);
}

lpn_value lpn_actor_demonitor(lpn_value a, lpn_value b) {
    nactor *s = self_state();
    lprt_actor *t = actor_of(b);
    if (t) {
        uint64_t ref = lpn_monitors_take(&s->mons, lprt_id(t), 0);
        if (ref) lprt_demonitor(t, ref);
    }
    return consumed(a, b, LPN_NIL_VALUE);
}

/* `Actor exit: reason`: unwinds (running ensure: blocks) and ends the actor with reason. */
lpn_value lpn_actor_exit_self(lpn_value reason, int64_t site) {
    nactor *s = self_state();
    /* an Error the actor caught is reported where it was raised, as lp run reports it */
    int caught = lpn_is_heap(reason) && reason.bits == lpn_cx.caught && lpn_cx.caught_site >= 0;
    s->exit_site = (int32_t)(caught ? lpn_cx.caught_site : site);
    lpn_raise_value(LPN_NIL_VALUE);   /* clears what was unwinding */
    lpn_cx.kind = LPN_EXITING;
    lpn_cx.error = reason;
    return LPN_UNWIND_VALUE;
}

/* `target exit: reason`: an exit signal; to oneself it takes effect at once. Answers target. */
lpn_value lpn_actor_exit(lpn_value target, lpn_value reason, int64_t site) {
    nactor *s = self_state();
    lprt_actor *t = actor_of(target);
    if (!t) {
        lpn_drop(reason);
        return target;
    }
    void *value;
    lpn_dup(reason);
    int kind = reason_kind(reason, -1, &value);
    if (t == s->ref.a && (kind == LPRT_KILLED || !lprt_traps_exits(s->ref.a))) {
        /* ends it where it stands: no ensure: block runs (docs/language.md "Actors") */
        if (value) msg_release(value, NULL);
        lpn_drop(target);
        s->exit_site = (int32_t)site;
        return lpn_signalled(reason);
    }
    lpn_drop(reason);
    lprt_exit(s->ref.a, t, kind, value);
    return target;
}

lpn_value lpn_actor_trap_exits(lpn_value on) {
    lprt_trap_exits(self_state()->ref.a, on.cls == LPN_BOOL && on.bits);
    return LPN_NIL_VALUE;
}

lpn_value lpn_actor_id(lpn_value a) {
    actor_ref *r = (actor_ref *)lpn_ptr(a);
    int64_t id = ops_of(a) == &actor_ops ? (int64_t)r->id : 0;
    lpn_drop(a);
    return lpn_int(id);
}

lpn_value lpn_actor_is_alive(lpn_value a) {
    lprt_actor *t = actor_of(a);
    void *v;
    int alive = t && lprt_dead_reason(t, &v) < 0;
    lpn_drop(a);
    return lpn_bool(alive);
}

/* 0: millisecondClock, 1: microsecondClock (the runtime's monotonic clock); 2: unixMillis: the
   system's clock when first asked, then advancing with the runtime's (virtual under a seed), as lp run */
static _Atomic int64_t unix_base;
static _Atomic int unix_base_set;

lpn_value lpn_clock(int64_t which) {
    if (which == 2) {
        int64_t now = (int64_t)(lprt_now() / 1000000);
        if (!atomic_load(&unix_base_set)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            int64_t unset = 0;
            atomic_compare_exchange_strong(&unix_base, &unset, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - now);
            atomic_store(&unix_base_set, 1);
        }
        return lpn_int(atomic_load(&unix_base) + now);
    }
    return lpn_int(lprt_now() / (which ? 1000 : 1000000));
}

/* ---- the program ---------------------------------------------------------------------- */

static lpn_value (*program_main)(void);
static size_t main_stack_bytes;

__attribute__((noinline)) void lpn_stack_floor_set(size_t stack_bytes) {
    lpn_stack_floor = (uint64_t)(uintptr_t)__builtin_frame_address(0) - stack_bytes + (size_t)LPN_STACK_MARGIN_KIB * 1024;
}

/* Deep stacks (docs/native.md "Stacks"): a spawned actor starts on its 256 KiB fiber stack; a call
   that finds it full (an LP function's cold path, compiler/deep.py, or C code walking a value:
   lpn_stack_low) goes on on the actor's deep stack, reserved as large as the main actor's on first
   need. */
int lpn_stack_grow(void) {
    nactor *s = self_state();
    if (!s || s->is_main || lprt_on_deep_stack(s->ref.a)) return 0;
    return lprt_deep_reserve(s->ref.a, main_stack_bytes) == 0;
}

int lpn_stack_large(void) {
    nactor *s = self_state();
    return !s || s->is_main || lprt_on_deep_stack(s->ref.a);
}

size_t lpn_stack_bytes(void) { return main_stack_bytes; }

typedef struct { void (*fn)(void *); void *arg; } deep_job;

static void deep_run(void *p) {
    deep_job *j = p;
    lpn_stack_floor_set(main_stack_bytes);
    j->fn(j->arg);
}

void lpn_deep_call(void (*fn)(void *), void *arg) {
    uint64_t floor = *floor_here();
    deep_job j = {fn, arg};
    lprt_deep_call(lprt_self(), deep_run, &j);
    *floor_here() = floor;   /* maybe on another thread: fn may have switched */
}

int lpn_deep(void (*fn)(void *), void *arg) {
    if (!lpn_stack_grow()) return 0;
    lpn_deep_call(fn, arg);
    return 1;
}
static lpn_value main_result;

static void main_fiber(lprt_actor *self, void *ud) {
    nactor *s = ud;
    (void)self;
    memset(&lpn_cx, 0, sizeof lpn_cx);
    lpn_depth = 0;
    lpn_reductions = 0;
    lpn_stack_floor_set(main_stack_bytes);
    main_result = program_main();
    lpn_ctx *cx = cx_here();
    main_cx = *cx;   /* reported after the run, on the thread that started it */
    if (main_result.cls == LPN_UNWIND) {
        if (cx->kind == LPN_RAISING) {
            lpn_value e = cx->error;
            lpn_dup(e);
            lpn_share(e);
            lprt_set_exit_reason(s->ref.a, LPRT_ERROR, box(e, cx->ntrace ? (int32_t)cx->trace[0].site : -1));
        } else if (!s->killed && (cx->kind == LPN_EXITING || cx->kind == LPN_SIGNALLED)) {
            void *value;
            lpn_value v = cx->error;
            lpn_dup(v);
            int kind = reason_kind(v, exit_site_of(v, s), &value);
            lprt_set_exit_reason(s->ref.a, kind, value);
        }
    } else {
        lpn_drop(main_result);
    }
    lpn_flush();
    main_done = 1;
    memset(cx, 0, sizeof lpn_cx);
}

static void init_classes(void) {
    sym_normal = symbol("normal");
    sym_killed = symbol("killed");
    for (uint64_t i = 0; i < lpn_prog.nclasses; i++) {
        const char *n = lpn_prog.class_names[i];
        if (!n) continue;
        if (!strcmp(n, "Actor")) cls_actor = i;
        else if (!strcmp(n, "Future")) cls_future = i;
        else if (!strcmp(n, "Promise")) cls_promise = i;
        else if (!strcmp(n, "Down")) cls_down = i;
        else if (!strcmp(n, "Exit")) cls_exit = i;
    }
}

int lpn_run_program(lpn_value (*fn)(void), int domains, int quiet_flag, size_t main_stack, const lpn_sim *sim) {
    init_classes();
    quiet = quiet_flag;
    program_main = fn;
    main_stack_bytes = main_stack;
    lprt_config cfg = {.domains = domains, .budget = 0, .fiber_stack = 0, .deterministic = sim->deterministic,
                       .seed = sim->seed, .faults = sim->faults, .max_faults = sim->max_faults,
                       .fault_rate = sim->fault_rate, .unwind_killed_fibers = 1, .observe = lpn_observing};
    lprt_hooks hooks = {.retain = msg_retain, .release = msg_release, .on_exit = on_exit_hook,
                        .unobserved = unobserved, .deadlock = deadlocked};
    lprt *rt = lprt_new(&cfg, &hooks);
    if (!rt) {
        fputs("lp: cannot start the runtime\n", stderr);
        return 2;
    }
    nactor *s = &main_state;
    s->exit_site = s->wait_site = s->spawn_site = -1;
    s->is_main = 1;
    lprt_actor *m = lprt_create_fiber(rt, main_fiber, s, main_stack);
    if (!m) {
        fprintf(stderr, "lp: cannot reserve %zu MiB of stack for the main actor (lower --stack-limit)\n",
                main_stack >> 20);
        return 2;
    }
    s->ref.a = m;
    s->ref.id = lprt_id(m);
    s->block = LPN_NIL_VALUE;
    actor_ref_init(s, m);
    program_rt = rt;
    int r = lprt_run(rt, m);
    lpn_flush();
    int status = 0;
    if (r == LPRT_EDEADLOCK) {
        status = 1;
    } else if (main_result.cls == LPN_UNWIND && main_cx.kind != LPN_EXITING && main_cx.kind != LPN_SIGNALLED) {
        lpn_cx = main_cx;
        lpn_report_uncaught();
        status = 1;
    } else {
        void *value = NULL;
        int kind = lprt_dead_reason(m, &value);
        if (kind > LPRT_NORMAL) {
            char why[1600], where[300] = "", line[2000];
            describe_reason(why, sizeof why, kind, value);
            int32_t site = site_of(value);
            if (main_cx.kind == LPN_EXITING || (main_cx.kind == LPN_SIGNALLED && !s->killed))
                site = s->exit_site;   /* the `exit:` that ended it */
            if (site >= 0) snprintf(where, sizeof where, " at %s", lpn_prog.sites[site].where);
            snprintf(line, sizeof line, "the main actor ended abnormally (%s)%s", why, where);
            report(line);
            status = 1;
        }
    }
    fflush(stderr);
    lprt_release(m);
    lprt_free(rt);
    return status;
}

/* ---- what the observer reads (observe.c) ----------------------------------------------- */

void lpn_observe_hide_self(void) {
    nactor *s = self_state();
    if (s) __atomic_store_n(&s->hidden, 1, __ATOMIC_RELAXED);
    lprt_set_background(lprt_self());   /* the observer's actors leave the program's domains as they are */
}

typedef struct { lpn_observed *out; size_t cap, n; } observing;

static void observe_one(lprt_actor *a, void *arg) {
    observing *o = arg;
    nactor *s = listed(a);
    if (!s) return;
    if (o->n < o->cap)
        o->out[o->n] = (lpn_observed){s->ref.id, s->is_main ? -2 : s->spawn_site, __atomic_load_n(&s->hidden, __ATOMIC_RELAXED)};
    o->n++;
}

size_t lpn_observe_actors(lpn_observed *out, size_t cap) {
    observing o = {out, cap, 0};
    lprt_each_actor(program_rt, observe_one, &o);
    return o.n;
}

/* The class of a waiting message (never its contents); called under the actor's lock. */
const char *lpn_observe_message_class(void *p) {
    uint64_t cls;
    switch (TAG(p)) {
    case T_HEAP: cls = ((lpn_obj *)p)->cls; break;
    case T_WAKE: return "a reply (ask:)";
    default: cls = view(p).cls;
    }
    const char *n = cls < lpn_prog.nclasses ? lpn_prog.class_names[cls] : NULL;
    return n ? n : "Class";
}

/* An exit reason's `isNormal` ('n'), `isKilled` ('k'), `isError` ('e'), `error` ('E'):
   reasons are #normal, #killed or the Error that ended the actor. */
lpn_value lpn_reason_op(lpn_value v, int64_t op) {
    int is_sym = v.cls == LPN_SYMBOL;
    lpn_value r;
    if (op == 'E') return is_sym ? lpn_maybe_new(0, LPN_NIL_VALUE) : lpn_maybe_new(1, v);
    if (op == 'e') r = lpn_bool(!is_sym);
    else r = lpn_bool(is_sym && v.bits == (op == 'n' ? sym_normal : sym_killed).bits);
    lpn_drop(v);
    return r;
}
