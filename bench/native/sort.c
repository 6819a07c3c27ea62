/* Sorting 1,000,000 integers: the same scramble as sort.lp, qsort. */
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { long x = *(const long *)a, y = *(const long *)b; return (x > y) - (x < y); }
int main(void) {
    long n = 1000000, *a = malloc(sizeof(long) * n);
    for (long i = 1; i <= n; i++) a[i - 1] = i * 7919 % 1000003;
    qsort(a, n, sizeof(long), cmp);
    printf("%ld\n%ld\n%ld\n", a[0], a[499999], a[999999]);
    free(a);
    return 0;
}
