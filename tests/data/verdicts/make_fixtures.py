#!/usr/bin/python3
"""Reference values for the verdict refinements (tests/test_verdicts.c).

    cd tests/data/verdicts && /usr/bin/python3 make_fixtures.py

Written from the definitions alone, with numpy only (xorshift64* written
out; numpy.median per resample; numpy.quantile method="linear" = type 7).
It writes the logs five.csv (compare), aa.csv (A/A) and tune.csv, and
expected.txt with one line per figure:

  compare BENCH DATASET p_value holm_p bh_q sig_reg sig_imp fam_reg L U
  noise BENCH DATASET paired_floor median_pairs blocks_for_gate
  suite suite_false_alarm_rate
  tune BENCH DATASET best runner_up L U decisive
  cross BENCH A B decisive

compare: confirmatory (R 10000, c 95, seed 0, delta 3 %);
p = (1 + #{theta* <= 0}) / (R + 1) from the interval's own theta*; Holm
and BH over the five cases, sorted by p with ties by (benchmark, dataset).
noise: the paired extension per run (B baseline, A candidate, R 10000, c 95,
seed 0 for every run); floor = type-7 Q(0.90) of |delta%_k|; m = median of
the pairs per run; blocks = ceil(m (F/3)^2); the suite rate over the run
ids present in any case. tune: best vs runner-up paired by (run, block),
best = candidate, R 2000, c 95, seed 0; a crossover is decisive when the
interval of med(b - a) excludes zero at both of its scales.
"""
import math

import numpy as np

MASK = (1 << 64) - 1


def rng(seed):
    s = seed if seed else 0x9E3779B97F4A7C15
    while True:
        s ^= s >> 12
        s ^= (s << 25) & MASK
        s ^= s >> 27
        yield (s * 0x2545F4914F6CDD1D) & MASK


def boot(d, R, c=95.0, seed=0):
    g = rng(seed)
    d = np.asarray(d, dtype=float)
    m = len(d)
    th = np.array([np.median(d[[next(g) % m for _ in range(m)]])
                   for _ in range(R)])
    th.sort()
    a = (100 - c) / 200
    lo = np.quantile(th, a, method="linear")
    hi = np.quantile(th, 1 - a, method="linear")
    return lo, hi, int(np.sum(th <= 0))


def q7(x, f):
    return float(np.quantile(np.asarray(x, dtype=float), f, method="linear"))


def r4(x):
    return float(f"{x:.4f}")


rs = np.random.RandomState(11)
out = []

# ---- compare: five cases, 12 blocks ------------------------------------
M = 12
cases = [("alpha", "n=1", 10.0, 1.20, 0.02),   # planted 20 % regression
         ("alpha", "n=2", 10.0, 1.00, 0.02),   # equivalent
         ("beta", "", 20.0, 1.04, 0.06),       # slower, noisy
         ("gamma", "x", 5.0, 0.85, 0.02),      # improvement
         ("gamma", "y", 5.0, 1.00, 0.02)]      # equivalent
rows = []
res = []
for bench, ds, base, factor, sd in cases:
    b = [r4(base * (1 + sd * rs.standard_normal())) for _ in range(M)]
    c = [r4(base * factor * (1 + sd * rs.standard_normal())) for _ in range(M)]
    for j in range(M):
        order = [("main", b[j]), ("pr", c[j])]
        if j % 2:
            order.reverse()
        for impl, v in order:
            rows.append(f"{bench},{ds},{impl},{j},{v:.4f}")
    b, c = np.array(b), np.array(c)
    d = c - b
    mb, md = np.median(b), np.median(d)
    dp = 100 * (md / mb)
    lo, hi, npos = boot(d, 10000)
    p = (1 + npos) / 10001
    res.append([bench, ds, p, dp, lo, hi])
with open("five.csv", "w") as f:
    f.write("benchmark,dataset,impl,block,per_call_us\n")
    f.write("\n".join(rows) + "\n")
K = len(res)
order = sorted(range(K), key=lambda i: (res[i][2], res[i][0].encode(),
                                        res[i][1].encode()))
holm = [0.0] * K
bh = [0.0] * K
run = 0.0
for j, i in enumerate(order):          # j is 0-based: (K - j) = K - (j+1) + 1
    run = max(run, (K - j) * res[i][2])
    holm[i] = min(1.0, run)
low = 1.0
for j in range(K - 1, -1, -1):
    i = order[j]
    low = min(low, min(1.0, K * res[i][2] / (j + 1)))
    bh[i] = low
for i, (bench, ds, p, dp, lo, hi) in enumerate(res):
    sig = dp >= 3 and lo > 0
    imp = dp <= -3 and hi < 0
    fam = sig and holm[i] <= 0.025
    out.append(f"compare {bench} {ds or '-'} {p!r} {holm[i]!r} {bh[i]!r} "
               f"{int(sig)} {int(imp)} {int(fam)} {lo!r} {hi!r}")

# ---- noise: three cases, six runs --------------------------------------
rows = []
runs_flagged = {}
aa = [("copy", "n=8", 8.0, 0.01, [8] * 6),
      ("copy", "n=64", 30.0, 0.05, [8, 8, 8, 6, 6, 6]),
      ("fill", "", 3.0, 0.03, [10, 10, 10, 10, 10, 10])]
for bench, ds, base, sd, blocks in aa:
    deltas = []
    pairs = []
    for k in range(6):
        m = blocks[k]
        # Drift that the pairing does not cancel: runs the gate flags.
        shift = 1.0
        if (bench == "fill" and k in (1, 4)) or (ds == "n=64" and k == 2):
            shift = 1.08
        a = [r4(base * shift * (1 + sd * rs.standard_normal())) for _ in range(m)]
        b = [r4(base * (1 + sd * rs.standard_normal())) for _ in range(m)]
        for j in range(m):
            order_ = [("A", a[j]), ("B", b[j])]
            if j % 2:
                order_.reverse()
            for impl, v in order_:
                rows.append(f"{bench},{ds},{impl},{k},{j},{v:.4f}")
        a, b = np.array(a), np.array(b)
        d = a - b
        dp = 100 * (np.median(d) / np.median(b))
        lo, hi, _ = boot(d, 10000)
        flagged = dp >= 3 and lo > 0
        runs_flagged[k] = runs_flagged.get(k, False) or flagged
        deltas.append(abs(dp))
        pairs.append(m)
    F = q7(deltas, 0.90)
    mp = q7(pairs, 0.5)
    bl = math.ceil(mp * (F / 3) ** 2)
    out.append(f"noise {bench} {ds or '-'} {F!r} {mp!r} {bl}")
rate = sum(runs_flagged.values()) / len(runs_flagged)
out.append(f"suite {rate!r}")
with open("aa.csv", "w") as f:
    f.write("benchmark,dataset,impl,run,block,per_call_us\n")
    f.write("\n".join(rows) + "\n")

# ---- tune: three impls at three scales ---------------------------------
rows = []
med = {}
samples = {}
spec = {100: {"ins": 1.0, "qs": 2.0, "zz": 1.01},
        1000: {"ins": 20.0, "qs": 19.9, "zz": 40.0},
        10000: {"ins": 400.0, "qs": 200.0, "zz": 900.0}}
MT = 10
for scale, impls in spec.items():
    for impl, base in impls.items():
        samples[(scale, impl)] = [r4(base * (1 + 0.01 * rs.standard_normal()))
                                  for _ in range(MT)]
    for j in range(MT):
        for impl in impls:
            rows.append(f"sort,n={scale},{scale},{impl},{j},"
                        f"{samples[(scale, impl)][j]:.4f}")
with open("tune.csv", "w") as f:
    f.write("benchmark,dataset,scale,impl,block,per_call_us\n")
    f.write("\n".join(rows) + "\n")


def interval(scale, x, y):
    d = np.array(samples[(scale, y)]) - np.array(samples[(scale, x)])
    lo, hi, _ = boot(d, 2000)
    return lo, hi


# Cases in byte order of the dataset: n=100, n=1000, n=10000.
for scale in sorted(spec, key=lambda s: f"n={s}".encode()):
    scores = sorted((float(np.median(samples[(scale, i)])), i.encode(), i)
                    for i in spec[scale])
    best, ru = scores[0][2], scores[1][2]
    lo, hi = interval(scale, ru, best)
    out.append(f"tune sort n={scale} {best} {ru} {lo!r} {hi!r} {int(hi < 0)}")
impls = sorted({i for s in spec for i in spec[s]}, key=str.encode)
scales = sorted(spec)
for xi in range(len(impls)):
    for yi in range(xi + 1, len(impls)):
        x, y = impls[xi], impls[yi]
        r = [math.log(np.median(samples[(s, x)]) / np.median(samples[(s, y)]))
             for s in scales]
        for k in range(len(scales) - 1):
            if (r[k] < 0) != (r[k + 1] < 0):
                dec = True
                for s in (scales[k], scales[k + 1]):
                    lo, hi = interval(s, x, y)
                    dec = dec and (lo > 0 or hi < 0)
                out.append(f"cross sort {x} {y} {int(dec)}")
with open("expected.txt", "w") as f:
    f.write("\n".join(out) + "\n")
