/* deque.c — Chase-Lev work-stealing deque of runnable actors.
 *
 * After Lê, Pop, Cohen, Zappa Nardelli, "Correct and Efficient Work-Stealing
 * for Weak Memory Models" (PPoPP'13), with the two seq_cst fences replaced by
 * seq_cst accesses to top/bottom (equivalent, and visible to ThreadSanitizer,
 * which ignores fences). Arrays only grow; retired arrays stay allocated until
 * the deque is destroyed because a thief may still be reading one.          */
#include "lprt_internal.h"

#include <stdlib.h>

struct lprt__dq_array {
    int64_t size;
    lprt__dq_array *retired_next;
    _Atomic(lprt_actor *) buf[];
};

static lprt__dq_array *array_new(int64_t size) {
    lprt__dq_array *a = calloc(1, sizeof *a + (size_t)size * sizeof(a->buf[0]));
    if (!a) abort();
    a->size = size;
    return a;
}

void lprt__dq_init(lprt__deque *q) {
    atomic_init(&q->top, 0);
    atomic_init(&q->bottom, 0);
    atomic_init(&q->array, array_new(256));
    q->retired = NULL;
}

void lprt__dq_destroy(lprt__deque *q) {
    free(atomic_load(&q->array));
    while (q->retired) {
        lprt__dq_array *n = q->retired->retired_next;
        free(q->retired);
        q->retired = n;
    }
}

void lprt__dq_push(lprt__deque *q, lprt_actor *x) {
    int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&q->top, memory_order_acquire);
    lprt__dq_array *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    if (b - t > a->size - 1) {
        lprt__dq_array *n = array_new(a->size * 2);
        for (int64_t i = t; i < b; i++)
            atomic_store_explicit(&n->buf[i & (n->size - 1)],
                                  atomic_load_explicit(&a->buf[i & (a->size - 1)], memory_order_relaxed),
                                  memory_order_relaxed);
        a->retired_next = q->retired;
        q->retired = a;
        atomic_store_explicit(&q->array, n, memory_order_release);
        a = n;
    }
    atomic_store_explicit(&a->buf[b & (a->size - 1)], x, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, b + 1, memory_order_seq_cst);
}

lprt_actor *lprt__dq_pop(lprt__deque *q) {
    int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed) - 1;
    lprt__dq_array *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, b, memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    if (t > b) {
        atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    lprt_actor *x = atomic_load_explicit(&a->buf[b & (a->size - 1)], memory_order_relaxed);
    if (t == b) {
        if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            x = NULL;
        atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
    }
    return x;
}

lprt_actor *lprt__dq_steal(lprt__deque *q) {
    for (;;) {
        int64_t t = atomic_load_explicit(&q->top, memory_order_seq_cst);
        int64_t b = atomic_load_explicit(&q->bottom, memory_order_seq_cst);
        if (t >= b) return NULL;
        lprt__dq_array *a = atomic_load_explicit(&q->array, memory_order_acquire);
        lprt_actor *x = atomic_load_explicit(&a->buf[t & (a->size - 1)], memory_order_relaxed);
        if (atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
                                                    memory_order_relaxed))
            return x;
    }
}

lprt_actor *lprt__dq_take(lprt__deque *q) {
    int64_t b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
    int64_t t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    if (b - t > 1) return lprt__dq_pop(q);
    if (b - t < 1) return NULL;
    /* the only entry: taken at the top as a thief would, one CAS and no store to bottom */
    lprt__dq_array *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    lprt_actor *x = atomic_load_explicit(&a->buf[t & (a->size - 1)], memory_order_relaxed);
    return atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed)
               ? x
               : NULL;
}
