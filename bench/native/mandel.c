/* Mandelbrot escape counts over a 160 x 120 grid, the C peer of mandel.lp (gcc -O2). */
#include <stdio.h>
int main(void) {
    long acc = 0;
    for (int py = 0; py < 120; py++)
        for (int px = 0; px < 160; px++) {
            double cr = -2.0 + ((double)px * 3.0 / 160.0), ci = -1.2 + ((double)py * 2.4 / 120.0);
            double x = 0.0, y = 0.0;
            int n = 0;
            while (!(n >= 100 || x * x + y * y > 4.0)) {
                double nx = x * x - y * y + cr;
                y = 2.0 * x * y + ci;
                x = nx;
                n++;
            }
            acc += n;
        }
    printf("%ld\n", acc);
    return 0;
}
