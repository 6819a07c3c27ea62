/* bench.h — timing / RSS reporting for the runtime benchmarks (not tests). */
#ifndef LPRT_BENCH_H
#define LPRT_BENCH_H
#include "lprt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline void *BV(long n) { return (void *)(uintptr_t)(((uintptr_t)n << 1) | 1); }
static inline long BN(void *v) { return (long)((intptr_t)v >> 1); }

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int domains_arg(int argc, char **argv) {
    if (argc > 1) return atoi(argv[1]);
    const char *e = getenv("LPRT_DOMAINS");
    return e ? atoi(e) : 0;
}

static inline void report(const char *name, lprt *rt, long n, const char *unit, double secs) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-10s domains=%d  %ld %s in %.3f s  = %.0f %s/s  peak RSS %.1f MB\n", name, lprt_domain_count(rt), n,
           unit, secs, n / secs, unit, ru.ru_maxrss / 1024.0);
}

/* FIFO receive of a number */
static inline long recv_num(lprt_actor *self) {
    lprt_msg *m = lprt_receive(self, -1);
    long v = BN(m->value);
    lprt_msg_free(lprt_runtime(self), m);
    return v;
}

static inline lprt *bench_rt(int domains) {
    lprt_config cfg = {domains, 0, 16384};
    return lprt_new(&cfg, NULL);
}

static inline void bench_run(lprt *rt, lprt_fiber_fn fn, void *ud) {
    lprt_actor *m = lprt_create_fiber(rt, fn, ud, 0);
    lprt_run(rt, m);
    lprt_release(m);
    lprt_free(rt);
}
#endif
