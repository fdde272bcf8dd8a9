#!/usr/bin/python3
"""Independent reimplementation of SPEC section 2.8 (A/A validation) for
checking benchsite's numbers. Written from the spec text only, not from
src/stats/noise.c. Needs Debian's python3 with numpy and scipy:

    /usr/bin/python3 tests/data/noise/reference.py LOG.csv A B \
        [--resamples R] [--level L] [--seed N] [--no-gate]

prints one JSON object with the fields of `benchsite.noise/1` per case
(numbers with repr(), i.e. shortest round-trip, so they compare exactly).

- xorshift64* with explicit 64-bit masks; seed 0 -> 0x9E3779B97F4A7C15.
- Medians: type 7 (Hyndman & Fan) on numpy-sorted values,
  s[lo] + frac * (s[hi] - s[lo]); the script also checks that
  numpy.median gives the same bootstrap counts.
- Spearman rho: scipy.stats.spearmanr (mid-ranks); p: the normal
  approximation erfc(|rho sqrt(n-1)| / sqrt 2) of the spec, not scipy's.
- Drifting runs and false signals against chance (fields of
  bs_noise_case, not of the JSON): the chance of a drifting run
  1 - 0.95^s for s tested series per run on average, the expected rate of
  false signals 2 (1 - level), and how often chance gives as many runs,
  scipy.stats.binom.sf(k - 1, n, rate).
"""
import csv
import json
import math
import sys

import numpy as np
from scipy import stats

MASK = 0xFFFFFFFFFFFFFFFF


class Rng:
    def __init__(self, seed):
        self.s = seed & MASK if seed & MASK else 0x9E3779B97F4A7C15

    def next(self):
        s = self.s
        s ^= s >> 12
        s ^= (s << 25) & MASK
        s ^= s >> 27
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & MASK


def q7(sorted_vals, f):
    n = len(sorted_vals)
    h = f * (n - 1)
    lo = math.floor(h)
    hi = min(math.ceil(h), n - 1)
    return float(sorted_vals[lo] + (h - lo) * (sorted_vals[hi] - sorted_vals[lo]))


def med(x):
    return q7(np.sort(np.asarray(x, dtype=float)), 0.5)


def resample(rng, x, block):
    n = len(x)
    if block == 0:
        return [x[rng.next() % n] for _ in range(n)]
    out = []
    while len(out) < n:
        start = rng.next() % (n - block + 1)
        out.extend(x[start:start + block])
    return out[:n]


def conf(x, y, seed, R, bx=0, by=0, check_numpy=False):
    rng = Rng(seed)
    count = 0
    count_np = 0
    for _ in range(R):
        rx = resample(rng, x, bx)
        ry = resample(rng, y, by)
        mx, my = med(rx), med(ry)
        if mx == my or 1.0 - mx / my >= 0:
            count += 1
        if check_numpy:
            nx, ny = float(np.median(rx)), float(np.median(ry))
            if nx == ny or 1.0 - nx / ny >= 0:
                count_np += 1
    if check_numpy and count != count_np:
        print("note: numpy.median gives a different count", count_np,
              file=sys.stderr)
    return count / R


def gate_ci(d, seed, R=10000, c=95.0):
    rng = Rng(seed)
    m = len(d)
    thetas = []
    for _ in range(R):
        thetas.append(med([d[rng.next() % m] for _ in range(m)]))
    thetas.sort()
    alpha = (100.0 - c) / 200.0
    return q7(thetas, alpha), q7(thetas, 1 - alpha)


def drift(x):
    n = len(x)
    if n < 4:
        return None
    rho = stats.spearmanr(x, np.arange(n)).correlation
    if not np.isfinite(rho):
        rho = 0.0
    z = rho * math.sqrt(n - 1)
    p = math.erfc(abs(z) / math.sqrt(2))
    h = n // 2
    first, second = med(x[:h]), med(x[n - h:])
    return dict(rho=float(rho), z=z, p=p, drifted=bool(p < 0.05), first=first,
                second=second, relative_shift=(second - first) / first)


def lag1(x):
    n = len(x)
    if n < 2:
        return 0.0
    x = np.asarray(x, dtype=float)
    m = x.mean()
    den = float(((x - m) ** 2).sum())
    if den == 0:
        return 0.0
    return float(((x[:-1] - m) * (x[1:] - m)).sum()) / den


def median_or_zero(v):
    return med(v) if len(v) else 0.0


def main():
    args = sys.argv[1:]
    opts = dict(resamples=10000, level=0.95, seed=0, gate=True, block=0)
    pos = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--resamples":
            opts["resamples"] = int(args[i + 1]); i += 2
        elif a == "--level":
            opts["level"] = float(args[i + 1]); i += 2
        elif a == "--seed":
            opts["seed"] = int(args[i + 1]); i += 2
        elif a == "--block-length":
            opts["block"] = int(args[i + 1]); i += 2
        elif a == "--no-gate":
            opts["gate"] = False; i += 1
        else:
            pos.append(a); i += 1
    path, A, B = pos
    R, level, seed = opts["resamples"], opts["level"], opts["seed"]

    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("phase", "confirm") not in ("", "confirm"):
                continue
            if r["impl"] not in (A, B):
                continue
            key = (r["benchmark"], r.get("dataset", ""))
            run = int(r["run"]) if r.get("run") else 0
            rows.setdefault(key, {}).setdefault(run, {A: {}, B: {}})
            rows[key][run][r["impl"]][int(r["block"])] = float(
                r["per_call_us"])

    cases = []
    for key in sorted(rows, key=lambda k: (k[0].encode(), k[1].encode())):
        runs = sorted(rows[key])
        deltas, confs, ties, pdeltas = [], [], [], []
        shifts, lags, drifted, flagged = [], [], 0, 0
        tested = 0
        experiments = []
        for k, run in enumerate(runs):
            ra, rb = rows[key][run][A], rows[key][run][B]
            a = [ra[b] for b in sorted(ra)]
            b = [rb[b] for b in sorted(rb)]
            deltas.append(1 - med(a) / med(b))
            s1 = (seed + 2 * k) & MASK
            s2 = (seed + 2 * k + 1) & MASK
            cab = conf(a, b, s1, R, opts["block"], opts["block"],
                       check_numpy=(k == 0))
            cba = conf(b, a, s2, R, opts["block"], opts["block"])
            confs.append((cab + 1 - cba) / 2)
            ties.append(max(0.0, cab + cba - 1))
            dr = False
            for series in (a, b):
                d = drift(series)
                if d is not None:
                    tested += 1
                    shifts.append(abs(d["relative_shift"]))
                    dr = dr or d["drifted"]
                lags.append(lag1(series))
            drifted += dr
            experiments.append(dict(
                run=run, conf_ab=cab, conf_ba=cba, seed_ab=s1, seed_ba=s2,
                drift_a=drift(a), drift_b=drift(b), lag1_a=lag1(a),
                lag1_b=lag1(b)))
            d = [x - y for x, y in zip(a, b)]
            pct = 100 * med(d) / med(b)
            pdeltas.append(pct)
            if opts["gate"]:
                lo, hi = gate_ci(d, seed)
                flagged += pct >= 3 and lo > 0
                experiments[-1].update(
                    paired_delta_pct=pct, ci_low_us=lo, ci_high_us=hi,
                    significant_regression=bool(pct >= 3 and lo > 0))
        absd = sorted(abs(x) for x in deltas)
        absp = sorted(abs(x) for x in pdeltas)
        n = len(runs)
        pfloor = q7(absp, 0.90)
        chance = 1 - (1 - 0.05) ** (tested / n)
        signals = sum(c > level or c < 1 - level for c in confs)
        expected = 2 * (1 - level)

        def tail(k, p):
            return 1.0 if k == 0 else float(stats.binom.sf(k - 1, n, p))
        cases.append(dict(
            benchmark=key[0], dataset=key[1], runs=n,
            noise_floor=q7(absd, 0.90), max_observed_noise=absd[-1],
            typical_noise=q7(absd, 0.5),
            mean_confidence=sum(confs) / n, median_confidence=med(confs),
            tie_rate=med(ties),
            false_signal_rate=sum(c > level or c < 1 - level
                                  for c in confs) / n,
            drift_rate=drifted / n,
            median_drift_shift=median_or_zero(shifts),
            autocorrelation=median_or_zero(lags),
            deltas=deltas, confidences=confs, paired_deltas_pct=pdeltas,
            paired_noise_floor_pct=pfloor,
            false_regression_rate=(flagged / n) if opts["gate"] else None,
            gate_resolves=bool(3 > pfloor),
            drift_tested=tested > 0, drift_runs=drifted,
            drift_chance_rate=chance, drift_p=tail(drifted, chance),
            false_signal_runs=signals, false_signal_expected=expected,
            false_signal_p=tail(signals, expected),
            experiments=experiments))
    print(json.dumps(dict(a=A, b=B, resamples=R, level=level, seed=seed,
                          cases=cases), indent=1))


if __name__ == "__main__":
    main()
