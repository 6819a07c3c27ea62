/* main.c — a native LP program's entry: run-time flags, then the program as the main actor (actors.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lprt.h"
#include "lpn.h"

lpn_value lp_program_main(void);   /* generated: the main module's statements */

enum { MAX_DOMAINS = 1024 };   /* as lp run (lp/cli.py) */

static size_t main_stack = (size_t)1 << 30;   /* reserved, committed as it is used */

static void usage(const char *prog, const char *why) {
    fprintf(stderr, "usage: %s [--domains N] [--quiet] [--stack-limit N]\n%s: %s\n", prog, prog, why);
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

int main(int argc, char **argv) {
    int domains = 1, quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--domains") == 0) domains = (int)positive(argv[0], "--domains", argv[++i], MAX_DOMAINS, "1,024");
        else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
        else if (strcmp(argv[i], "--stack-limit") == 0)
            lpn_depth_limit = positive(argv[0], "--stack-limit", argv[++i], LPN_MAX_STACK_LIMIT,
                                       "1,000,000,000");
        else {
            char why[256];
            snprintf(why, sizeof why, "unknown argument %.200s", argv[i]);
            usage(argv[0], why);
        }
    }
    if ((size_t)lpn_depth_limit * 512 > main_stack) main_stack = (size_t)lpn_depth_limit * 512;
    return lpn_run_program(lp_program_main, domains, quiet, main_stack);
}
