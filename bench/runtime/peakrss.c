/* peakrss.c — run a command and print its peak RSS (KiB) on stderr as
 * "peakrss_kb=N cpu_s=S" (S: its user + system CPU seconds). Linux carries ru_maxrss across execve, so a benchmark
 * started straight from a big parent (python) would report the parent's size;
 * forking from this small process gives the benchmark's own figure.       */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: peakrss command [args...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 127;
    fprintf(stderr, "peakrss_kb=%ld cpu_s=%.3f\n", ru.ru_maxrss,
            ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
