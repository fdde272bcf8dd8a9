#!/usr/bin/python3
"""Expected values for the history model tests of tests/test_history.c,
computed independently of benchsite (numpy, scipy and Python's math).

Run with Debian's python3 (python3-numpy, python3-scipy):
    /usr/bin/python3 tests/data/history/model.py

The history (the same as test_history.c builds in memory): eight runs in
date order; group a = machine a (r0 r1 r3 r4 r5), group b = machine b
(r2), group 2 = target cross and no machine (r6 r7, grouped by having
the same values and gaps). Chains follow SPEC 2.12 as history.h states
it: a link continues its group's previous link of the case when its
baseline commit is that link's commit; an acknowledged link restarts the
product after it.
"""
import math

import numpy as np
from scipy import stats

np.set_printoptions(precision=17)


def chain(deltas):
    """Chained index along deltas (percent), one chain."""
    return np.cumprod(1 + np.asarray(deltas) / 100.0)


# Case sort/n=1024 (X): links r0 r1 r3 | r5 (after r3's ack) in group a,
# r2 alone in group b, r6 r7 in group 2; r4 is no link (A/A, no delta).
print("X chain 0", repr(chain([1.0, 2.0, 1.5]).tolist()),
      "restart", repr(chain([1.2]).tolist()))
print("X chain 1", repr(chain([0.5]).tolist()))
x2 = chain([0.3, 5.0])
print("X chain 2", repr(x2.tolist()), "creep_pct", repr(100 * (x2[-1] - 1)))

# Case sum (Y): links r1 r3 r4 in group a, one chain.
y = chain([-1.0, 4.0, 0.5])
print("Y chain 0", repr(y.tolist()), "creep_pct", repr(100 * (y[-1] - 1)))

# Case zip (Z): links r0 r1 r3 in group a; r5's delta is NaN (no link).
z = chain([1.1, 1.1, 1.1])
print("Z chain 0", repr(z.tolist()), "creep_pct", repr(100 * (z[-1] - 1)))


def drift(x):
    """SPEC 2.8: rho = Spearman (mid-ranks against position), z =
    rho * sqrt(n - 1), p = erfc(|z| / sqrt 2); first, second = medians of
    the first and the last floor(n/2); shift = (second - first) / first."""
    n = len(x)
    rho = stats.spearmanr(x, np.arange(n)).correlation
    z = rho * math.sqrt(n - 1)
    p = math.erfc(abs(z) / math.sqrt(2))
    h = n // 2
    first, second = np.median(x[:h]), np.median(x[n - h:])
    return rho, z, p, first, second, (second - first) / first


# Z's medians in group a, date order (r0 r1 r3 r4 r5).
print("Z drift", [repr(float(v)) for v in drift([10.0, 10.1, 10.3, 10.4,
                                                   10.8])])
# Y's medians in group a (r0 r1 r3 r4), with a tie.
print("Y drift", [repr(float(v)) for v in drift([5.0, 5.2, 5.1, 5.2])])

# ---- bs_history_results: one run's results from its analysis -----------
MASK = (1 << 64) - 1


class XorShift64Star:
    """SPEC 2.2, written from its text."""

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
    """SPEC 2.4's percentile bootstrap of the median, each resample
    materialised and passed to numpy.median; type-7 quantiles."""
    g = XorShift64Star(seed)
    m = len(d)
    d = np.asarray(d, dtype=np.float64)
    th = np.empty(R)
    for r in range(R):
        idx = [g.next() % m for _ in range(m)]
        th[r] = np.median(d[idx])
    th.sort()
    a = (100.0 - c) / 200.0
    return (np.quantile(th, a, method="linear"),
            np.quantile(th, 1 - a, method="linear"))


# The candidate's (head's) confirm samples of case sort, and the only
# impl's of case solo, as test_history.c's log holds them; seed 7.
head = [100.5, 99.8, 101.2, 100.1, 100.9, 99.5, 100.3, 100.7, 99.9, 100.2,
        101.0, 100.4]
solo = [3.0, 3.2, 2.9, 3.1, 3.05]
for name, d in (("sort head", head), ("solo other", solo)):
    lo, hi = bootstrap(d, 2000, 95.0, 7)
    print(name, "median", repr(float(np.median(d))), "ci", repr(float(lo)),
          repr(float(hi)))
