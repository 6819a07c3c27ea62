"""The Python peer of dict.lp."""
d = {}
for i in range(1, 100001):
    d[i] = i * 2
print(len(d))
print(sum(d[i] for i in range(1, 100001)))
