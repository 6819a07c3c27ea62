/* fib 30 by plain recursion, the C peer of fib.lp (gcc -O2). */
#include <stdio.h>
static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { printf("%ld\n", fib(30)); return 0; }
