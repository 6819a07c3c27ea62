/* t_pool.c — an engine's state allocated with its actor (lprt_create_fiber_with), listed through
 * the runtime's registry (lprt_each_actor); fiber stacks from the pool: far more stacks than a
 * domain's cache holds are mapped in chunks, and once freed are reused without mapping again. */
#include "harness.h"

enum { N = 600 }; /* more than a domain's stack cache (256) */

typedef struct {
    uint64_t id;   /* written by init, before the actor is listed */
    long tag;
    lprt_actor *parent;
    int ran;
} state;

static void init(lprt_actor *a, void *ud, void *arg) {
    state *s = ud;
    CHECK(s->id == 0 && s->tag == 0 && s->ran == 0); /* zeroed */
    s->id = lprt_id(a);
    s->tag = 7;
    s->parent = arg;
}

static void child(lprt_actor *self, void *ud) {
    state *s = ud;
    CHECK(lprt_userdata(self) == ud && s->id == lprt_id(self));
    s->ran = 1;
    lprt_send(s->parent, VAL(1));
    h_recv_num(self); /* blocks: every child holds its stack at once */
}

typedef struct { long listed, tagged; } count;

static void count_one(lprt_actor *a, void *arg) {
    count *c = arg;
    c->listed++;
    state *s = lprt_userdata(a);
    if (lprt_kind(a) == LPRT_FIBER && s && s->tag == 7) {
        CHECK(s->id == lprt_id(a));
        c->tagged++;
    }
}

static uint64_t round_of(lprt_actor *self) {
    lprt *rt = lprt_runtime(self);
    lprt_actor *kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = lprt_create_fiber_with(rt, child, sizeof(state), init, self, 64 * 1024);
        CHECK(kids[i]);
        lprt_monitor(self, kids[i]);
        lprt_start(kids[i]);
    }
    count c = {0, 0};
    lprt_each_actor(rt, count_one, &c);
    CHECK(c.tagged == N && c.listed == N + 1);
    for (int i = 0; i < N; i++) CHECK(h_recv_num(self) == 1); /* every child has run and blocks */
    for (int i = 0; i < N; i++) CHECK(((state *)lprt_userdata(kids[i]))->ran);
    lprt_stats st;
    lprt_get_stats(rt, &st);
    for (int i = 0; i < N; i++) lprt_send(kids[i], VAL(i));
    for (int i = 0; i < N; i++) lprt_msg_free(rt, lprt_receive(self, -1)); /* the Downs */
    for (int i = 0; i < N; i++) lprt_release(kids[i]);
    /* a Down comes before its actor has left the registry and freed its stack: wait for both */
    for (int tries = 0;; tries++) {
        c = (count){0, 0};
        lprt_each_actor(rt, count_one, &c);
        if (c.listed == 1) break;
        CHECK(tries < 10000);
        lprt_sleep_ms(self, 1);
    }
    CHECK(c.tagged == 0);
    return st.stack_maps;
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)ud;
    uint64_t first = round_of(self);
    CHECK(first <= N / 32 + 2); /* chunks of slots, not a mapping per stack */
    uint64_t second = round_of(self);
    /* the freed slots are reused; with 2 domains the other domain's cache (256 stacks) may hold
       some of them, and their place is taken by new slots: at most 256 / 64 chunks more */
    if (lprt_domain_count(lprt_runtime(self)) == 1) CHECK(second == first);
    else CHECK(second <= first + 4);
}

int main(void) {
    for (int d = 1; d <= 2; d++) {
        lprt *rt = h_new(d);
        CHECK(h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 0)) == 0);
    }
    puts("t_pool ok");
    return 0;
}
