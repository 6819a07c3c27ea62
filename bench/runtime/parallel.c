/* parallel.c — CPU-bound work split over 8 fiber actors; run with 1 and 2 domains. */
#include "bench.h"

#define WORKERS 8
#define ITERS 1600000000L
static void worker(lprt_actor *self, void *ud) {
    lprt_actor *boss = ud;
    uint64_t x = 88172645463325252ull, acc = 0;
    for (long i = 0; i < ITERS / WORKERS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift */
        acc += x & 1;
        if ((i & 1023) == 0) lprt_reductions(self, 1);
    }
    lprt_send(boss, BV((long)acc));
}
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    double t0 = now_s();
    for (int i = 0; i < WORKERS; i++) lprt_release(lprt_spawn_fiber(rt, worker, self, 0));
    long total = 0;
    for (int i = 0; i < WORKERS; i++) total += recv_num(self);
    report("parallel", rt, ITERS, "iters", now_s() - t0);
    if (total <= 0) abort();
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    return 0;
}
