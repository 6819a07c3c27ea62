"""String building: 1..100,000 joined by commas, one += at a time, the Python peer of strings.lp
(in a function: CPython appends to a local string in place)."""


def build(n):
    s = ""
    for i in range(1, n + 1):
        s += "," + str(i)
    return s


s = build(100000)
print(len(s))
print(s[-14:])
