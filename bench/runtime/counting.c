/* counting.c — one fiber actor receives and counts 1,000,000 messages. */
#include "bench.h"

#define N 1000000
static void counter(lprt_actor *self, void *ud) {
    lprt_actor *report_to = ud;
    long sum = 0;
    for (long v; (v = recv_num(self)) >= 0;) sum += v;
    lprt_send(report_to, BV(sum));
}
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    lprt_actor *c = lprt_spawn_fiber(rt, counter, self, 0);
    double t0 = now_s();
    for (long i = 0; i < N; i++) {
        lprt_send(c, BV(1));
        lprt_reductions(self, 1);
    }
    lprt_send(c, BV(-1));
    long sum = recv_num(self);
    report("counting", rt, N, "msgs", now_s() - t0);
    if (sum != N) abort();
    lprt_release(c);
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    return 0;
}
