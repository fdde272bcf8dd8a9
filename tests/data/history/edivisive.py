#!/usr/bin/env python3
"""The E-divisive statistic of the change-point search (Matteson & James
2014, alpha = 1), brute force with numpy, on four seeded series: for each
split tau (each side at least 2 values) Q(tau) = a*b/(a+b) * (2/(a*b) *
sum|x_i - y_j| - C(a,2)^-1 sum_{i<k}|x_i - x_k| - C(b,2)^-1 sum_{j<k}|y_j
- y_k|), a = tau, b = m - tau; prints each series as a C array and the
largest Q with its first tau, as pasted into tests/test_history.c
("the_edivisive_statistic_matches_numpy").

    /usr/bin/python3 tests/data/history/edivisive.py
"""
import numpy as np


def q_of(x, tau):
    a, b = tau, len(x) - tau
    left, right = x[:tau], x[tau:]
    between = np.abs(np.subtract.outer(left, right)).sum()
    wl = np.abs(np.subtract.outer(left, left)).sum() / 2  # pairs i < k
    wr = np.abs(np.subtract.outer(right, right)).sum() / 2
    e = 2 * between / (a * b) - wl / (a * (a - 1) / 2) - wr / (b * (b - 1) / 2)
    return a * b / (a + b) * e


def best(x):
    qs = [(q_of(x, t), t) for t in range(2, len(x) - 1)]
    top = max(q for q, _ in qs)
    return top, min(t for q, t in qs if q == top)


def series():
    rng = np.random.default_rng(2024)
    yield "step", np.round(np.r_[10 + 0.2 * rng.standard_normal(18),
                                 11 + 0.2 * rng.standard_normal(12)], 4)
    yield "ties", rng.integers(1, 4, 17).astype(float)
    yield "two", np.round(np.r_[5 + rng.standard_normal(15),
                                6 + rng.standard_normal(10),
                                4.5 + rng.standard_normal(15)], 4)
    yield "four", np.array([3.0, 1.0, 4.0, 1.5])


for name, x in series():
    q, t = best(x)
    print("static const double ed_%s[%d] = {%s};" %
          (name, len(x), ", ".join("%.17g" % v for v in x)))
    print("/* %s: Q = %.17g at tau = %d */" % (name, q, t))
