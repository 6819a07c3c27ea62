"""Mandelbrot escape counts over a 160 x 120 grid, the Python peer of mandel.lp."""
acc = 0
for py in range(120):
    for px in range(160):
        cr, ci = -2.0 + (px * 3.0 / 160.0), -1.2 + (py * 2.4 / 120.0)
        x = y = 0.0
        n = 0
        while not (n >= 100 or x * x + y * y > 4.0):
            x, y = x * x - y * y + cr, 2.0 * x * y + ci
            n += 1
        acc += n
print(acc)
