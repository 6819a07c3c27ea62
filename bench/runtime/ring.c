/* ring.c — thread ring: 503 fiber actors pass a token 2,000,000 hops. */
#include "bench.h"

#define RING 503
#define HOPS 2000000
static lprt_actor *ring[RING];
static lprt_actor *main_actor;
static void member(lprt_actor *self, void *ud) {
    long i = (long)ud;
    lprt_actor *next = ring[(i + 1) % RING];
    for (;;) {
        long t = recv_num(self);
        if (t < 0) {
            lprt_send(next, BV(-1));
            return;
        }
        if (t == 0) {
            lprt_send(main_actor, BV(i));
            lprt_send(next, BV(-1));
            return;
        }
        lprt_send(next, BV(t - 1));
    }
}
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    main_actor = self;
    for (long i = 0; i < RING; i++) ring[i] = lprt_create_fiber(rt, member, (void *)i, 0);
    for (long i = 0; i < RING; i++) lprt_start(ring[i]);
    double t0 = now_s();
    lprt_send(ring[0], BV(HOPS));
    long who = recv_num(self);
    report("ring", rt, HOPS, "hops", now_s() - t0);
    if (who != HOPS % RING) abort();
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    /* members may still be forwarding the stop token until lprt_run returns */
    for (long i = 0; i < RING; i++) lprt_release(ring[i]);
    return 0;
}
