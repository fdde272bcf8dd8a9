#!/usr/bin/python3
"""Expected values of the creep scan (SPEC §2.12) for tests/test_history.c,
computed with numpy independently of benchsite: for every trailing stretch
of w links (2 <= w <= min(links, 50)) of the links since the last restart,
l_w = sum(log1p(d/100)), s_w = sqrt(sum(s_j^2)) with
s_j = (log1p(U/100) - log1p(L/100)) / (2 * 1.96), z_w = l_w / s_w; w*
maximises |z_w| (the first, i.e. shortest, on ties); the size
100 * expm1(l_w*) and its interval 100 * expm1(l_w* -/+ 1.96 s_w*).

Run: /usr/bin/python3 tests/data/history/scan.py (prints the fixtures)."""
import numpy as np

np.set_printoptions(precision=17)


def scan(d, lo, hi):
    d, lo, hi = (np.asarray(v, dtype=float)[::-1] for v in (d, lo, hi))
    s = (np.log1p(hi / 100) - np.log1p(lo / 100)) / (2 * 1.96)
    w = min(len(d), 50)
    ell = np.cumsum(np.log1p(d[:w] / 100))
    sw = np.sqrt(np.cumsum(s[:w] ** 2))
    z = ell[1:] / sw[1:]
    k = int(np.argmax(np.abs(z)))  # first maximum: the shortest stretch
    l, sd = ell[k + 1], sw[k + 1]
    return {"w": k + 2, "z": repr(float(z[k])),
            "pct": repr(float(100 * np.expm1(l))),
            "lo": repr(float(100 * np.expm1(l - 1.96 * sd))),
            "hi": repr(float(100 * np.expm1(l + 1.96 * sd)))}


# "rising": ten links of +0.8 %, each interval +-0.9 %.
d = np.full(10, 0.8)
print("rising", scan(d, d - 0.9, d + 0.9))

# "mixed": twelve links, intervals of varied width, a fall in the middle.
d = np.array([0.3, -0.2, 1.1, 0.6, -1.4, 0.9, 1.2, 0.7, 1.0, 0.4, 0.8, 0.5])
half = np.array([0.5, 0.7, 0.4, 0.9, 0.6, 0.5, 0.3, 0.8, 0.6, 0.4, 0.7, 0.5])
print("mixed", scan(d, d - half, d + 0.8 * half))

# "long": 80 links from a seeded generator, the oldest 30 rising faster;
# only the newest 50 count (over all 80, w = 80 would have the largest |z|).
rng = np.random.default_rng(7)
d = np.round(rng.normal(0.15, 0.5, 80) + np.where(np.arange(80) < 30, 0.6, 0),
             3)
half = np.round(rng.uniform(0.6, 1.1, 80), 3)
print("long d", repr(d.tolist()))
print("long half", repr(half.tolist()))
print("long", scan(d, d - half, d + half))

dd, hh = d[::-1], half[::-1]
s = (np.log1p((dd + hh) / 100) - np.log1p((dd - hh) / 100)) / (2 * 1.96)
z = np.cumsum(np.log1p(dd / 100)) / np.sqrt(np.cumsum(s ** 2))
print("long, unbounded w* (must differ):", int(np.argmax(np.abs(z[1:]))) + 2)
