#!/usr/bin/python3
"""Independent reference values for tests/test_quantile.c and
tests/test_bootstrap.c.

Run with Debian's python3 (numpy from python3-numpy):
    /usr/bin/python3 tests/data/stats/make_fixtures.py > tests/data/stats/fixtures.txt
Nothing here shares code with benchsite: xorshift64* is written from the
SPEC §2.2 text, medians and quantiles come from numpy (method="linear" is
Hyndman & Fan type 7), and each bootstrap resample is materialised and
passed to numpy.median.
"""
import numpy as np

MASK = (1 << 64) - 1


class XorShift64Star:
    def __init__(self, seed):
        self.s = seed if seed != 0 else 0x9E3779B97F4A7C15

    def next(self):
        s = self.s
        s ^= s >> 12
        s ^= (s << 25) & MASK
        s ^= s >> 27
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & MASK


def bootstrap(d, R, c, seed):
    g = XorShift64Star(seed)
    m = len(d)
    d = np.asarray(d, dtype=np.float64)
    th = np.empty(R)
    for r in range(R):
        idx = [g.next() % m for _ in range(m)]
        th[r] = np.median(d[idx])
    th.sort()
    a = (100.0 - c) / 200.0
    return np.quantile(th, a, method="linear"), np.quantile(th, 1 - a, method="linear")


print("# xorshift64* first five outputs")
for seed in (0, 1, (1 << 63) + 5):
    g = XorShift64Star(seed)
    print("rng", seed, " ".join(str(g.next()) for _ in range(5)))

print("# type-7 quantiles: data | f | value")
qdata = [3.5, 1.25, 9.0, 4.0, 4.0, 7.75, 2.0]
for f in (0.0, 0.1, 0.25, 0.5, 0.9, 0.975, 1.0):
    print("quantile", f, repr(float(np.quantile(qdata, f, method="linear"))))

# Paired deltas: deterministic pseudo-data, written out in full below.
rs = np.random.RandomState(12345)
d7 = [round(x, 6) for x in rs.normal(0.5, 1.0, 7)]
d20 = [round(x, 6) for x in rs.normal(2.0, 3.0, 20)]
d6 = [1.0, 1.0, 2.0, 2.0, 2.0, 5.0]  # many ties
print("d7", " ".join(repr(x) for x in d7))
print("d20", " ".join(repr(x) for x in d20))
print("d6", " ".join(repr(x) for x in d6))
for name, d, R, c, seed in (("d7", d7, 1000, 95.0, 42),
                             ("d20", d20, 10000, 95.0, 0),
                             ("d20", d20, 2000, 90.0, 7),
                             ("d6", d6, 500, 80.0, 3)):
    lo, hi = bootstrap(d, R, c, seed)
    print("boot", name, R, c, seed, repr(float(lo)), repr(float(hi)))
