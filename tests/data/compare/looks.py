#!/usr/bin/python3
"""The adaptive looks' spending rule (src/stats/include/benchsite/compare.h:
BS_LOOK0_LEVEL_PCT, BS_LOOK_EXTRA_LEVEL_PCT), checked independently.

Under identical code the looks' standardised changes Z_1..Z_4, at 1, 2, 3
and 4 times the planned runs, are normal with correlation sqrt(i/j)
(cumulative data). The gate flags at look k when Z_k passes the one-sided
boundary of that look's interval level; the chance that some look does,
whatever stopped the case, must be at most 2.5 % (a single look's), and
the boundary should not waste it (at least 2.45 %). Looks closer together
(fewer extra runs) are more correlated and spend less; checked too.
Exit 77 (skipped) without Debian's numpy and scipy.
"""
import sys

try:
    import numpy as np
    from scipy.stats import multivariate_normal, norm
except ImportError:
    sys.exit(77)

LOOK0, EXTRA = 96.0, 99.3  # the interval levels, two-sided, in %


def spent(times):
    t = np.asarray(times, dtype=float)
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    z = [norm.ppf(1 - (100 - LOOK0) / 200)]
    z += [norm.ppf(1 - (100 - EXTRA) / 200)] * (len(t) - 1)
    below = multivariate_normal(mean=np.zeros(len(t)), cov=cov).cdf(z)
    return 1 - below


full = spent([1, 2, 3, 4])
print(f"looks at 1, 2, 3, 4 x the planned runs: {100 * full:.4f} % spent")
ok = 0.0245 <= full <= 0.025
for times in ([1, 1.5, 2, 2.5], [1, 4 / 3, 5 / 3, 2], [1, 2], [1, 2, 3]):
    s = spent(times)
    print(f"looks at {times}: {100 * s:.4f} %")
    ok = ok and s <= full + 1e-5
sys.exit(0 if ok else 1)
