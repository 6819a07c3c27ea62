/* main.c — a native LP program's entry: run-time flags, the runtime, the main actor on a fiber, exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lprt.h"
#include "lpn.h"

lpn_value lp_program_main(void);   /* generated: the main module's statements */

static int status;
static size_t main_stack = (size_t)1 << 30;   /* reserved, committed as it is used */

static void usage(const char *prog, const char *why) {
    fprintf(stderr, "usage: %s [--domains N] [--quiet] [--stack-limit N]\n%s: %s\n", prog, prog, why);
    exit(2);
}

static long positive(const char *prog, const char *flag, const char *text) {
    char *end;
    long n = text ? strtol(text, &end, 10) : 0;
    if (!text || *end || n < 1) {
        char why[128];
        snprintf(why, sizeof why, "%s expects a whole number of at least 1", flag);
        usage(prog, why);
    }
    return n;
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)self; (void)ud;
    lpn_value r = lp_program_main();
    if (r.cls == LPN_UNWIND) {
        lpn_report_uncaught();
        status = 1;
    } else {
        lpn_drop(r);
    }
    lpn_flush();
}

int main(int argc, char **argv) {
    int domains = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--domains") == 0) domains = (int)positive(argv[0], "--domains", argv[++i]);
        else if (strcmp(argv[i], "--quiet") == 0) ;
        else if (strcmp(argv[i], "--stack-limit") == 0)
            lpn_depth_limit = positive(argv[0], "--stack-limit", argv[++i]);
        else {
            char why[256];
            snprintf(why, sizeof why, "unknown argument %.200s", argv[i]);
            usage(argv[0], why);
        }
    }
    if ((size_t)lpn_depth_limit * 512 > main_stack) main_stack = (size_t)lpn_depth_limit * 512;
    lprt_config cfg = {.domains = domains, .budget = 0, .fiber_stack = 0};
    lprt *rt = lprt_new(&cfg, NULL);
    if (!rt) {
        fputs("lp: cannot start the runtime\n", stderr);
        return 2;
    }
    lprt_actor *m = lprt_create_fiber(rt, main_fiber, NULL, main_stack);
    lprt_run(rt, m);
    lprt_release(m);
    lprt_free(rt);
    return status;
}
