/* The C peer of dict.lp: 100,000 inserts into an open-addressing hash table, then lookups. */
#include <stdio.h>
#include <stdlib.h>
#define CAP (1 << 18)
static long keys[CAP], vals[CAP];
static char used[CAP];
static unsigned long h(long k) { unsigned long x = (unsigned long)k * 0x9E3779B97F4A7C15UL; return x >> 46; }
static void put(long k, long v) { unsigned long i = h(k); while (used[i] && keys[i] != k) i = (i + 1) & (CAP - 1); used[i] = 1; keys[i] = k; vals[i] = v; }
static long get(long k) { unsigned long i = h(k); while (keys[i] != k) i = (i + 1) & (CAP - 1); return vals[i]; }
int main(void) {
    long n = 0, s = 0;
    for (long i = 1; i <= 100000; i++) { put(i, i * 2); n++; }
    for (long i = 1; i <= 100000; i++) s += get(i);
    printf("%ld\n%ld\n", n, s);
    return 0;
}
