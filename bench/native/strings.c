/* String building: 1..100,000 joined by commas into a growing buffer, the C peer of strings.lp (gcc -O2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    size_t n = 0, cap = 16;
    char *s = malloc(cap), tmp[32];
    for (long i = 1; i <= 100000; i++) {
        int k = snprintf(tmp, sizeof tmp, ",%ld", i);
        if (n + (size_t)k + 1 > cap) { cap *= 2; s = realloc(s, cap); }
        memcpy(s + n, tmp, (size_t)k);
        n += (size_t)k;
    }
    s[n] = 0;
    printf("%zu\n%s\n", n, s + n - 14);
    free(s);
    return 0;
}
