#!/usr/bin/python3
"""Reference values for the compare tests (tests/test_compare.c, CLI tests).

    /usr/bin/python3 tests/data/compare/make_fixtures.py

writes three.csv (a log with a regression, an improvement and an
equivalent case, 12 blocks, rows in rotated measurement order) and prints
expected.txt: per case med(b), med(c), med(d), delta %, speedup and the
confirmatory interval (R 10000, c 95, seed 0), computed with numpy only
(xorshift64* written out from SPEC §2.2; numpy.median per resample;
numpy.quantile method="linear" = type 7).
"""
import numpy as np

MASK = (1 << 64) - 1


def rng(seed):
    s = seed if seed else 0x9E3779B97F4A7C15
    while True:
        s ^= s >> 12
        s ^= (s << 25) & MASK
        s ^= s >> 27
        yield (s * 0x2545F4914F6CDD1D) & MASK


def ci(d, R=10000, c=95.0, seed=0):
    g = rng(seed)
    d = np.asarray(d)
    m = len(d)
    th = np.array([np.median(d[[next(g) % m for _ in range(m)]]) for _ in range(R)])
    th.sort()
    a = (100 - c) / 200
    return np.quantile(th, a, method="linear"), np.quantile(th, 1 - a, method="linear")


rs = np.random.RandomState(2024)
cases = [("sum", "n=65536", 10.0, 1.12), ("sort", "n=256", 50.0, 0.80),
         ("hash", "n=4096", 4.0, 1.0)]
rows = []
data = {}
for bench, ds, base, factor in cases:
    b = np.round(base * (1 + 0.02 * rs.standard_normal(12)), 4)
    c = np.round(base * factor * (1 + 0.02 * rs.standard_normal(12)), 4)
    data[(bench, ds)] = (b, c)
    for j in range(12):
        order = [("main", b[j]), ("pr", c[j])]
        if j % 2:
            order.reverse()
        for impl, v in order:
            rows.append(f"{bench},{ds},{impl},{j},{v:.4f}")
with open("three.csv", "w") as f:
    f.write("benchmark,dataset,impl,block,per_call_us\n")
    f.write("\n".join(rows) + "\n")
with open("expected.txt", "w") as f:
    for (bench, ds), (b, c) in sorted(data.items()):
        d = c - b
        # d as benchsite computes it: from the values printed in the CSV.
        b = np.array([float(f"{x:.4f}") for x in b])
        c = np.array([float(f"{x:.4f}") for x in c])
        d = c - b
        mb, mc, md = np.median(b), np.median(c), np.median(d)
        lo, hi = ci(d)
        f.write(f"{bench} {ds} {mb!r} {mc!r} {md!r} {100 * md / mb!r} "
                f"{mb / (mb + md)!r} {lo!r} {hi!r}\n")
