/* harness.h — shared helpers for the runtime's C tests.
 *
 * Values are tagged integers ((n << 1) | 1) so tests can send numbers; the
 * hooks count live value references, and every test checks the count returns
 * to zero (nothing leaked, nothing released twice).                        */
#ifndef LPRT_TEST_HARNESS_H
#define LPRT_TEST_HARNESS_H

#include "lprt.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);              \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static _Atomic long h_live_values;
static _Atomic long h_exits;
static _Atomic long h_exit_kind[3];
static _Atomic long h_unobserved_n;

static inline void *VAL(long n) {
    atomic_fetch_add(&h_live_values, 1);
    return (void *)(uintptr_t)(((uintptr_t)n << 1) | 1);
}
static inline long NUM(void *v) { return (long)((intptr_t)v >> 1); }

__attribute__((unused)) static void h_retain(void *v, void *ud) {
    (void)ud;
    CHECK(((uintptr_t)v & 1) == 1);
    atomic_fetch_add(&h_live_values, 1);
}
static void h_release(void *v, void *ud) {
    (void)ud;
    CHECK(((uintptr_t)v & 1) == 1);
    CHECK(atomic_fetch_sub(&h_live_values, 1) > 0);
}
static void h_on_exit(lprt_actor *a, int kind, void *value, void *aud, void *ud) {
    (void)a, (void)value, (void)aud, (void)ud;
    atomic_fetch_add(&h_exits, 1);
    atomic_fetch_add(&h_exit_kind[kind], 1);
}
static void h_unobserved(lprt_actor *a, int kind, void *value, void *ud) {
    (void)a, (void)kind, (void)value, (void)ud;
    atomic_fetch_add(&h_unobserved_n, 1);
}

static inline lprt *h_new(int domains) {
    lprt_config cfg = {domains, 0, 0};
    lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL};
    atomic_store(&h_exits, 0);
    for (int i = 0; i < 3; i++) atomic_store(&h_exit_kind[i], 0);
    atomic_store(&h_unobserved_n, 0);
    return lprt_new(&cfg, &hooks);
}

/* lprt_run + checks every test wants: all values released, runtime freed */
static inline int h_run(lprt *rt, lprt_actor *main) {
    int r = lprt_run(rt, main);
    lprt_release(main);
    lprt_free(rt);
    CHECK(atomic_load(&h_live_values) == 0);
    return r;
}

static inline unsigned h_rand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* scale iteration counts down under sanitizers */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SCALE(n) ((n) / 4 > 0 ? (n) / 4 : 1)
#define SANITIZED 1
#else
#define SCALE(n) (n)
#define SANITIZED 0
#endif

static const int h_domain_counts[] = {1, 2, 4};

/* take the next USER message (FIFO), waiting forever */
static inline long h_recv_num(lprt_actor *self) {
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m && m->kind == LPRT_MSG_USER);
    long n = NUM(m->value);
    lprt_msg_free(lprt_runtime(self), m);
    return n;
}

static inline double h_secs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
