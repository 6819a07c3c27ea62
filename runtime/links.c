/* links.c — links, monitors, exit trapping and exit signals.
 *
 * An actor's links and monitors live under its lock. Death (lprt__notify_death)
 * records the reason, sets DEAD and detaches both lists in one critical
 * section, so a registration either lands in a list that will be notified or
 * sees DEAD and is answered at once from the recorded reason. Killing never
 * stops a thread: it sets kill_pending and wakes the target; the target's
 * domain finishes it before running it again or when its current step returns. */
#include "lprt_internal.h"

#include <stdlib.h>

static lprt_reason reason_copy(lprt *rt, lprt_reason r) {
    if (r.kind == LPRT_ERROR) lprt__value_retain(rt, r.value);
    else r.value = NULL;
    return r;
}

static void push_signal(lprt_actor *to, int kind, lprt_actor *about, uint64_t ref, lprt_reason r) {
    lprt_msg *m = lprt__msg_new(kind);
    if (about) {
        lprt_retain(about);
        m->actor = about;
        m->actor_id = about->id;
    }
    m->ref = ref;
    m->reason = reason_copy(to->rt, r);
    lprt__mbox_push(to, m);
}

static bool list_remove(lprt__link **head, lprt_actor *who, uint64_t ref, lprt__link **out) {
    for (lprt__link **p = head; *p; p = &(*p)->next) {
        if ((who && (*p)->actor == who) || (!who && (*p)->ref == ref)) {
            *out = *p;
            *p = (*p)->next;
            return true;
        }
    }
    return false;
}

static bool is_dead(lprt_actor *a) { return W_STATE(atomic_load(&a->st)) == LPRT_ST_DEAD; }

void lprt__deliver_exit(lprt_actor *from, lprt_actor *target, lprt_reason r, bool from_link) {
    bool untrappable = !from_link && r.kind == LPRT_KILLED;
    if (!untrappable && atomic_load(&target->trap)) {
        push_signal(target, LPRT_MSG_EXIT, from, 0, r);
        return;
    }
    if (r.kind == LPRT_NORMAL) return;
    pthread_mutex_lock(&target->lock);
    if (is_dead(target) || atomic_load(&target->kill_pending)) {
        pthread_mutex_unlock(&target->lock);
        return;
    }
    target->kill_reason = reason_copy(target->rt, r);
    atomic_store(&target->kill_pending, 1);
    pthread_mutex_unlock(&target->lock);
    lprt__wake(target, LPRT_WAKE_KILLED, W_ANY_SEQ);
}

void lprt_exit(lprt_actor *from, lprt_actor *target, int kind, void *value) {
    lprt_reason r = {kind, kind == LPRT_ERROR ? value : NULL};
    lprt__deliver_exit(from, target, r, false);
    lprt__value_release(target->rt, value);
}

void lprt__notify_death(lprt_actor *a, lprt_reason r) {
    lprt *rt = a->rt;
    pthread_mutex_lock(&a->lock);
    a->reason = r;
    atomic_store(&a->st, W_MAKE(LPRT_ST_DEAD, 0, 0));
    lprt__link *links = a->links, *mons = a->monitors;
    a->links = a->monitors = NULL;
    pthread_mutex_unlock(&a->lock);
    bool observed = links || mons;
    for (lprt__link *l = links, *n; l; l = n) {
        n = l->next;
        lprt_actor *b = l->actor;
        lprt__link *back = NULL;
        pthread_mutex_lock(&b->lock);
        list_remove(&b->links, a, 0, &back);
        pthread_mutex_unlock(&b->lock);
        if (back) {
            lprt_release(back->actor);
            free(back);
        }
        if (!is_dead(b)) lprt__deliver_exit(a, b, r, true);
        lprt_release(b);
        free(l);
    }
    for (lprt__link *m = mons, *n; m; m = n) {
        n = m->next;
        push_signal(m->actor, LPRT_MSG_DOWN, a, m->ref, r);
        lprt_release(m->actor);
        free(m);
    }
    if (!observed && r.kind != LPRT_NORMAL && rt->hooks.unobserved)
        rt->hooks.unobserved(a, r.kind, r.value, rt->hooks.ud);
}

static void add_link(lprt_actor *owner, lprt_actor *other, uint64_t ref, lprt__link **head) {
    lprt__link *l = malloc(sizeof *l);
    if (!l) abort();
    lprt_retain(other);
    l->actor = other;
    l->ref = ref;
    l->next = *head;
    *head = l;
    (void)owner;
}

static bool has_link(lprt__link *l, lprt_actor *who) {
    for (; l; l = l->next)
        if (l->actor == who) return true;
    return false;
}

int lprt_link(lprt_actor *a, lprt_actor *b) {
    if (a == b) return LPRT_OK;
    if (is_dead(a)) return LPRT_EDEAD;
    pthread_mutex_lock(&b->lock);
    if (is_dead(b)) {
        lprt_reason r = reason_copy(b->rt, b->reason);
        pthread_mutex_unlock(&b->lock);
        int res = LPRT_EDEAD;
        if (atomic_load(&a->trap)) {
            push_signal(a, LPRT_MSG_EXIT, b, 0, r);
            res = LPRT_EXIT_DELIVERED;
        }
        lprt__reason_release(b->rt, r);
        return res;
    }
    if (!has_link(b->links, a)) add_link(b, a, 0, &b->links);
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&a->lock);
    if (!is_dead(a) && !has_link(a->links, b)) add_link(a, b, 0, &a->links);
    pthread_mutex_unlock(&a->lock);
    return LPRT_OK;
}

void lprt_unlink(lprt_actor *a, lprt_actor *b) {
    lprt_actor *pair[2][2] = {{a, b}, {b, a}};
    for (int i = 0; i < 2; i++) {
        lprt__link *l = NULL;
        pthread_mutex_lock(&pair[i][0]->lock);
        list_remove(&pair[i][0]->links, pair[i][1], 0, &l);
        pthread_mutex_unlock(&pair[i][0]->lock);
        if (l) {
            lprt_release(l->actor);
            free(l);
        }
    }
}

uint64_t lprt_monitor(lprt_actor *watcher, lprt_actor *target) {
    uint64_t ref = atomic_fetch_add(&target->rt->next_ref, 1);
    pthread_mutex_lock(&target->lock);
    if (is_dead(target)) {
        lprt_reason r = reason_copy(target->rt, target->reason);
        pthread_mutex_unlock(&target->lock);
        push_signal(watcher, LPRT_MSG_DOWN, target, ref, r);
        lprt__reason_release(target->rt, r);
        return ref;
    }
    add_link(target, watcher, ref, &target->monitors);
    pthread_mutex_unlock(&target->lock);
    return ref;
}

int lprt_demonitor(lprt_actor *target, uint64_t ref) {
    lprt__link *l = NULL;
    pthread_mutex_lock(&target->lock);
    bool found = list_remove(&target->monitors, NULL, ref, &l);
    pthread_mutex_unlock(&target->lock);
    if (found) {
        lprt_release(l->actor);
        free(l);
    }
    return found;
}

void lprt_trap_exits(lprt_actor *a, int on) { atomic_store(&a->trap, on ? 1 : 0); }
int lprt_traps_exits(lprt_actor *a) { return atomic_load(&a->trap); }
