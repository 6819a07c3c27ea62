/* fiber.c — fiber actors: mmap'd stacks with a guard page, switching, blocking calls.
 *
 * A fiber runs its C entry on its own stack. The domain switches into it with
 * lprt__ctx_switch and the fiber switches back (to whichever domain resumed
 * it — fibers migrate when stolen) when it blocks, yields or returns. Stacks
 * are PROT_NONE-guarded at the low end and recycled through a small
 * per-domain cache. A fiber killed while suspended is either resumed once to
 * unwind its frames (lprt_config.unwind_killed_fibers: lprt__fiber_unwind) or
 * never resumed, its stack released as it is (engines free resources in on_exit).
 * A fiber may also run part of its work on a deep stack of its own (lprt_deep_call: native
 * binaries recurse there once the first stack is full), mapped on first need and kept to its end.
 * Fiber code must not keep the address of a thread-local (errno included)
 * across a blocking call, since it may resume on another thread.           */
#include "lprt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void lprt__ctx_switch(void **save_sp, void *new_sp);
void lprt__call_on_stack(void *arg, void (*fn)(void *), void *top);
void lprt__fiber_trampoline(void);

#ifdef LPRT_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif
#ifdef LPRT_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#endif

static size_t page_size(void) {
    static size_t ps;
    if (!ps) ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

/* Guard pages split the mapping, and the kernel allows ~65k mappings per
   process (vm.max_map_count): past LPRT_GUARDED_MAX live guarded stacks, new
   stacks are mapped without a guard page, so the kernel merges neighbours and
   hundreds of thousands of blocked fibers fit. The low bit of a stack pointer
   as stored in actors and caches records whether it has a guard. */
#ifndef LPRT_GUARDED_MAX
#define LPRT_GUARDED_MAX 16384
#endif
static _Atomic long guarded_live;
#define STACK_GUARDED(p) ((uintptr_t)(p) & 1)
#define STACK_BASE(p) ((char *)((uintptr_t)(p) & ~(uintptr_t)1))

/* The pool (lprt__stack_pool): slots of POOL_CHUNK stacks mapped at once, carved in order; a slot
   gets its guard page when carved (while fewer than LPRT_GUARDED_MAX guards exist) and keeps it. */
enum { POOL_CHUNK = 64 };
#define POOL_MAX_STACK ((size_t)1 << 20) /* larger stacks (a main actor's) are mapped one by one */

void lprt__stack_pool_init(lprt *rt) { pthread_mutex_init(&rt->pool.mu, NULL); }

void lprt__stack_pool_free(lprt *rt) {
    lprt__stack_pool *p = &rt->pool;
    for (size_t i = 0; i < p->nchunks; i++) munmap(p->chunks[i], POOL_CHUNK * (p->size + page_size()));
    atomic_fetch_sub(&guarded_live, p->guarded);
    free(p->chunks);
    free(p->free);
    pthread_mutex_destroy(&p->mu);
}

static void *pool_carve(lprt *rt, lprt__stack_pool *p) {
    size_t ps = page_size(), slot = p->size + ps;
    if (!p->left) {
        if (p->nchunks == p->cchunks) {
            size_t c = p->cchunks ? p->cchunks * 2 : 16;
            void **n = realloc(p->chunks, c * sizeof *n);
            if (!n) return NULL;
            p->chunks = n;
            p->cchunks = c;
        }
        void *m = mmap(NULL, POOL_CHUNK * slot, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (m == MAP_FAILED) return NULL;
        atomic_fetch_add_explicit(&rt->st_stack_maps, 1, memory_order_relaxed);
        p->chunks[p->nchunks++] = m;
        p->next = m;
        p->left = POOL_CHUNK;
    }
    char *s = p->next;
    p->next += slot;
    p->left--;
    if (atomic_fetch_add(&guarded_live, 1) < LPRT_GUARDED_MAX && mprotect(s, ps, PROT_NONE) == 0) {
        p->guarded++;
        return (void *)((uintptr_t)s | 1);
    }
    atomic_fetch_sub(&guarded_live, 1);
    return s;
}

static void *pool_take(lprt *rt, size_t size) {
    lprt__stack_pool *p = &rt->pool;
    void *s = NULL;
    pthread_mutex_lock(&p->mu);
    if (!p->size && size <= POOL_MAX_STACK) p->size = size;
    if (p->size == size) s = p->nfree ? p->free[--p->nfree] : pool_carve(rt, p);
    else s = (void *)-1;   /* another size: a mapping of its own */
    pthread_mutex_unlock(&p->mu);
    return s;
}

/* A pool slot's pages go back to the system; the slot waits for reuse. Answers 0 if not a slot. */
static int pool_give(lprt *rt, void *tagged, size_t size) {
    lprt__stack_pool *p = &rt->pool;
    if (size != p->size) return 0;   /* set before any slot of this size existed, never changed */
    madvise(STACK_BASE(tagged) + page_size(), size, MADV_DONTNEED);
    pthread_mutex_lock(&p->mu);
    if (p->nfree == p->cfree) {
        size_t c = p->cfree ? p->cfree * 2 : 256;
        void **n = realloc(p->free, c * sizeof *n);
        if (!n) abort();
        p->free = n;
        p->cfree = c;
    }
    p->free[p->nfree++] = tagged;
    pthread_mutex_unlock(&p->mu);
    return 1;
}

/* A stack of its own: `size` bytes above a guard page (while guards are few), tagged. */
static void *stack_map(lprt *rt, size_t size) {
    size_t ps = page_size();
    void *p = mmap(NULL, size + ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) return NULL;
    atomic_fetch_add_explicit(&rt->st_stack_maps, 1, memory_order_relaxed);
    if (atomic_fetch_add(&guarded_live, 1) < LPRT_GUARDED_MAX && mprotect(p, ps, PROT_NONE) == 0)
        return (void *)((uintptr_t)p | 1);
    atomic_fetch_sub(&guarded_live, 1);
    return p;
}

static void *stack_alloc(lprt__domain *d, lprt *rt, size_t size) {
    if (d && d->stack_cache_n > 0 && d->stack_cache_size == size) return d->stack_cache[--d->stack_cache_n];
    void *slot = pool_take(rt, size);
    return slot != (void *)-1 ? slot : stack_map(rt, size);
}

static void stack_munmap(void *tagged, size_t size) {
    if (STACK_GUARDED(tagged)) atomic_fetch_sub(&guarded_live, 1);
    munmap(STACK_BASE(tagged), size + page_size());
}

static void stack_unmap(lprt *rt, void *tagged, size_t size) {
    if (!pool_give(rt, tagged, size)) stack_munmap(tagged, size);
}

/* A fiber killed while suspended leaves ASan redzones on its stack. */
static void stack_unpoison(void *base, size_t size) {
#ifdef LPRT_ASAN
    __asan_unpoison_memory_region(STACK_BASE(base) + page_size(), size);
#else
    (void)base;
    (void)size;
#endif
}

static char *stack_top(lprt_actor *a) { return STACK_BASE(a->stack_base) + page_size() + a->stack_size; }

/* A fiber's deep stack (lprt_deep_reserve), tagged as stack_base, or NULL: kept in the top word of
   its first stack, which no frame touches (stack_setup's first frame ends 16 bytes below the
   top), so that an actor holds nothing more for it; while the fiber is parked, that word is the
   last of parked_copy. */
static void **deep_word(lprt_actor *a) {
    if (a->parked_copy) return (void **)((char *)a->parked_copy + a->parked_len - sizeof(void *));
    return (void **)(stack_top(a) - sizeof(void *));
}

void lprt__stack_cache_trim(lprt__domain *d, int keep) {
    while (d->stack_cache_n > keep) stack_unmap(d->rt, d->stack_cache[--d->stack_cache_n], d->stack_cache_size);
}

void lprt__stack_cache_free(lprt__domain *d) { lprt__stack_cache_trim(d, 0); }

static void fiber_main(lprt_actor *a);

int lprt__fiber_init(lprt_actor *a, size_t stack_size) {
    size_t ps = page_size();
    stack_size = (stack_size + ps - 1) & ~(ps - 1);
    if (stack_size < 4 * ps) stack_size = 4 * ps;
    a->stack_size = stack_size;
    a->stack_base = NULL; /* allocated when it first runs: queued fibers cost no stack */
    return 0;
}

static int stack_setup(lprt__domain *d, lprt_actor *a) {
    void *base = stack_alloc(d, a->rt, a->stack_size);
    if (!base) return -1;
    atomic_fetch_add_explicit(&a->rt->live_stacks, 1, memory_order_relaxed);
    a->stack_base = base;
    uintptr_t top = ((uintptr_t)STACK_BASE(base) + page_size() + a->stack_size) & ~(uintptr_t)15;
    ((void **)top)[-1] = NULL;                  /* no deep stack (deep_word) */
    void **sp = (void **)(top - 72);
    sp[0] = 0;                                  /* r15 */
    sp[1] = 0;                                  /* r14 */
    sp[2] = (void *)fiber_main;                 /* r13 */
    sp[3] = a;                                  /* r12 */
    sp[4] = 0;                                  /* rbx */
    sp[5] = 0;                                  /* rbp */
    sp[6] = (void *)lprt__fiber_trampoline;     /* return address */
    a->fiber_sp = sp;
#ifdef LPRT_TSAN
    a->tsan_fiber = __tsan_create_fiber(0);
#endif
    return 0;
}

void lprt__fiber_free(lprt__domain *d, lprt_actor *a) {
    void *deep = a->stack_base ? *deep_word(a) : NULL;
    if (deep) {
        stack_unpoison(deep, a->rt->deep_size);
        stack_munmap(deep, a->rt->deep_size);
        a->on_deep = false;
    }
    free(a->parked_copy);
    a->parked_copy = NULL;
    if (!a->stack_base) return;
    atomic_fetch_sub_explicit(&a->rt->live_stacks, 1, memory_order_relaxed);
#ifdef LPRT_TSAN
    __tsan_destroy_fiber(a->tsan_fiber);
    a->tsan_fiber = NULL;
#endif
    stack_unpoison(a->stack_base, a->stack_size);
    if (d && (d->stack_cache_n == 0 || d->stack_cache_size == a->stack_size) &&
        d->stack_cache_n < (int)(sizeof d->stack_cache / sizeof d->stack_cache[0])) {
        d->stack_cache_size = a->stack_size;
        d->stack_cache[d->stack_cache_n++] = a->stack_base;
    } else {
        stack_unmap(a->rt, a->stack_base, a->stack_size);
    }
    a->stack_base = NULL;
}

/* fiber -> domain. `final`: the fiber never runs again. */
static void switch_out(lprt_actor *a, int code, int final) {
    lprt__domain *d = a->home;
    a->fiber_code = code;
#ifdef LPRT_TSAN
    __tsan_switch_to_fiber(d->tsan_sched, 0);
#endif
#ifdef LPRT_ASAN
    __sanitizer_start_switch_fiber(final ? NULL : &a->asan_fake, d->asan_bottom, d->asan_size);
#endif
    (void)final;
    lprt__ctx_switch(&a->fiber_sp, d->sched_sp);
#ifdef LPRT_ASAN
    /* resumed, maybe by another domain: learn that domain's stack */
    lprt__domain *nd = a->home;
    __sanitizer_finish_switch_fiber(a->asan_fake, &nd->asan_bottom, &nd->asan_size);
#endif
}

static void fiber_main(lprt_actor *a) {
#ifdef LPRT_ASAN
    __sanitizer_finish_switch_fiber(NULL, &a->home->asan_bottom, &a->home->asan_size);
#endif
    a->fiber_fn(a, a->ud);
    switch_out(a, LPRT_DONE, 1);
    abort();
}

/* Parked stacks. A blocked fiber keeps only the bytes its frames use, and its stack's pages go
   back to the kernel (the mapping stays, so every pointer into the stack is still valid when the
   bytes are copied back before it resumes). It costs a copy and a madvise per wait, so it is done
   only when many stacks are live: past PARK_AFTER, where a touched page per blocked actor is
   what dominates memory. Not under the sanitizers, which track the stack themselves. */
#ifndef PARK_AFTER
#define PARK_AFTER 10000
#endif

void lprt__fiber_park(lprt_actor *a) {
#if defined(LPRT_ASAN) || defined(LPRT_TSAN)
    (void)a;
#else
    if (!a->stack_base || a->parked_copy || a->on_deep ||
        atomic_load_explicit(&a->rt->live_stacks, memory_order_relaxed) <= PARK_AFTER)
        return;
    char *sp = a->fiber_sp, *top = stack_top(a);
    size_t len = (size_t)(top - sp);
    void *copy = malloc(len);
    if (!copy) return;
    memcpy(copy, sp, len);
    char *low = (char *)((uintptr_t)sp & ~(uintptr_t)(page_size() - 1));
    if (madvise(low, (size_t)(top - low), MADV_DONTNEED) != 0) {
        free(copy);
        return;
    }
    a->parked_copy = copy;
    a->parked_len = len;
#endif
}

static void unpark(lprt_actor *a) {
    if (!a->parked_copy) return;
    memcpy(stack_top(a) - a->parked_len, a->parked_copy, a->parked_len);
    free(a->parked_copy);
    a->parked_copy = NULL;
}

/* domain -> fiber; returns when it blocks, yields or ends */
int lprt__fiber_resume(lprt__domain *d, lprt_actor *a) {
    if (!a->stack_base && stack_setup(d, a) != 0) {
        fprintf(stderr, "lprt: cannot allocate a fiber stack for actor %llu (memory or vm.max_map_count)\n",
                (unsigned long long)a->id);
        lprt_set_exit_reason(a, LPRT_KILLED, NULL);
        return LPRT_DONE;
    }
    unpark(a);
    void *fake = NULL;
    (void)fake;
#ifdef LPRT_ASAN
    void *on = a->on_deep ? *deep_word(a) : a->stack_base;
    __sanitizer_start_switch_fiber(&fake, STACK_BASE(on) + page_size(), a->on_deep ? a->rt->deep_size : a->stack_size);
#endif
#ifdef LPRT_TSAN
    __tsan_switch_to_fiber(a->tsan_fiber, 0);
#endif
    lprt__ctx_switch(&d->sched_sp, a->fiber_sp);
#ifdef LPRT_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    return a->fiber_code;
}

int lprt_suspend(lprt_actor *self) {
    if (self->unwinding) return LPRT_WAKE_KILLED;
    switch_out(self, LPRT_BLOCK, 0);
    return self->wake_reason;
}

void lprt_yield(lprt_actor *self) {
    if (!self->unwinding) switch_out(self, LPRT_YIELD, 0);
}

/* A killed fiber that has run is resumed once to unwind (lprt_config.unwind_killed_fibers):
   its pending switch answers LPRT_WAKE_KILLED and it runs until its entry returns. */
void lprt__fiber_unwind(lprt__domain *d, lprt_actor *a) {
    if (!a->rt->unwind_killed_fibers || !a->stack_base || a->unwinding) return;
    a->unwinding = true;
    a->wake_reason = LPRT_WAKE_KILLED;
    lprt_actor *was = lprt__cur_actor;
    lprt__cur_actor = a;
    int r = lprt__fiber_resume(d, a);
    lprt__cur_actor = was;
    if (r != LPRT_DONE) {
        fprintf(stderr, "lprt: actor %llu switched out while unwinding after a kill\n", (unsigned long long)a->id);
        abort();
    }
    lprt__reason_release(a->rt, a->own_reason);
    a->own_reason = (lprt_reason){LPRT_NORMAL, NULL};
}

lprt_msg *lprt_receive(lprt_actor *self, int64_t deadline) {
    for (;;) {
        lprt_msg *m = lprt_mbox_first(self);
        if (m) {
            lprt_mbox_take(self, m);
            return m;
        }
        lprt_wait_receive(self, 0, deadline);
        if (lprt_suspend(self) == LPRT_WAKE_TIMEOUT) {
            m = lprt_mbox_first(self);
            if (m) lprt_mbox_take(self, m);
            return m;
        }
    }
}

void lprt_sleep_ms(lprt_actor *self, int64_t ms) {
    lprt_wait_sleep(self, lprt_deadline_ms(ms < 0 ? 0 : ms));
    lprt_suspend(self);
}

int lprt_fd_wait(lprt_actor *self, int fd, int events, int64_t deadline) {
    lprt_wait_fd(self, fd, events, deadline);
    return lprt_suspend(self) == LPRT_WAKE_FD;
}

/* Deep stacks. The fiber's first stack is small (it is what a blocked actor costs); a fiber that
   needs more (native binaries: recursion past it, runtime/DESIGN.md "Deep stacks") runs the rest
   of a call on a second stack mapped for it alone, kept until the fiber ends. */
int lprt_deep_reserve(lprt_actor *self, size_t size) {
    void **word = deep_word(self);
    if (*word) return 0;
    size_t ps = page_size(), none = 0;
    size = (size + ps - 1) & ~(ps - 1);
    if (!atomic_compare_exchange_strong(&self->rt->deep_size, &none, size)) size = none;
    void *s = stack_map(self->rt, size);
    if (!s) return -1;
    *word = s;
    return 0;
}

int lprt_on_deep_stack(lprt_actor *self) { return self->on_deep; }

typedef struct {
    void (*fn)(void *);
    void *arg;
    void *fake;
    const void *from_bottom;
    size_t from_size;
} deep_call;

static void deep_entry(void *p) {
    deep_call *c = p;
#ifdef LPRT_ASAN
    __sanitizer_finish_switch_fiber(c->fake, &c->from_bottom, &c->from_size);
#endif
    c->fn(c->arg);
#ifdef LPRT_ASAN
    __sanitizer_start_switch_fiber(&c->fake, c->from_bottom, c->from_size);
#endif
}

void lprt_deep_call(lprt_actor *self, void (*fn)(void *), void *arg) {
    void *deep = *deep_word(self);
    if (!deep || self->on_deep) abort();
    deep_call c = {fn, arg, NULL, NULL, 0};
    size_t size = self->rt->deep_size;
    char *bottom = STACK_BASE(deep) + page_size();
    self->on_deep = true;
#ifdef LPRT_ASAN
    __sanitizer_start_switch_fiber(&c.fake, bottom, size);
#endif
    lprt__call_on_stack(&c, deep_entry, (void *)((uintptr_t)(bottom + size) & ~(uintptr_t)15));
#ifdef LPRT_ASAN
    __sanitizer_finish_switch_fiber(c.fake, NULL, NULL);
#endif
    self->on_deep = false;
}
