/* mailbox.c — MPSC mailboxes and the owner's selective-receive cursor.
 *
 * Senders push onto a lock-free Treiber stack (`inbound`). The owner detaches
 * the whole stack with one exchange, reverses it (restoring arrival order, so
 * each sender's order is preserved) and appends it to a private doubly linked
 * list, numbering entries with increasing `seq`. Selective receive walks that
 * list; a receive that blocks records the last seq it examined, and only a
 * newer entry wakes it (see sched.c for the wake protocol).
 *
 * Peeking (lprt_config.observe): lprt_mbox_peek reads the list from another
 * thread. The owner pays one plain load per list change while nobody peeks: a
 * peeker makes the actor's peek_ticket odd (seq_cst), then reads its state; it
 * reads the list under the actor's lock once the turn it saw has ended, or once
 * the owner has acknowledged the ticket. An owner that sees an odd ticket
 * (seq_cst load, after its seq_cst move to RUNNING) changes the list under that
 * lock and acknowledges; one that saw it even did so before the peeker's ticket
 * in the total order, so the peeker finds it RUNNING and waits for that turn to
 * end (or for the acknowledgement that follows the change).                  */
#include "lprt_internal.h"

#include <sched.h>
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

/* The owner, before changing its list: true when it took its lock for a peek in progress. */
static inline bool list_lock(lprt_actor *a) {
    if (!a->rt->observe) return false;
    uint32_t t = atomic_load_explicit(&a->peek_ticket, memory_order_seq_cst);
    if (!(t & 1)) return false;
    pthread_mutex_lock(&a->lock);
    atomic_store_explicit(&a->peek_ack, t, memory_order_release);
    atomic_fetch_add_explicit(&a->rt->st_mbox_locks, 1, memory_order_relaxed);
    return true;
}

static inline void list_unlock(lprt_actor *a, bool locked) {
    if (locked) pthread_mutex_unlock(&a->lock);
}

void lprt__mbox_drain(lprt_actor *self) {
    if (!atomic_load_explicit(&self->inbound, memory_order_relaxed)) return;
    bool locked = list_lock(self);
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
    list_unlock(self, locked);
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
    bool locked = list_lock(self);
    if (m->_prev) m->_prev->_next = m->_next;
    else self->head = m->_next;
    if (m->_next) m->_next->_prev = m->_prev;
    else self->tail = m->_prev;
    m->_next = m->_prev = NULL;
    list_unlock(self, locked);
    atomic_fetch_sub_explicit(&self->mlen, 1, memory_order_relaxed);
}

bool lprt__mbox_has_after(lprt_actor *self, uint64_t seq) {
    if (atomic_load_explicit(&self->inbound, memory_order_seq_cst)) return true;
    return self->tail && self->tail->seq > seq;
}

void lprt__mbox_free_all(lprt_actor *a) {
    lprt__mbox_drain(a);
    bool locked = list_lock(a);
    lprt_msg *m = a->head;
    a->head = a->tail = NULL;
    list_unlock(a, locked);
    while (m) {
        lprt_msg *n = m->_next;
        atomic_fetch_sub_explicit(&a->mlen, 1, memory_order_relaxed);
        lprt_msg_free(a->rt, m);
        m = n;
    }
}

/* ---- peeking (lprt_config.observe) ---- */

static int read_list(lprt_actor *a, int *kinds, void **values, const char **names, int cap,
                     const char *(*name_of)(void *value)) {
    int n = 0;
    for (lprt_msg *m = a->head; m && n < cap; m = m->_next, n++) {
        kinds[n] = __atomic_load_n(&m->kind, __ATOMIC_ACQUIRE);
        void *v = kinds[n] == LPRT_MSG_USER ? m->value : NULL;
        if (values) values[n] = v;
        if (names) names[n] = v ? name_of(v) : NULL;
    }
    return n;
}

/* A peeker that is itself an actor, while it waits: it changes no list meanwhile, and changes
   it later under its lock (it will find the ticket odd), so it acknowledges a peek of its own
   mailbox at once. Two actors peeking each other do not wait for each other's turn. */
static void ack_own_peek(lprt_actor *target) {
    lprt_actor *me = lprt__cur_actor;
    if (!me || me == target) return;
    uint32_t t = atomic_load_explicit(&me->peek_ticket, memory_order_seq_cst);
    if (t & 1) atomic_store_explicit(&me->peek_ack, t, memory_order_release);
}

static void pause_peeker(lprt_actor *target, unsigned spins) {
    ack_own_peek(target);
    if (spins > 64) sched_yield();
}

/* Until the owner cannot be changing the list unlocked: the turn seen first has ended or the
   owner acknowledged the ticket. -1: it died (its list is being freed). */
static int wait_for_owner(lprt_actor *a, uint32_t ticket) {
    uint64_t first = atomic_load_explicit(&a->st, memory_order_seq_cst);
    for (unsigned spins = 0;; spins++) {
        uint64_t w = spins ? atomic_load_explicit(&a->st, memory_order_acquire) : first;
        if (W_STATE(w) == LPRT_ST_DEAD) return -1;
        if (W_STATE(w) != LPRT_ST_RUNNING || W_SEQ(w) != W_SEQ(first) ||
            atomic_load_explicit(&a->peek_ack, memory_order_acquire) == ticket)
            return 0;
        pause_peeker(a, spins);
    }
}

int lprt__mbox_peek(lprt_actor *a, int *kinds, void **values, const char **names, int cap,
                    const char *(*name_of)(void *value)) {
    if (a == lprt__cur_actor) return read_list(a, kinds, values, names, cap, name_of);   /* its owner */
    /* one peeker at a time: it turns the ticket from even to odd */
    uint32_t t = atomic_load_explicit(&a->peek_ticket, memory_order_relaxed);
    for (unsigned spins = 0; (t & 1) || !atomic_compare_exchange_weak_explicit(
                                 &a->peek_ticket, &t, t + 1, memory_order_seq_cst, memory_order_relaxed);
         spins++) {
        pause_peeker(a, spins);
        t = atomic_load_explicit(&a->peek_ticket, memory_order_relaxed);
    }
    int n = -1;
    if (wait_for_owner(a, t + 1) == 0) {
        pthread_mutex_lock(&a->lock);
        n = read_list(a, kinds, values, names, cap, name_of);
        pthread_mutex_unlock(&a->lock);
    }
    atomic_store_explicit(&a->peek_ticket, t + 2, memory_order_release);
    return n;
}
