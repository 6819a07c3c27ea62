/* t_det.c — deterministic mode: one seed gives one schedule (the same trace of
 * deliveries and virtual times, twice in a row), different seeds give
 * different schedules, virtual time skips sleeps, faults keep per-sender
 * order and never end a sleep early, and every run releases everything it
 * allocated. */
#include "harness.h"

#define WORKERS 8
#define ROUNDS 20

typedef struct {
    int index;
    unsigned rng;
} worker_arg;

static lprt_actor *t_collector; /* the running test's main actor */

static void worker(lprt_actor *self, void *ud) {
    worker_arg *w = ud;
    for (int r = 0; r < ROUNDS; r++) {
        if (h_rand(&w->rng) % 3 == 0) {
            /* faults (slow turns, late timers) never end a sleep before its deadline */
            int64_t ms = h_rand(&w->rng) % 50, before = lprt_now();
            lprt_sleep_ms(self, ms);
            CHECK(lprt_now() - before >= ms * 1000000);
        }
        if (h_rand(&w->rng) % 4 == 0) lprt_yield(self);
        lprt_send(t_collector, VAL(w->index * 1000 + r));
    }
}

typedef struct {
    uint64_t hash;
    long received;
    int64_t end_time;
    int faults;
    worker_arg args[WORKERS];
} run_state;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

static void collector(lprt_actor *self, void *ud) {
    run_state *s = ud;
    lprt *rt = lprt_runtime(self);
    long last[WORKERS];
    for (int i = 0; i < WORKERS; i++) last[i] = -1;
    for (int i = 0; i < WORKERS; i++) {
        s->args[i] = (worker_arg){i, (unsigned)(i * 7919 + 1)};
        lprt_actor *w = lprt_spawn_fiber(rt, worker, &s->args[i], 0);
        CHECK(w);
        lprt_release(w);
    }
    /* with faults a killed worker sends no more: stop when nothing came for a (virtual) minute */
    while (s->received < WORKERS * ROUNDS) {
        lprt_msg *m = lprt_receive(self, lprt_deadline_ms(60000));
        if (!m) {
            CHECK(s->faults);
            break;
        }
        long v = NUM(m->value);
        lprt_msg_free(rt, m);
        int who = (int)(v / 1000);
        CHECK(v % 1000 > last[who]); /* per-sender order holds, faults or not */
        if (!s->faults) CHECK(v % 1000 == last[who] + 1);
        last[who] = v % 1000;
        s->hash = mix(mix(s->hash, (uint64_t)v), (uint64_t)lprt_now());
        s->received++;
    }
    s->end_time = lprt_now();
}

static lprt *det_new(uint64_t seed, int faults) {
    lprt_config cfg = {.deterministic = 1, .seed = seed, .faults = faults};
    lprt_hooks hooks = {h_retain, h_release, h_on_exit, h_unobserved, NULL};
    return lprt_new(&cfg, &hooks);
}

static run_state run_seed(uint64_t seed, int faults) {
    run_state s = {.hash = 1469598103934665603ULL, .faults = faults};
    lprt *rt = det_new(seed, faults);
    CHECK(lprt_deterministic(rt) && lprt_domain_count(rt) == 1);
    lprt_actor *m = lprt_create_fiber(rt, collector, &s, 0);
    t_collector = m;
    CHECK(h_run(rt, m) == LPRT_NORMAL);
    return s;
}

static void sleeper(lprt_actor *self, void *ud) {
    int64_t t0 = lprt_now();
    lprt_sleep_ms(self, 10 * 60 * 1000);
    *(int64_t *)ud = lprt_now() - t0;
}

int main(void) {
    int seeds = SCALE(200);
    uint64_t distinct = 0, prev = 0;
    for (int f = 0; f <= 1; f++) {
        for (int seed = 1; seed <= seeds; seed++) {
            run_state a = run_seed((uint64_t)seed, f), b = run_seed((uint64_t)seed, f);
            if (a.hash != b.hash || a.end_time != b.end_time) fprintf(stderr, "seed %d f %d: %llx %ld %lld / %llx %ld %lld\n", seed, f, (unsigned long long)a.hash, a.received, (long long)a.end_time, (unsigned long long)b.hash, b.received, (long long)b.end_time);
            CHECK(a.hash == b.hash && a.received == b.received && a.end_time == b.end_time);
            if (!f) CHECK(a.received == WORKERS * ROUNDS);
            if (a.hash != prev) distinct++;
            prev = a.hash;
        }
    }
    CHECK(distinct > (uint64_t)seeds); /* seeds choose different schedules */

    /* ten virtual minutes of sleep take no real time */
    int64_t slept = 0;
    double t0 = h_secs();
    lprt *rt = det_new(7, 0);
    lprt_actor *m = lprt_create_fiber(rt, sleeper, &slept, 0);
    CHECK(h_run(rt, m) == LPRT_NORMAL);
    CHECK(slept >= 600000LL * 1000000LL);
    CHECK(h_secs() - t0 < 1.0);
    printf("t_det: %d seeds x 2 runs, with and without faults: identical per seed, %llu distinct\n", seeds,
           (unsigned long long)distinct);
    return 0;
}
