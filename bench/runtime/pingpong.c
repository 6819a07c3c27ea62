/* pingpong.c — two fiber actors exchange 200,000 round trips. */
#include "bench.h"

#define N 200000
static void ponger(lprt_actor *self, void *ud) {
    lprt_actor *peer = ud;
    for (long v; (v = recv_num(self)) >= 0;) lprt_send(peer, BV(v + 1));
}
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    lprt_actor *p = lprt_spawn_fiber(rt, ponger, self, 0);
    double t0 = now_s();
    for (long i = 0; i < N; i++) {
        lprt_send(p, BV(i));
        if (recv_num(self) != i + 1) abort();
    }
    report("pingpong", rt, N, "roundtrips", now_s() - t0);
    lprt_send(p, BV(-1));
    lprt_release(p);
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    return 0;
}
