"""Sorting 1,000,000 integers: the same scramble as sort.lp."""
a = [i * 7919 % 1000003 for i in range(1, 1000001)]
s = sorted(a)
print(s[0]); print(s[499999]); print(s[999999])
