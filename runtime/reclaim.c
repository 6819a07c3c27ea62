/* reclaim.c — memory given back when a domain stays idle after actors have ended.
 *
 * An actor that ends frees its heap memory and its fiber stack, but neither goes back to
 * the system by itself: glibc's malloc keeps freed chunks in its arenas (it returns the top
 * of a heap past M_TRIM_THRESHOLD, never free pages in the middle), and each domain keeps
 * up to 256 recycled stacks with every page they touched, for its next spawns. A program
 * whose actors came and went in bulk (100,000 grain activations, then their deactivations)
 * would keep its peak RSS while idle. So a domain that parks after at least RECLAIM_EXITS
 * actors have ended (anywhere) since it last reclaimed parks for at most RECLAIM_IDLE_MS;
 * if nothing woke it by then (the program is idle, or this domain has been for that long),
 * it gives back the stacks its cache holds past STACK_KEEP (fiber.c) and, one domain at a time, calls
 * malloc_trim(0), which hands every whole free page of every arena back (madvise). A busy
 * domain, woken before the delay, pays nothing but a timed wait instead of a plain one.   */
#include "lprt_internal.h"

#include <errno.h>
#include <linux/futex.h>
#include <malloc.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { RECLAIM_EXITS = 256, RECLAIM_IDLE_MS = 100, STACK_KEEP = 16 };

static void reclaim(lprt__domain *d, uint64_t exited) {
    lprt *rt = d->rt;
    d->reclaim_mark = exited;
    lprt__stack_cache_trim(d, STACK_KEEP);
    uint64_t mark = atomic_load_explicit(&rt->trim_mark, memory_order_relaxed);
    if (exited - mark >= RECLAIM_EXITS &&
        atomic_compare_exchange_strong_explicit(&rt->trim_mark, &mark, exited, memory_order_relaxed,
                                                memory_order_relaxed))
        malloc_trim(0);
}

void lprt__park_wait(lprt__domain *d, uint32_t v) {
    uint64_t exited = atomic_load_explicit(&d->rt->st_exited, memory_order_relaxed);
    if (exited - d->reclaim_mark < RECLAIM_EXITS) {
        lprt__futex_wait(&d->futex, v);
        return;
    }
    struct timespec ts = {0, RECLAIM_IDLE_MS * 1000000L};
    if (syscall(SYS_futex, (uint32_t *)&d->futex, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0) != 0 &&
        errno == ETIMEDOUT)
        reclaim(d, exited);
}
