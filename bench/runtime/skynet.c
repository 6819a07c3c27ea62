/* skynet.c — 1,000,000 leaf fiber actors in a 10-ary tree sum their numbers. */
#include "bench.h"

typedef struct {
    lprt_actor *parent;
    long num, size;
} node;
static void skynet(lprt_actor *self, void *ud) {
    node n = *(node *)ud;
    free(ud);
    if (n.size == 1) {
        lprt_send(n.parent, BV(n.num));
        lprt_release(n.parent);
        return;
    }
    lprt *rt = lprt_runtime(self);
    long sub = n.size / 10;
    for (long i = 0; i < 10; i++) {
        node *c = malloc(sizeof *c);
        lprt_retain(self); /* a sender holds a reference to its target */
        *c = (node){self, n.num + i * sub, sub};
        lprt_actor *a = lprt_spawn_fiber(rt, skynet, c, 0);
        if (!a) abort();
        lprt_release(a);
    }
    long sum = 0;
    for (int i = 0; i < 10; i++) sum += recv_num(self);
    lprt_send(n.parent, BV(sum));
    lprt_release(n.parent);
}
static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    node *root = malloc(sizeof *root);
    lprt_retain(self);
    *root = (node){self, 0, 1000000};
    double t0 = now_s();
    lprt_release(lprt_spawn_fiber(rt, skynet, root, 0));
    long sum = recv_num(self);
    report("skynet", rt, 1111111, "actors", now_s() - t0);
    if (sum != 499999500000L) abort();
}
int main(int argc, char **argv) {
    bench_run(bench_rt(domains_arg(argc, argv)), main_fiber, NULL);
    return 0;
}
