/* t_deep.c — a fiber's deep stack (lprt_deep_call): C recursion far past a 64 KiB fiber stack
 * goes on on the fiber's deep stack, yields and blocks there (and migrates between domains),
 * comes back to its first stack with every frame intact; a fiber killed while deep frees both
 * stacks; a fiber parked with a deep stack finds it again, and frees it when killed parked.
 * Under ASan the switches are announced (fiber.c). */
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

#if !SANITIZED
/* Parked stacks (fiber.c; not under the sanitizers): past 10,000 live stacks a blocked fiber's used
   stack is copied aside, the word that holds its deep stack's address with it. */
enum { CROWD = 10100 };

static void sleeper(lprt_actor *self, void *ud) {
    lprt_send(ud, VAL(3));
    h_recv_num(self);
}

static void parked_walker(lprt_actor *self, void *ud) {
    walker w = {self, ud, floor_below(FIBER_STACK), 0};
    CHECK(down(&w, DEPTH) == (long)DEPTH * (DEPTH + 1) / 2);
    lprt_send(w.parent, VAL(4));
    h_recv_num(self); /* parked on its first stack */
    CHECK(down(&w, DEPTH) == (long)DEPTH * (DEPTH + 1) / 2 && w.went_deep == 2);
    lprt_send(w.parent, VAL(5));
    h_recv_num(self); /* parked again, and killed: its deep stack is unmapped */
}

static long vm_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmSize:", 7)) kib = atol(line + 7);
    if (f) fclose(f);
    return kib;
}

static void count_live(lprt_actor *a, void *arg) {
    (void)a;
    ++*(long *)arg;
}

static void crowd(lprt_actor *self) {
    lprt *rt = lprt_runtime(self);
    lprt_actor **many = malloc(CROWD * sizeof *many);
    for (int i = 0; i < CROWD; i++) {
        many[i] = lprt_create_fiber(rt, sleeper, self, FIBER_STACK);
        lprt_start(many[i]);
    }
    for (int i = 0; i < CROWD; i++) CHECK(h_recv_num(self) == 3);
    lprt_actor *w = lprt_create_fiber(rt, parked_walker, self, FIBER_STACK);
    lprt_start(w);
    CHECK(h_recv_num(self) == 4);
    lprt_stats st;
    lprt_get_stats(rt, &st);
    uint64_t maps = st.stack_maps;
    lprt_send(w, VAL(0));
    CHECK(h_recv_num(self) == 5);
    lprt_get_stats(rt, &st);
    CHECK(st.stack_maps == maps); /* the same deep stack, found again after the fiber was parked */
    lprt_sleep_ms(self, 1); /* the first timer starts the io thread, whose stack would count below */
    long before = vm_kib();
    lprt_exit(self, w, LPRT_KILLED, NULL);
    lprt_release(w);
    for (int tries = 0;; tries++) { /* until it has left the registry and freed its stacks */
        long live = 0;
        lprt_each_actor(rt, count_live, &live);
        if (live == CROWD + 1) break;
        CHECK(tries < 10000);
        lprt_sleep_ms(self, 1);
    }
    CHECK(before - vm_kib() >= DEEP_STACK / 1024);
    for (int i = 0; i < CROWD; i++) {
        lprt_send(many[i], VAL(0));
        lprt_release(many[i]);
    }
    free(many);
}
#endif

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
#if !SANITIZED
    crowd(self);
#endif
}

int main(void) {
    for (int d = 1; d <= 2; d++) {
        lprt *rt = h_new(d);
        CHECK(h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 0)) == 0);
    }
    puts("t_deep ok");
    return 0;
}
