/* reclaim.c — memory given back when a domain goes idle after many actors have ended.
 *
 * An actor that ends frees its heap memory and its fiber stack, but neither goes back to
 * the system by itself: glibc's malloc keeps freed chunks in its arenas (it returns the top
 * of a heap past M_TRIM_THRESHOLD, never free pages in the middle), and each domain keeps
 * up to 256 recycled stacks with their touched pages for its next spawns. A program whose
 * actors came and went in bulk (100,000 grain activations, then their deactivations) would
 * keep its peak RSS while idle. So a domain about to park (it has nothing to run), when at
 * least RECLAIM_EXITS actors have ended since it last did so, unmaps the cached stacks past
 * STACK_KEEP, and one domain at a time calls malloc_trim(0), which hands every whole free
 * page of every arena back (madvise). A busy domain pays one load and compare per park.   */
#include "lprt_internal.h"

#include <malloc.h>

enum { RECLAIM_EXITS = 1024, STACK_KEEP = 16 };

void lprt__idle_reclaim(lprt__domain *d) {
    lprt *rt = d->rt;
    uint64_t exited = atomic_load_explicit(&rt->st_exited, memory_order_relaxed);
    if (exited - d->reclaim_mark < RECLAIM_EXITS) return;
    d->reclaim_mark = exited;
    lprt__stack_cache_trim(d, STACK_KEEP);
    uint64_t mark = atomic_load_explicit(&rt->trim_mark, memory_order_relaxed);
    if (exited - mark >= RECLAIM_EXITS &&
        atomic_compare_exchange_strong_explicit(&rt->trim_mark, &mark, exited, memory_order_relaxed,
                                                memory_order_relaxed))
        malloc_trim(0);
}
