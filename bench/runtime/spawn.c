/* spawn.c — spawn 100,000 fiber actors that each report back once. */
#include "bench.h"

#define N 100000
static void child(lprt_actor *self, void *ud) { lprt_send((lprt_actor *)ud, BV(1)); }
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    double t0 = now_s();
    for (long i = 0; i < N; i++) {
        lprt_release(lprt_spawn_fiber(rt, child, self, 0));
        lprt_reductions(self, 1);
    }
    for (long i = 0; i < N; i++) recv_num(self);
    report("spawn", rt, N, "actors", now_s() - t0);
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    return 0;
}
