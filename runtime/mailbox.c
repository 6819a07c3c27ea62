/* mailbox.c — MPSC mailboxes and the owner's selective-receive cursor.
 *
 * Senders push onto a lock-free Treiber stack (`inbound`). The owner detaches
 * the whole stack with one exchange, reverses it (restoring arrival order, so
 * each sender's order is preserved) and appends it to a private doubly linked
 * list, numbering entries with increasing `seq`. Selective receive walks that
 * list; a receive that blocks records the last seq it examined, and only a
 * newer entry wakes it (see sched.c for the wake protocol). When the runtime
 * observes (lprt_config.observe), the owner changes its list under its own lock
 * so lprt_mbox_peek can read it from another thread.                         */
#include "lprt_internal.h"

#include <stdlib.h>

lprt_msg *lprt__msg_new(int kind) {
    lprt_msg *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->kind = kind;
    return m;
}

void lprt_msg_free(lprt *rt, lprt_msg *m) {
    if (!m) return;
    if (m->kind == LPRT_MSG_USER) lprt__value_release(rt, m->value);
    else {
        lprt__reason_release(rt, m->reason);
        if (m->actor) lprt_release(m->actor);
    }
    free(m);
}

void lprt__mbox_push(lprt_actor *to, lprt_msg *m) {
    if (to->rt->det && lprt__det_hold(to, m)) return; /* a delayed delivery (faults) */
    lprt__mbox_deliver(to, m);
}

void lprt__mbox_deliver(lprt_actor *to, lprt_msg *m) {
    atomic_fetch_add_explicit(&to->mlen, 1, memory_order_relaxed);
    lprt_msg *h = atomic_load_explicit(&to->inbound, memory_order_relaxed);
    do {
        m->_next = h;
    } while (!atomic_compare_exchange_weak_explicit(&to->inbound, &h, m, memory_order_seq_cst,
                                                    memory_order_relaxed));
    /* Pairs with the owner's seq_cst WAITING transition followed by its
       inbound check: at least one side sees the other. */
    uint64_t w = atomic_load_explicit(&to->st, memory_order_seq_cst);
    if (W_STATE(w) == LPRT_ST_WAITING && (w & W_WANT_MSG)) lprt__wake(to, LPRT_WAKE_MESSAGE, W_ANY_SEQ);
    else if (W_STATE(w) == LPRT_ST_DEAD) {
        /* Raced with the death: the dying owner's final drain may have missed
           us, so free what is left now (messages may reference actors, and
           leaving them would let reference cycles between dead actors leak). */
        lprt_msg *s = atomic_exchange_explicit(&to->inbound, NULL, memory_order_acquire);
        while (s) {
            lprt_msg *n = s->_next;
            atomic_fetch_sub_explicit(&to->mlen, 1, memory_order_relaxed);
            lprt_msg_free(to->rt, s);
            s = n;
        }
    }
}

int lprt_send(lprt_actor *to, void *value) {
    lprt *rt = to->rt;
    if (W_STATE(atomic_load_explicit(&to->st, memory_order_acquire)) == LPRT_ST_DEAD) {
        lprt__value_release(rt, value);
        return LPRT_EDEAD;
    }
    lprt_msg *m = lprt__msg_new(LPRT_MSG_USER);
    m->value = value;
    atomic_fetch_add_explicit(&rt->st_messages, 1, memory_order_relaxed);
    lprt__mbox_push(to, m);
    return LPRT_OK;
}

size_t lprt_mbox_len(lprt_actor *a) {
    int64_t n = atomic_load_explicit(&a->mlen, memory_order_relaxed);
    return n > 0 ? (size_t)n : 0;
}

static inline void list_lock(lprt_actor *a) {
    if (a->rt->observe) pthread_mutex_lock(&a->lock);
}

static inline void list_unlock(lprt_actor *a) {
    if (a->rt->observe) pthread_mutex_unlock(&a->lock);
}

void lprt__mbox_drain(lprt_actor *self) {
    if (!atomic_load_explicit(&self->inbound, memory_order_relaxed)) return;
    list_lock(self);
    lprt_msg *s = atomic_exchange_explicit(&self->inbound, NULL, memory_order_acquire);
    lprt_msg *rev = NULL;
    while (s) {
        lprt_msg *n = s->_next;
        s->_next = rev;
        rev = s;
        s = n;
    }
    while (rev) {
        lprt_msg *n = rev->_next;
        rev->_next = NULL;
        rev->_prev = self->tail;
        rev->seq = self->next_seq++;
        if (self->tail) self->tail->_next = rev;
        else self->head = rev;
        self->tail = rev;
        rev = n;
    }
    list_unlock(self);
}

lprt_msg *lprt_mbox_first(lprt_actor *self) {
    lprt__mbox_drain(self);
    return self->head;
}

lprt_msg *lprt_mbox_next(lprt_actor *self, lprt_msg *m) {
    if (!m->_next) lprt__mbox_drain(self);
    return m->_next;
}

/* The list is in seq order: walk in from both ends at once, so finding the place costs the
   smaller of the entries before it (passed over and kept) and after it (not yet examined).
   From one end only, a receive that resumes right after the message it last took, in a long
   mailbox, would step over the whole mailbox each time. */
lprt_msg *lprt_mbox_after(lprt_actor *self, uint64_t seq) {
    lprt__mbox_drain(self);
    lprt_msg *lo = self->head, *hi = self->tail;
    if (!hi || hi->seq <= seq) return NULL;
    if (lo->seq > seq) return lo;
    uint64_t steps = 0; /* lo->seq <= seq < hi->seq: lo is before hi */
    for (;;) {
        steps++;
        lo = lo->_next;
        if (lo->seq > seq) break;
        if (hi->_prev->seq <= seq) {
            lo = hi;
            break;
        }
        hi = hi->_prev;
    }
    atomic_fetch_add_explicit(&self->rt->st_seek_steps, steps, memory_order_relaxed);
    return lo;
}

uint64_t lprt_mbox_mark(lprt_actor *self) {
    lprt__mbox_drain(self);
    return self->next_seq - 1;
}

void lprt_mbox_take(lprt_actor *self, lprt_msg *m) {
    list_lock(self);
    if (m->_prev) m->_prev->_next = m->_next;
    else self->head = m->_next;
    if (m->_next) m->_next->_prev = m->_prev;
    else self->tail = m->_prev;
    m->_next = m->_prev = NULL;
    list_unlock(self);
    atomic_fetch_sub_explicit(&self->mlen, 1, memory_order_relaxed);
}

bool lprt__mbox_has_after(lprt_actor *self, uint64_t seq) {
    if (atomic_load_explicit(&self->inbound, memory_order_seq_cst)) return true;
    return self->tail && self->tail->seq > seq;
}

void lprt__mbox_free_all(lprt_actor *a) {
    lprt__mbox_drain(a);
    list_lock(a);
    lprt_msg *m = a->head;
    a->head = a->tail = NULL;
    list_unlock(a);
    while (m) {
        lprt_msg *n = m->_next;
        atomic_fetch_sub_explicit(&a->mlen, 1, memory_order_relaxed);
        lprt_msg_free(a->rt, m);
        m = n;
    }
}
