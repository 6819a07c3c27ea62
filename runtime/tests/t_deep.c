/* t_deep.c — a fiber's deep stack (lprt_deep_call): C recursion far past a 64 KiB fiber stack
 * goes on on the fiber's deep stack, yields and blocks there (and migrates between domains),
 * comes back to its first stack with every frame intact; a fiber killed while deep, or that
 * never went deep, frees what it has. Under ASan the switches are announced (fiber.c). */
#include "harness.h"

enum { FIBER_STACK = 64 * 1024, DEEP_STACK = 64 * 1024 * 1024, MARGIN = 16 * 1024, DEPTH = 20000 };

typedef struct { lprt_actor *self, *parent; char *floor; int went_deep; } walker;
typedef struct { walker *w; long n; long result; } deep_arg;

static char *floor_below(size_t stack) { return (char *)__builtin_frame_address(0) - stack + MARGIN; }

static long down(walker *w, long n);

static void down_deep(void *p) {
    deep_arg *d = p;
    d->w->floor = floor_below(DEEP_STACK);
    d->w->went_deep++;
    CHECK(lprt_on_deep_stack(d->w->self));
    d->result = down(d->w, d->n);
}

/* Recursion with 512-byte frames; every 1,000 levels it yields (another domain may resume it). */
static long down(walker *w, long n) {
    volatile char pad[512];
    if ((char *)__builtin_frame_address(0) < w->floor) {
        CHECK(!lprt_on_deep_stack(w->self) && lprt_deep_reserve(w->self, DEEP_STACK) == 0);
        char *was = w->floor;
        deep_arg d = {w, n, 0};
        lprt_deep_call(w->self, down_deep, &d);
        CHECK(!lprt_on_deep_stack(w->self));
        w->floor = was;
        return d.result;
    }
    pad[0] = (char)n;
    pad[511] = (char)(n >> 8);
    if (n == 0) return 0;
    if (n % 1000 == 0) lprt_yield(w->self);
    long r = down(w, n - 1);
    CHECK(pad[0] == (char)n && pad[511] == (char)(n >> 8));
    return r + n;
}

static void walk(lprt_actor *self, void *ud) {
    walker w = {self, ud, floor_below(FIBER_STACK), 0};
    long r = down(&w, DEPTH);
    CHECK(w.went_deep == 1 && r == (long)DEPTH * (DEPTH + 1) / 2);
    r = down(&w, DEPTH); /* again: the same deep stack */
    CHECK(w.went_deep == 2 && r == (long)DEPTH * (DEPTH + 1) / 2);
    lprt_send(w.parent, VAL(1));
}

/* Goes deep, tells its parent, and blocks there until killed. */
static long down_and_wait(walker *w, long n);

static void wait_deep(void *p) {
    deep_arg *d = p;
    d->w->floor = floor_below(DEEP_STACK);
    d->result = down_and_wait(d->w, d->n);
}

static long down_and_wait(walker *w, long n) {
    volatile char pad[512];
    if ((char *)__builtin_frame_address(0) < w->floor) {
        CHECK(lprt_deep_reserve(w->self, DEEP_STACK) == 0);
        deep_arg d = {w, n, 0};
        lprt_deep_call(w->self, wait_deep, &d);
        return d.result;
    }
    pad[0] = 1;
    if (n == 0) {
        lprt_send(w->parent, VAL(2));
        h_recv_num(w->self); /* never comes */
        return 0;
    }
    return down_and_wait(w, n - 1) + pad[0];
}

static void waiter(lprt_actor *self, void *ud) {
    walker w = {self, ud, floor_below(FIBER_STACK), 0};
    down_and_wait(&w, 2000);
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)ud;
    lprt *rt = lprt_runtime(self);
    enum { N = 8 };
    lprt_actor *kids[N];
    for (int i = 0; i < N; i++) {
        kids[i] = lprt_create_fiber(rt, walk, self, FIBER_STACK);
        lprt_start(kids[i]);
    }
    for (int i = 0; i < N; i++) CHECK(h_recv_num(self) == 1);
    lprt_actor *w = lprt_create_fiber(rt, waiter, self, FIBER_STACK);
    lprt_monitor(self, w);
    lprt_start(w);
    CHECK(h_recv_num(self) == 2);
    lprt_exit(self, w, LPRT_KILLED, NULL); /* killed on its deep stack: both stacks are freed */
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m && m->kind == LPRT_MSG_DOWN);
    lprt_msg_free(rt, m);
    for (int i = 0; i < N; i++) lprt_release(kids[i]);
    lprt_release(w);
}

int main(void) {
    for (int d = 1; d <= 2; d++) {
        lprt *rt = h_new(d);
        CHECK(h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 0)) == 0);
    }
    puts("t_deep ok");
    return 0;
}
