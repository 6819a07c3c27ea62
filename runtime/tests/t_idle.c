/* t_idle.c — an idle runtime sleeps: over one idle second (actors blocked on
 * receives and on a long timer) the process uses < 1% of a CPU. */
#include "harness.h"

#include <sys/resource.h>

static double cpu_secs(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void blocked(lprt_actor *self, void *ud) {
    lprt_msg *m = lprt_receive(self, ud ? lprt_deadline_ms(60000) : -1);
    if (m) lprt_msg_free(lprt_runtime(self), m);
}

static void main_fiber(lprt_actor *self, void *ud) {
    lprt *rt = lprt_runtime(self);
    double *used = ud;
    for (int i = 0; i < 20; i++) lprt_release(lprt_spawn_fiber(rt, blocked, i % 2 ? (void *)1 : NULL, 0));
    lprt_sleep_ms(self, 100); /* let everything settle */
    lprt_stats s0, s1;
    lprt_get_stats(rt, &s0);
    double c0 = cpu_secs(), t0 = h_secs();
    lprt_sleep_ms(self, 1000);
    *used = (cpu_secs() - c0) / (h_secs() - t0);
    lprt_get_stats(rt, &s1);
    printf("  domains=%d idle cpu %.3f%% parks %llu\n", lprt_domain_count(rt), *used * 100,
           (unsigned long long)(s1.parks - s0.parks));
}

int main(void) {
    for (size_t d = 0; d < 3; d++) {
        double used = 1;
        lprt *rt = h_new(h_domain_counts[d]);
        h_run(rt, lprt_create_fiber(rt, main_fiber, &used, 0));
        /* sanitizer runtimes keep their own background thread busy */
        CHECK(used < (SANITIZED ? 0.05 : 0.01));
    }
    printf("ok\n");
    return 0;
}
