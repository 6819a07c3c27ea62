/* snapshot.c — observability: a cheap, lock-per-shard listing of live actors. */
#include "lprt_internal.h"

size_t lprt_snapshot(lprt *rt, lprt_actor_info *out, size_t cap) {
    size_t total = 0;
    for (int i = 0; i < REG_SHARDS; i++) {
        lprt__shard *s = &rt->reg[i];
        pthread_mutex_lock(&s->mu);
        for (lprt_actor *a = s->head; a; a = a->reg_next, total++) {
            if (total >= cap) continue;
            out[total].id = a->id;
            out[total].state = W_STATE(atomic_load_explicit(&a->st, memory_order_relaxed));
            out[total].kind = a->kind;
            out[total].mailbox = lprt_mbox_len(a);
        }
        pthread_mutex_unlock(&s->mu);
    }
    return total;
}
