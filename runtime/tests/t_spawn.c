/* t_spawn.c — spawn storms: a skynet-style tree mixing fiber and step actors
 * (every leaf counted exactly once), concurrent spawners of short-lived
 * actors, and preemption: CPU-bound actors cannot starve a ping-pong. */
#include "harness.h"

typedef struct node {
    lprt_actor *parent;
    long base;
    int depth;
    /* step-actor state */
    int got, phase;
    long sum;
} node;

static void spawn_children(lprt_actor *self, node *n);

static int step_node(lprt_actor *self, void *ud) {
    node *n = ud;
    lprt *rt = lprt_runtime(self);
    if (n->phase == 0) {
        if (n->depth == 0) {
            lprt_send(n->parent, VAL(n->base));
            lprt_release(n->parent);
            free(n);
            return LPRT_DONE;
        }
        spawn_children(self, n);
        n->phase = 1;
    }
    lprt_msg *m;
    while ((m = lprt_mbox_first(self))) {
        lprt_mbox_take(self, m);
        n->sum += NUM(m->value);
        n->got++;
        lprt_msg_free(rt, m);
    }
    if (n->got < 4) {
        lprt_wait_receive(self, 0, -1);
        return LPRT_BLOCK;
    }
    lprt_send(n->parent, VAL(n->sum));
    lprt_release(n->parent);
    free(n);
    return LPRT_DONE;
}

static void fiber_node(lprt_actor *self, void *ud) {
    node *n = ud;
    if (n->depth == 0) {
        lprt_send(n->parent, VAL(n->base));
        lprt_release(n->parent);
        free(n);
        return;
    }
    spawn_children(self, n);
    long sum = 0;
    for (int i = 0; i < 4; i++) sum += h_recv_num(self);
    lprt_send(n->parent, VAL(sum));
    lprt_release(n->parent);
    free(n);
}

static void spawn_children(lprt_actor *self, node *n) {
    lprt *rt = lprt_runtime(self);
    for (int i = 0; i < 4; i++) {
        node *c = calloc(1, sizeof *c);
        lprt_retain(self); /* a sender must hold a reference to its target */
        c->parent = self;
        c->depth = n->depth - 1;
        long width = 1;
        for (int k = 0; k < c->depth; k++) width *= 4;
        c->base = n->base + i * width;
        lprt_actor *a = (c->base + c->depth) % 3 ? lprt_spawn_step(rt, step_node, c)
                                                 : lprt_spawn_fiber(rt, fiber_node, c, 16384);
        CHECK(a);
        lprt_release(a);
    }
}

static void shortlived(lprt_actor *self, void *ud) {
    lprt_send((lprt_actor *)ud, VAL(1));
}

static void spawner(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    lprt_actor *sink = ud;
    for (int i = 0; i < SCALE(2000); i++) {
        lprt_release(lprt_spawn_fiber(rt, shortlived, sink, 16384));
        if (i % 50 == 0) lprt_yield(self);
    }
}

/* preemption */
static _Atomic int stop_spinning;
static int spinner(lprt_actor *self, void *ud) {
    while (!atomic_load(&stop_spinning))
        if (lprt_reductions(self, 1)) return LPRT_YIELD;
    return LPRT_DONE;
}
static void fiber_spinner(lprt_actor *self, void *ud) {
    while (!atomic_load(&stop_spinning)) lprt_reductions(self, 1);
}
static void ponger(lprt_actor *self, void *ud) {
    lprt_actor *peer = ud;
    for (;;) {
        long v = h_recv_num(self);
        if (v < 0) return;
        lprt_send(peer, VAL(v + 1));
    }
}

static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    int depth = *(int *)ud;
    node *root = calloc(1, sizeof *root);
    lprt_retain(self);
    root->parent = self;
    root->depth = depth;
    lprt_release(lprt_spawn_fiber(rt, fiber_node, root, 0));
    long leaves = 1;
    for (int k = 0; k < depth; k++) leaves *= 4;
    CHECK(h_recv_num(self) == leaves * (leaves - 1) / 2);

    for (int i = 0; i < 4; i++) lprt_release(lprt_spawn_fiber(rt, spawner, self, 0));
    for (long i = 0; i < 4L * SCALE(2000); i++) CHECK(h_recv_num(self) == 1);

    atomic_store(&stop_spinning, 0);
    for (int i = 0; i < 3; i++) {
        lprt_release(lprt_spawn_step(rt, spinner, NULL));
        lprt_release(lprt_spawn_fiber(rt, fiber_spinner, NULL, 0));
    }
    lprt_actor *p = lprt_spawn_fiber(rt, ponger, self, 0);
    for (long i = 0; i < 200; i += 2) {
        lprt_send(p, VAL(i));
        CHECK(h_recv_num(self) == i + 1);
    }
    lprt_send(p, VAL(-1));
    lprt_release(p);
    atomic_store(&stop_spinning, 1);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        int depth = SANITIZED ? 5 : 7;
        lprt *rt = h_new(h_domain_counts[d]);
        double t0 = h_secs();
        h_run(rt, lprt_create_fiber(rt, main_fiber, &depth, 0));
        printf("  domains=%d depth=%d %.3fs\n", h_domain_counts[d], depth, h_secs() - t0);
    }
    printf("ok\n");
    return 0;
}
