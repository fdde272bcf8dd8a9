#!/usr/bin/python3
"""Reference values for adaptive looks and the between-run spread
(tests/test_compare.c: compare.looks_and_between_run_spread_match_numpy).

    cd tests/data/compare && /usr/bin/python3 make_looks.py

writes looks.csv, a log with the `look` column of an adaptive run: case
`once` measured in the 5 planned runs (look 0), case `twice` in 5 more
(look 1), case `thrice` in 10 more (looks 1 and 2), and `plain` without a
look (the column empty), each run 4 blocks; and looks_expected.txt: per
case the level its last look uses (96 % after look 0, 99.3 % after extra
looks, 95 % without looks), its interval at that level (R 10000, seed 0,
numpy only: xorshift64* written out from SPEC §2.2, numpy.median per
resample, numpy.quantile method="linear" = type 7), and the spread
(max - min) of the per-run paired changes 100 med(d_r) / med(b_r) ("nan"
under 3 runs).
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


def ci(d, c, R=10000, seed=0):
    g = rng(seed)
    d = np.asarray(d)
    m = len(d)
    th = np.array([np.median(d[[next(g) % m for _ in range(m)]])
                   for _ in range(R)])
    th.sort()
    a = (100 - c) / 200
    return (np.quantile(th, a, method="linear"),
            np.quantile(th, 1 - a, method="linear"))


rs = np.random.RandomState(33)
# (case, runs, look of run r (None: no look), level of its last look)
cases = [("once", 5, lambda r: 0, 96.0),
         ("twice", 10, lambda r: 0 if r < 5 else 1, 99.3),
         ("thrice", 20, lambda r: 0 if r < 5 else 1 if r < 10 else 2, 99.3),
         ("plain", 2, lambda r: None, 95.0)]
rows = []
expected = []
for name, runs, look, level in cases:
    b, c, run_of = [], [], []
    for r in range(runs):
        shift = 1 + 0.03 * rs.standard_normal()  # this run's layout
        for j in range(4):
            vb = round(10 * (1 + 0.01 * rs.standard_normal()), 4)
            vc = round(10 * shift * (1 + 0.01 * rs.standard_normal()), 4)
            lk = look(r)
            lk = "" if lk is None else str(lk)
            rows.append(f"{name},main,{r},{j},{lk},{vb:.4f}")
            rows.append(f"{name},pr,{r},{j},{lk},{vc:.4f}")
            b.append(vb)
            c.append(vc)
            run_of.append(r)
    b, c, run_of = np.array(b), np.array(c), np.array(run_of)
    d = c - b
    lo, hi = ci(d, level)
    per_run = [100 * (np.median(d[run_of == r]) / np.median(b[run_of == r]))
               for r in range(runs)]
    spread = max(per_run) - min(per_run) if runs >= 3 else float("nan")
    expected.append(f"{name} {level!r} {lo!r} {hi!r} {spread!r}")
with open("looks.csv", "w") as f:
    f.write("benchmark,impl,run,block,look,per_call_us\n")
    f.write("\n".join(rows) + "\n")
with open("looks_expected.txt", "w") as f:
    f.write("\n".join(expected) + "\n")
