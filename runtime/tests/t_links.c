/* t_links.c — links, monitors, exit signals and trapping, racing deaths:
 * early and late registration, demonitor, kill of running / waiting actors,
 * propagation along link chains, unobserved-death reports. */
#include "harness.h"

typedef struct {
    int yields;  /* turns before ending */
    int kind;    /* how it ends: NORMAL / ERROR; -1 = loop forever (until killed) */
    long code;   /* error value */
    bool block;  /* after the yields, block on receive instead of ending */
} script;

static int scripted(lprt_actor *self, void *ud) {
    script *s = ud;
    if (s->yields > 0) {
        s->yields--;
        return LPRT_YIELD;
    }
    if (s->kind < 0) {
        while (!lprt_reductions(self, 1)) {
        }
        return LPRT_YIELD;
    }
    if (s->block) {
        lprt_wait_receive(self, UINT64_MAX - 1, -1); /* nothing ever matches: waits until killed */
        return LPRT_BLOCK;
    }
    if (s->kind == LPRT_ERROR) lprt_set_exit_reason(self, LPRT_ERROR, VAL(s->code));
    return LPRT_DONE;
}

static lprt_msg *recv_kind(lprt_actor *self, int kind) {
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m->kind == kind);
    return m;
}

/* monitor / demonitor racing the death */
static void monitor_race(lprt_actor *self, unsigned *seed, int iters) {
    lprt *rt = lprt_runtime(self);
    for (int i = 0; i < iters; i++) {
        script s = {(int)(h_rand(seed) % 3), h_rand(seed) % 2 ? LPRT_ERROR : LPRT_NORMAL, i, false};
        bool kill = h_rand(seed) % 3 == 0;
        lprt_actor *v = lprt_spawn_step(rt, scripted, &s);
        for (unsigned k = h_rand(seed) % 3; k > 0; k--) lprt_yield(self);
        if (kill) lprt_exit(self, v, LPRT_KILLED, NULL);
        uint64_t ref = lprt_monitor(self, v);
        bool demon = h_rand(seed) % 4 == 0;
        int expect = 1;
        if (demon && lprt_demonitor(v, ref)) expect = 0;
        uint64_t ref2 = lprt_monitor(self, v);
        expect++;
        int got = 0;
        while (got < expect) {
            lprt_msg *m = recv_kind(self, LPRT_MSG_DOWN);
            CHECK(m->ref == ref2 || (m->ref == ref && expect == 2));
            CHECK(m->actor == v);
            int rk = m->reason.kind;
            /* a kill may land after the actor already finished by itself */
            if (rk == LPRT_KILLED) CHECK(kill);
            else CHECK(rk == s.kind);
            if (rk == LPRT_ERROR) CHECK(NUM(m->reason.value) == i);
            void *rv;
            CHECK(lprt_dead_reason(v, &rv) == rk);
            lprt_msg_free(rt, m);
            got++;
        }
        lprt_release(v);
    }
}

/* a chain of linked actors; one dies with ERROR; all others follow, a trapping end survives */
static void link_chain(lprt_actor *self, unsigned *seed, int n) {
    lprt *rt = lprt_runtime(self);
    lprt_actor *as[64];
    script ss[64];
    uint64_t refs[64];
    for (int i = 0; i < n; i++) {
        ss[i] = (script){(int)(h_rand(seed) % 4), LPRT_NORMAL, 0, true};
        as[i] = lprt_create_step(rt, scripted, &ss[i]);
        refs[i] = lprt_monitor(self, as[i]);
        if (i > 0) CHECK(lprt_link(as[i], as[i - 1]) == LPRT_OK);
    }
    lprt_trap_exits(self, 1);
    CHECK(lprt_link(self, as[n - 1]) == LPRT_OK);
    for (int i = 0; i < n; i++) lprt_start(as[i]);
    int victim = (int)(h_rand(seed) % (unsigned)n);
    lprt_exit(NULL, as[victim], LPRT_ERROR, VAL(4242));
    int downs = 0, exits = 0;
    while (downs < n || exits < 1) {
        lprt_msg *m = lprt_receive(self, -1);
        if (m->kind == LPRT_MSG_DOWN) {
            CHECK(m->reason.kind == LPRT_ERROR && NUM(m->reason.value) == 4242);
            bool known = false;
            for (int i = 0; i < n; i++) known |= m->ref == refs[i];
            CHECK(known);
            downs++;
        } else {
            CHECK(m->kind == LPRT_MSG_EXIT && m->actor == as[n - 1]);
            CHECK(m->reason.kind == LPRT_ERROR && NUM(m->reason.value) == 4242);
            exits++;
        }
        lprt_msg_free(rt, m);
    }
    lprt_trap_exits(self, 0);
    for (int i = 0; i < n; i++) lprt_release(as[i]);
}

/* link racing an error death: non-trapping linker dies or gets EDEAD; trapping gets one EXIT */
typedef struct {
    lprt_actor *target;
    bool trap;
    int result;
} linker_arg;

static void linker(lprt_actor *self, void *ud) {
    linker_arg *a = ud;
    if (a->trap) lprt_trap_exits(self, 1);
    a->result = lprt_link(self, a->target);
    if (!a->trap) {
        if (a->result == LPRT_EDEAD) return; /* normal end */
        lprt_wait_receive(self, 0, -1);      /* wait to be killed by the link */
        lprt_suspend(self);
        CHECK(!"linked actor survived an error death");
    }
    lprt_msg *m = lprt_receive(self, -1);
    CHECK(m->kind == LPRT_MSG_EXIT && m->actor == a->target && m->reason.kind == LPRT_ERROR);
    lprt_msg_free(lprt_runtime(self), m);
    CHECK(lprt_receive(self, lprt_deadline_ms(1)) == NULL); /* exactly one */
}

static void link_race(lprt_actor *self, unsigned *seed, int iters) {
    lprt *rt = lprt_runtime(self);
    for (int i = 0; i < iters; i++) {
        script s = {(int)(h_rand(seed) % 3), LPRT_ERROR, 7, false};
        lprt_actor *t = lprt_spawn_step(rt, scripted, &s);
        linker_arg la = {t, h_rand(seed) % 2 == 0, 99};
        lprt_actor *l = lprt_create_fiber(rt, linker, &la, 0);
        uint64_t ref = lprt_monitor(self, l);
        lprt_start(l);
        lprt_msg *m = recv_kind(self, LPRT_MSG_DOWN);
        CHECK(m->ref == ref);
        if (la.trap) CHECK(m->reason.kind == LPRT_NORMAL);
        else if (la.result == LPRT_OK) CHECK(m->reason.kind == LPRT_ERROR && NUM(m->reason.value) == 7);
        else CHECK(la.result == LPRT_EDEAD && m->reason.kind == LPRT_NORMAL);
        lprt_msg_free(rt, m);
        lprt_release(l);
        lprt_release(t);
    }
}

/* kills: a CPU-bound running actor, a waiting one, trapping ones */
static void kills(lprt_actor *self) {
    lprt *rt = lprt_runtime(self);
    script spin = {0, -1, 0, false}, wait = {0, LPRT_NORMAL, 0, true};
    lprt_actor *a = lprt_spawn_step(rt, scripted, &spin);
    lprt_actor *b = lprt_spawn_step(rt, scripted, &wait);
    lprt_actor *c = lprt_create_step(rt, scripted, &wait);
    lprt_trap_exits(c, 1);
    lprt_start(c);
    uint64_t ra = lprt_monitor(self, a), rb = lprt_monitor(self, b), rc = lprt_monitor(self, c);
    lprt_sleep_ms(self, 2);
    lprt_exit(self, c, LPRT_NORMAL, NULL);       /* trapped: becomes a message */
    lprt_exit(self, c, LPRT_ERROR, VAL(5));      /* trapped too */
    lprt_exit(self, b, LPRT_NORMAL, NULL);       /* ignored: b does not trap */
    lprt_exit(self, a, LPRT_KILLED, NULL);
    lprt_exit(self, b, LPRT_ERROR, VAL(6));
    for (int i = 0; i < 2; i++) {
        lprt_msg *m = recv_kind(self, LPRT_MSG_DOWN);
        if (m->ref == ra) CHECK(m->reason.kind == LPRT_KILLED);
        else CHECK(m->ref == rb && m->reason.kind == LPRT_ERROR && NUM(m->reason.value) == 6);
        lprt_msg_free(rt, m);
    }
    if (lprt_state(c) == LPRT_ST_DEAD) fprintf(stderr, "c dead: %d\n", lprt_dead_reason(c, NULL));
    CHECK(lprt_state(c) != LPRT_ST_DEAD);
    CHECK(lprt_mbox_len(c) == 2);
    lprt_exit(self, c, LPRT_KILLED, NULL); /* untrappable */
    lprt_msg *m = recv_kind(self, LPRT_MSG_DOWN);
    CHECK(m->ref == rc && m->reason.kind == LPRT_KILLED);
    lprt_msg_free(rt, m);
    /* late: link to dead, monitor dead */
    CHECK(lprt_link(self, a) == LPRT_EDEAD);
    lprt_trap_exits(self, 1);
    CHECK(lprt_link(self, b) == LPRT_EXIT_DELIVERED);
    m = recv_kind(self, LPRT_MSG_EXIT);
    CHECK(m->actor == b && m->reason.kind == LPRT_ERROR && NUM(m->reason.value) == 6);
    lprt_msg_free(rt, m);
    lprt_trap_exits(self, 0);
    uint64_t r2 = lprt_monitor(self, c);
    m = recv_kind(self, LPRT_MSG_DOWN);
    CHECK(m->ref == r2 && m->reason.kind == LPRT_KILLED);
    lprt_msg_free(rt, m);
    lprt_release(a);
    lprt_release(b);
    lprt_release(c);
}

static void unobserved(lprt_actor *self, unsigned *seed) {
    lprt *rt = lprt_runtime(self);
    long before = atomic_load(&h_unobserved_n);
    script s[10];
    lprt_actor *w[10];
    uint64_t refs[10];
    int expect = 0;
    for (int i = 0; i < 10; i++) {
        s[i] = (script){(int)(h_rand(seed) % 2), i % 2 ? LPRT_ERROR : LPRT_NORMAL, i, false};
        if (s[i].kind == LPRT_ERROR) expect++;
        w[i] = lprt_spawn_step(rt, scripted, &s[i]);
    }
    for (int i = 0; i < 10; i++)
        while (lprt_state(w[i]) != LPRT_ST_DEAD) lprt_sleep_ms(self, 1);
    while (atomic_load(&h_unobserved_n) - before < expect) lprt_sleep_ms(self, 1);
    for (int i = 0; i < 10; i++) {
        refs[i] = lprt_monitor(self, w[i]); /* late: does not count as observing the death */
        lprt_msg *m = recv_kind(self, LPRT_MSG_DOWN);
        CHECK(m->ref == refs[i]);
        lprt_msg_free(rt, m);
        lprt_release(w[i]);
    }
    CHECK(atomic_load(&h_unobserved_n) - before == expect);
}

typedef struct {
    int iters;
    unsigned seed;
} margs;

static void unobserved_main(lprt_actor *self, void *ud) {
    margs *a = ud;
    for (int i = 0; i < 20; i++) unobserved(self, &a->seed);
}

static void main_fiber(lprt_actor *self, void *ud) {
    margs *a = ud;
    monitor_race(self, &a->seed, a->iters);
    for (int i = 0; i < SCALE(40); i++) link_chain(self, &a->seed, 2 + (int)(h_rand(&a->seed) % 30));
    link_race(self, &a->seed, a->iters / 2);
    for (int i = 0; i < 20; i++) kills(self);
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        margs a = {SCALE(2000), (unsigned)d * 31 + 7};
        lprt *rt = h_new(h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, main_fiber, &a, 0));
        /* unobserved deaths, in a runtime of their own to count exactly */
        rt = h_new(h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, unobserved_main, &a, 0));
    }
    printf("ok\n");
    return 0;
}
