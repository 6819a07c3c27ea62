/* timer.c — one shared min-heap of actor deadlines (CLOCK_MONOTONIC).
 *
 * Each actor owns one embedded heap node (it waits for at most one deadline),
 * so re-arming moves the node instead of leaving stale entries behind, and a
 * satisfied receive costs no allocation. The heap is shared and served by the
 * io thread (poller.c), which sleeps in epoll_wait until the earliest
 * deadline: domains never make timer syscalls, an idle runtime has no
 * periodic wakeups, and a timer is still serviced while every domain is busy.
 * Arming an earlier deadline than the io thread sleeps towards kicks it.
 * A fired entry carries the wait sequence it was armed for; lprt__wake
 * ignores it when that wait already ended (exactly-once resolution).        */
#include "lprt_internal.h"

#include <stdlib.h>

void lprt__timers_init(lprt__timers *t) {
    pthread_mutex_init(&t->mu, NULL);
    t->heap = NULL;
    t->n = t->cap = 0;
    t->io_sleep_until = INT64_MAX;
}

void lprt__timers_destroy(lprt *rt) {
    lprt__timers *t = &rt->timers;
    free(t->heap);
    pthread_mutex_destroy(&t->mu);
}

static void place(lprt__timers *t, size_t i, lprt_actor *a) {
    t->heap[i] = a;
    a->t_index = i;
}

static void sift_up(lprt__timers *t, size_t i) {
    lprt_actor *a = t->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (t->heap[p]->t_deadline <= a->t_deadline) break;
        place(t, i, t->heap[p]);
        i = p;
    }
    place(t, i, a);
}

static void sift_down(lprt__timers *t, size_t i) {
    lprt_actor *a = t->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->n) break;
        if (c + 1 < t->n && t->heap[c + 1]->t_deadline < t->heap[c]->t_deadline) c++;
        if (a->t_deadline <= t->heap[c]->t_deadline) break;
        place(t, i, t->heap[c]);
        i = c;
    }
    place(t, i, a);
}

static void heap_remove(lprt__timers *t, size_t i) {
    lprt_actor *last = t->heap[--t->n];
    t->heap[i]->t_index = SIZE_MAX;
    if (i < t->n) {
        place(t, i, last);
        sift_down(t, i);
        sift_up(t, last->t_index);
    }
    if (t->cap > 64 && 8 * t->n < t->cap) {   /* a heap that emptied shrinks (by half: no thrashing) */
        lprt_actor **h = realloc(t->heap, t->cap / 2 * sizeof *t->heap);
        if (h) {
            t->heap = h;
            t->cap /= 2;
        }
    }
}

void lprt__timer_arm(lprt_actor *a, int64_t deadline, uint64_t seq) {
    lprt *rt = a->rt;
    lprt__timers *t = &rt->timers;
    bool kick = false;
    lprt__io_need(rt);
    pthread_mutex_lock(&t->mu);
    if (a->t_index == SIZE_MAX) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            t->heap = realloc(t->heap, t->cap * sizeof *t->heap);
            if (!t->heap) abort();
        }
        lprt_retain(a);
        a->t_deadline = deadline;
        a->t_seq = seq;
        place(t, t->n++, a);
        sift_up(t, a->t_index);
    } else {
        a->t_seq = seq;
        a->t_deadline = deadline;
        sift_down(t, a->t_index);
        sift_up(t, a->t_index);
    }
    if (deadline < t->io_sleep_until) {
        t->io_sleep_until = deadline;
        kick = true;
    }
    pthread_mutex_unlock(&t->mu);
    if (kick) lprt__io_kick(rt);
}

void lprt__timer_disarm(lprt_actor *a) {
    lprt__timers *t = &a->rt->timers;
    pthread_mutex_lock(&t->mu);
    bool armed = a->t_index != SIZE_MAX;
    if (armed) heap_remove(t, a->t_index);
    pthread_mutex_unlock(&t->mu);
    if (armed) lprt_release(a);
}

int64_t lprt__timers_fire(lprt *rt, int64_t now) {
    lprt__timers *t = &rt->timers;
    enum { BATCH = 64 };
    lprt_actor *fired[BATCH];
    uint64_t seqs[BATCH];
    for (;;) {
        int k = 0;
        pthread_mutex_lock(&t->mu);
        while (t->n > 0 && t->heap[0]->t_deadline <= now && k < BATCH) {
            lprt_actor *a = t->heap[0];
            seqs[k] = a->t_seq;
            fired[k++] = a;
            heap_remove(t, 0);
        }
        int64_t next = t->n ? t->heap[0]->t_deadline : -1;
        if (k < BATCH) t->io_sleep_until = next < 0 ? INT64_MAX : next;
        pthread_mutex_unlock(&t->mu);
        for (int i = 0; i < k; i++) {
            lprt__wake(fired[i], LPRT_WAKE_TIMEOUT, seqs[i]);
            lprt_release(fired[i]); /* the heap's reference */
        }
        if (k < BATCH) return next;
    }
}
