/* monitors.c — an actor's monitors by the id of the actor watched (the latest ref for each), so
 * `demonitor:` finds its ref and a `Down` received forgets it: open addressing with linear
 * probing and backward-shift deletion, O(1) whatever the number of actors watched. The table
 * doubles when half full and halves when under an eighth full, so it follows the number watched
 * now, not the most ever watched at once. */
#include <stdlib.h>

#include "lpn.h"

static size_t slot_of(const lpn_monitors *m, uint64_t id) {
    return (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
}

static void resize(lpn_monitors *m, size_t cap) {
    lpn_monitors old = *m;
    m->cap = cap;
    m->n = 0;
    m->e = calloc(m->cap, sizeof *m->e);
    if (!m->e) abort();
    for (size_t i = 0; i < old.cap; i++)
        if (old.e[i].id) lpn_monitors_put(m, old.e[i].id, old.e[i].ref);
    free(old.e);
}

void lpn_monitors_put(lpn_monitors *m, uint64_t id, uint64_t ref) {
    if (2 * (m->n + 1) > m->cap) resize(m, m->cap ? m->cap * 2 : 8);
    size_t i = slot_of(m, id);
    while (m->e[i].id && m->e[i].id != id) i = (i + 1) & (m->cap - 1);
    if (!m->e[i].id) m->n++;
    m->e[i].id = id;
    m->e[i].ref = ref;
}

static size_t find(const lpn_monitors *m, uint64_t id) {
    if (!m->n) return SIZE_MAX;
    for (size_t i = slot_of(m, id); m->e[i].id; i = (i + 1) & (m->cap - 1))
        if (m->e[i].id == id) return i;
    return SIZE_MAX;
}

uint64_t lpn_monitors_take(lpn_monitors *m, uint64_t id, uint64_t ref) {
    size_t i = find(m, id);
    if (i == SIZE_MAX || (ref && m->e[i].ref != ref)) return 0;
    uint64_t r = m->e[i].ref;
    m->n--;
    for (size_t j = (i + 1) & (m->cap - 1); m->e[j].id; j = (j + 1) & (m->cap - 1)) {
        size_t home = slot_of(m, m->e[j].id);
        /* move e[j] back into the hole at i unless its home lies cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    m->e[i].id = 0;
    m->e[i].ref = 0;
    if (m->cap > 64 && 8 * m->n < m->cap) resize(m, m->cap / 2);   /* a table that emptied shrinks */
    return r;
}

void lpn_monitors_free(lpn_monitors *m) {
    free(m->e);
    *m = (lpn_monitors){0};
}
