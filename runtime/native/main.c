/* main.c — a native LP program's entry: run-time flags, then the program as the main actor (actors.c).
 * `--seed N` runs it in the runtime's deterministic mode (docs/testing.md), as `lp run --seed N`
 * does: one domain, virtual time, one schedule per seed; `--faults` / `--max-faults N` /
 * `--fault-rate R` add faults. `--observe [HOST:]PORT` serves the observer (docs/observer.md) from a
 * binary built with `lp build --observable`, which defines lpn_observable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lprt.h"
#include "lpn.h"

lpn_value lp_program_main(void);   /* generated: the main module's statements */
extern const int lpn_observable __attribute__((weak));   /* generated with the observer compiled in */

enum { MAX_DOMAINS = 1024 };   /* as lp run (lp/cli.py) */

static size_t main_stack = (size_t)1 << 30;   /* reserved, committed as it is used */

static void usage(const char *prog, const char *why) {
    fprintf(stderr, "usage: %s [--domains N] [--quiet] [--stack-limit N] [--observe [HOST:]PORT] [--seed N [--faults] [--max-faults N] [--fault-rate R]]\n%s: %s\n", prog, prog, why);
    exit(2);
}

/* A whole number from 1 to most, worded as `lp run` words its flags (lp/cli.py). */
static long positive(const char *prog, const char *flag, const char *text, long most, const char *most_text) {
    char *end, why[160];
    errno = 0;
    long n = text ? strtol(text, &end, 10) : 0;
    if (!text || !*text || *end) {
        snprintf(why, sizeof why, "%s expects a whole number, not '%.40s'", flag, text ? text : "");
        usage(prog, why);
    }
    if (errno == ERANGE || n < 1 || n > most) {
        snprintf(why, sizeof why, "%s must be from 1 to %s, not %.40s", flag, most_text, text);
        usage(prog, why);
    }
    return n;
}

static long long at_least(const char *prog, const char *flag, const char *text, long long least) {
    char *end;
    errno = 0;
    long long n = text ? strtoll(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || n < least) {
        char why[128];
        snprintf(why, sizeof why, "%s expects a whole number of at least %lld", flag, least);
        usage(prog, why);
    }
    return n;
}

int main(int argc, char **argv) {
    int domains = 0, quiet = 0; /* 0: one domain per core, as `lp run` (LANGUAGE.md) */
    lpn_sim sim = {0};
    int faults = 0;
    const char *observe = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--domains") == 0) domains = (int)positive(argv[0], "--domains", argv[++i], MAX_DOMAINS, "1,024");
        else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
        else if (strcmp(argv[i], "--stack-limit") == 0)
            lpn_depth_limit = positive(argv[0], "--stack-limit", argv[++i], LPN_MAX_STACK_LIMIT,
                                       "1,000,000,000");
        else if (strcmp(argv[i], "--seed") == 0) {
            sim.deterministic = 1;
            sim.seed = (uint64_t)at_least(argv[0], "--seed", argv[++i], 0);
        } else if (strcmp(argv[i], "--observe") == 0) {
            if (!(observe = argv[++i])) usage(argv[0], "--observe expects [HOST:]PORT");
            if (!&lpn_observable) usage(argv[0], "--observe needs a binary built with `lp build --observable`");
        } else if (strcmp(argv[i], "--faults") == 0) faults = 1;
        else if (strcmp(argv[i], "--max-faults") == 0) {
            faults = 1;
            sim.max_faults = (uint64_t)at_least(argv[0], "--max-faults", argv[++i], 1);
        } else if (strcmp(argv[i], "--fault-rate") == 0) {
            faults = 1;
            sim.fault_rate = (int)at_least(argv[0], "--fault-rate", argv[++i], 1);
            if (sim.fault_rate > 256) usage(argv[0], "--fault-rate expects a whole number from 1 to 256");
        } else {
            char why[256];
            snprintf(why, sizeof why, "unknown argument %.200s", argv[i]);
            usage(argv[0], why);
        }
    }
    if (faults && !sim.deterministic) usage(argv[0], "--faults, --max-faults and --fault-rate need --seed N");
    sim.faults = faults;
    if (observe && sim.deterministic)
        usage(argv[0], "--observe serves the page over the network, which deterministic mode (--seed) does not allow");
    if (observe) {
        int status = lpn_observe_setup(argv[0], observe);
        if (status) return status;
    }
    if ((size_t)lpn_depth_limit * 512 > main_stack) main_stack = (size_t)lpn_depth_limit * 512;
    return lpn_run_program(lp_program_main, domains, quiet, main_stack, &sim);
}
