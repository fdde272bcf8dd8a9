"""The verdict lab's judge (bench/verdict_lab.sh): reads the logs a lab
cell measured and benchsite's compare JSON for each, applies the peers'
rules to the same observations, and prints the table.

Run with Debian's python3 (python3-numpy, python3-scipy). Subcommands:

  judge.py cell CELL_DIR [--criterion-resamples R]
        judge every run of a cell, write CELL_DIR/verdicts.json
  judge.py table LAB_DIR...         print the table of every judged cell
  judge.py plants LAB_DIR           the plants' measured sizes
  judge.py example CELL_DIR         the example gate: which cases flagged
  judge.py snappy JSON...           what the gate found on snappy
  judge.py commands CELL_DIR        the command pairs: how often gated

The peers' rules, as their sources define them (facts, not code, carried
over; each checked against the cited source):

* benchstat (golang.org/x/perf/cmd/benchstat with benchmath, x/perf at
  712aea8, June 2026; U test from github.com/aclements/go-moremath
  stats/utest.go at c8bbc67): the samples are the per-block values of
  each build (benchstat's "runs"), the summary is the median, two builds
  differ when the two-sided Mann-Whitney U test gives p <= alpha with
  alpha = 0.05 (DefaultThresholds.CompareAlpha; benchstat prints "~" only
  when p > alpha). The p-value is exact (2 P(U <= min(U1, U2)), 1 when
  U1 = U2) without ties for n1, n2 <= 50; otherwise the normal
  approximation with tie correction and continuity correction. (With ties
  and n <= 25 go-moremath uses the exact distribution with ties; here the
  normal approximation stands in: timings in floating point rarely tie.)
  A regression: different and median(candidate) > median(baseline).

* asv (airspeed-velocity/asv, v0.6.6-16-g7032df70, asv/commands/compare.py
  _is_result_better and asv/_stats.py is_different): a benchmark got
  worse when time_2 > time_1 * factor (factor 1.1 by default, --factor)
  and the samples are statistically different: if the smallest p-value
  the sizes allow, 1/C(m+n, min(m, n)), is below p_threshold = 0.002, the
  Mann-Whitney U test with asv's conservative tie breaking (exact for
  max(m, n) <= 20, else the normal approximation without continuity or
  tie correction) must give p < 0.002; with fewer samples asv compares
  99 % confidence intervals of the medians (unreachable here: the lab's
  runs have >= 10 blocks). time is the median of the samples (asv_runner
  compute_stats). Printed at asv's default factor 1.10 and at 1.03, the
  gate's delta, so the test itself is compared at equal threshold.

* Criterion.rs (bheisler/criterion.rs 0.7.0, src/analysis/compare.rs,
  src/report.rs compare_to_threshold, src/lib.rs defaults): the samples
  are the per-block mean times per iteration; p-value of Welch's t
  statistic (new vs base, variances over n - 1) against its distribution
  under a mixed bootstrap (both samples pooled, resampled, split), p =
  2 min(#{t* < t}, R - #{t* < t}) / R; the relative change of the mean,
  mean(new*)/mean(base*) - 1, bootstrapped with the two samples resampled
  independently (sqrt(R) resamples of new, each against about sqrt(R) of
  base), its 95 % interval from the percentiles (type 7). Defaults:
  nresamples 100 000, confidence 0.95, significance_level 0.05,
  noise_threshold 0.01. "Performance has regressed" when p < 0.05 and
  both ends of the interval of the mean change lie above +1 %.

The gate's own verdicts come from `benchsite compare --json`
(significant_regression, family_significant_regression, inconclusive when
the build reports it).
"""

import csv
import glob
import json
import math
import os
import sys
from functools import lru_cache

import numpy as np
from scipy import stats as sps

PLANTS = [1, 2, 3, 5, 10]
PLANTED = ("lookup", "2000")
ALPHA_BENCHSTAT = 0.05
ASV_P = 0.002
CRIT_SIG = 0.05
CRIT_NOISE = 0.01
CRIT_CL = 0.95


# ---------------------------------------------------------------- logs

def read_log(path, metric):
    """{(benchmark, dataset): {impl: [value in block order]}} of confirm
    rows; metric 'wall' -> per_call_us, 'cpu' -> cpu_per_call_us."""
    col = {"wall": "per_call_us", "cpu": "cpu_per_call_us"}[metric]
    out = {}
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        if col not in (rd.fieldnames or []):
            return None
        rows = []
        for r in rd:
            if r.get("phase", "confirm") not in ("", "confirm"):
                continue
            rows.append((r["benchmark"], r.get("dataset", ""), r["impl"],
                         int(r.get("run") or 0), int(r["block"]),
                         float(r[col])))
    rows.sort(key=lambda t: (t[3], t[4]))
    for b, d, impl, _, _, v in rows:
        out.setdefault((b, d), {}).setdefault(impl, []).append(v)
    return out


# ----------------------------------------------------- Mann-Whitney, exact

@lru_cache(maxsize=None)
def u_counts(m, n):
    """Number of orderings of m x's and n y's with each value of U
    (pairs x > y), u = 0..m*n: the recurrence of Mann & Whitney (1947),
    r(m, n, u) = r(m, n-1, u) + r(m-1, n, u-n). Floats: exact enough for
    p-values (sizes up to 50 + 50)."""
    # table[i] = counts for sizes (i, j) as j grows
    prev = [np.ones(1)] + [None] * m  # j = 0: only u = 0
    for i in range(1, m + 1):
        prev[i] = np.ones(1)
    for j in range(1, n + 1):
        cur = [np.ones(1)]
        for i in range(1, m + 1):
            a = prev[i]  # r(i, j-1, u): sizes i x (j-1)
            b = cur[i - 1]  # r(i-1, j, u - j)
            size = i * j + 1
            r = np.zeros(size)
            r[: len(a)] += a
            r[j: j + len(b)] += b
            cur.append(r)
        prev = cur
    return prev[m]


def u_cdf(m, n, u):
    c = u_counts(m, n)
    u = int(math.floor(u))
    if u < 0:
        return 0.0
    return float(c[: u + 1].sum() / c.sum())


# -------------------------------------------------------------- benchstat

def benchstat_p(x1, x2):
    """Two-sided p of go-moremath's MannWhitneyUTest (LocationDiffers)."""
    n1, n2 = len(x1), len(x2)
    allv = np.concatenate([x1, x2])
    ranks = sps.rankdata(allv)
    _, tie_counts = np.unique(allv, return_counts=True)
    has_ties = bool((tie_counts > 1).any())
    r1 = ranks[:n1].sum()
    u1 = r1 - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    if not has_ties and n1 <= 50 and n2 <= 50:
        if u1 == u2:
            return 1.0
        return min(1.0, 2 * u_cdf(n1, n2, min(u1, u2)))
    if len(tie_counts) == 1:
        return 1.0  # go-moremath: ErrSamplesEqual; benchstat reports P = 1
    big_n = n1 + n2
    t = float((tie_counts ** 3 - tie_counts).sum())
    sigma = math.sqrt(n1 * n2 * ((big_n + 1) - t / (big_n * (big_n - 1))) / 12)
    numer = u1 - n1 * n2 / 2
    numer -= math.copysign(0.5, numer) if numer != 0 else 0.0
    z = numer / sigma
    return 2 * min(sps.norm.cdf(z), 1 - sps.norm.cdf(z))


def rule_benchstat(b, c):
    p = benchstat_p(np.asarray(c), np.asarray(b))
    return p <= ALPHA_BENCHSTAT and np.median(c) > np.median(b)


# -------------------------------------------------------------------- asv

def asv_mwu_p(x, y):
    """asv/_stats.py mann_whitney_u: two-sided p, conservative ties."""
    m, n = len(x), len(y)
    xa = np.asarray(x)[:, None]
    ya = np.asarray(y)[None, :]
    u = int((xa > ya).sum())
    ties = int((xa == ya).sum())
    half = m * n // 2
    if u <= half and u + ties >= half:
        ties = half - u
    ux1 = min(u, m * n - u)
    ux2 = min(u + ties, m * n - (u + ties))
    ux = ux1 if ux1 >= ux2 else ux2
    if max(m, n) <= 20:
        p1 = u_cdf(m, n, ux)
        p2 = 1.0 - u_cdf(m, n, max(half, m * n - ux - 1))
        return p1 + p2
    big_n = m + n
    var = m * n * (big_n + 1) / 12
    z = (ux - m * n / 2) / math.sqrt(var)
    return 2 * 0.5 * math.erfc(-z / math.sqrt(2))


def asv_different(a, b):
    p_min = 1 / math.comb(len(a) + len(b), min(len(a), len(b)))
    if p_min < ASV_P:
        return asv_mwu_p(a, b) < ASV_P
    return False  # CI fallback: not reached with >= 6 samples a side


def rule_asv(factor):
    def rule(b, c):
        t1, t2 = float(np.median(b)), float(np.median(c))
        if not asv_different(b, c):
            return False
        return t1 < t2 / factor
    return rule


# -------------------------------------------------------------- Criterion

def welch_t(a, b):
    """Rows of a and b are samples: Welch t of a against b, per row."""
    ma, mb = a.mean(axis=-1), b.mean(axis=-1)
    va = a.var(axis=-1, ddof=1)
    vb = b.var(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ma - mb) / np.sqrt(va / a.shape[-1] + vb / b.shape[-1])


def rule_criterion_factory(resamples, seed_base):
    def rule(b, c, seed):
        rng = np.random.default_rng([seed_base, seed])
        new = np.asarray(c, dtype=float)
        base = np.asarray(b, dtype=float)
        na, nb = len(new), len(base)
        t = float(welch_t(new, base))
        pooled = np.concatenate([new, base])
        ts = []
        chunk = max(1, 2_000_000 // (na + nb))
        left = resamples
        while left > 0:
            k = min(chunk, left)
            idx = rng.integers(0, na + nb, size=(k, na + nb))
            s = pooled[idx]
            ts.append(welch_t(s[:, :na], s[:, na:]))
            left -= k
        ts = np.concatenate(ts)
        ts = ts[np.isfinite(ts)]
        hits = int((ts < t).sum()) if math.isfinite(t) else 0
        p = 2 * min(hits, len(ts) - hits) / len(ts)
        # relative change of the mean: sqrt(R) resamples of new, each
        # against per_chunk resamples of base (univariate::bootstrap)
        rs = math.ceil(math.sqrt(resamples))
        per = (resamples + rs - 1) // rs
        a_means = new[rng.integers(0, na, size=(rs, na))].mean(axis=1)
        b_means = base[rng.integers(0, nb, size=(rs * per, nb))].mean(axis=1)
        b_means = b_means.reshape(rs, per)
        rel = (a_means[:, None] / b_means - 1).ravel()[:resamples]
        lo, hi = np.percentile(rel, [50 * (1 - CRIT_CL), 50 * (1 + CRIT_CL)])
        return p < CRIT_SIG and lo > CRIT_NOISE and hi > CRIT_NOISE
    return rule


PEERS = [
    ("benchstat U p<=.05", "benchstat"),
    ("asv U p<.002 x1.10", "asv110"),
    ("asv U p<.002 x1.03", "asv103"),
    ("Criterion t p<.05 >1%", "criterion"),
]


# ------------------------------------------------------------------- cell

def read_meta(cell):
    meta = {}
    p = os.path.join(cell, "meta.txt")
    if os.path.exists(p):
        for line in open(p):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def read_runs(cell):
    runs = []
    p = os.path.join(cell, "runs.tsv")
    if not os.path.exists(p):
        return runs
    for line in open(p):
        f = line.rstrip("\n").split("\t")
        if len(f) < 7 or f[0] == "kind":
            continue
        runs.append({"kind": f[0], "rep": int(f[1]), "log": f[2],
                     "json": {"wall": f[3], "cpu": f[4]},
                     "wall_s": float(f[5]), "cpu_s": float(f[6]),
                     "status": f[7] if len(f) > 7 else "0"})
    return runs


def bs_flags(path):
    """benchsite's verdicts from compare JSON: {case: (gate, fw, inconc)}."""
    if path in ("", "-") or not os.path.exists(path):
        return None
    with open(path) as f:
        j = json.load(f)
    out = {}
    for c in j.get("cases", []):
        key = (c["benchmark"], c.get("dataset", ""))
        out[key] = (bool(c.get("significant_regression")),
                    bool(c.get("family_significant_regression")),
                    c.get("inconclusive"))
    return out


def batch_ratios(path):
    """{case: larger / smaller of the two builds' median confirm batch
    size}: 1 when both measured with one batch size."""
    sizes = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("phase", "confirm") not in ("", "confirm"):
                continue
            if not r.get("iterations"):
                continue
            key = r["benchmark"] + "/" + r.get("dataset", "")
            sizes.setdefault(key, {}).setdefault(r["impl"], []).append(
                float(r["iterations"]))
    out = {}
    for key, impls in sizes.items():
        if "base" in impls and "cand" in impls:
            a, b = np.median(impls["base"]), np.median(impls["cand"])
            out[key] = float(max(a, b) / min(a, b))
    return out


def log_facts(path):
    """Per case of a log: the (case, run) pairs whose two builds' confirm
    batch sizes differ (split batch sizes), and the case's looks (1 + its
    largest `look`; 1 without the column)."""
    sizes, looks = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = r["benchmark"] + "/" + r.get("dataset", "")
            if r.get("look"):
                looks[key] = max(looks.get(key, 1), int(r["look"]) + 1)
            else:
                looks.setdefault(key, 1)
            if r.get("phase", "confirm") not in ("", "confirm"):
                continue
            if not r.get("iterations"):
                continue
            sizes.setdefault((key, r.get("run", "0")), {}).setdefault(
                r["impl"], set()).add(r["iterations"])
    split = {}
    for (key, _), impls in sizes.items():
        if "base" in impls and "cand" in impls:
            split.setdefault(key, 0)
            split[key] += impls["base"] != impls["cand"]
    return split, looks


def judge_cell(cell, resamples):
    runs = read_runs(cell)
    crit = rule_criterion_factory(resamples, 2026)
    peers = {"benchstat": rule_benchstat, "asv110": rule_asv(1.10),
             "asv103": rule_asv(1.03)}
    result = []
    for i, r in enumerate(runs):
        if r["status"] != "0":
            result.append({"kind": r["kind"], "rep": r["rep"], "failed": True})
            continue
        entry = {"kind": r["kind"], "rep": r["rep"], "wall_s": r["wall_s"],
                 "cpu_s": r["cpu_s"], "metrics": {}}
        for metric in ("wall", "cpu"):
            log = read_log(r["log"], metric)
            if log is None:
                continue
            bs = bs_flags(r["json"][metric])
            cases = {}
            for ci, (key, impls) in enumerate(sorted(log.items())):
                if "base" not in impls or "cand" not in impls:
                    continue
                b, c = impls["base"], impls["cand"]
                v = {name: bool(fn(b, c)) for name, fn in peers.items()}
                v["criterion"] = bool(crit(b, c, i * 1000 + ci))
                if bs is not None and key in bs:
                    v["gate"], v["fw"], inc = bs[key]
                    if inc is not None:
                        v["inconclusive"] = bool(inc)
                cases["/".join(key)] = v
            entry["metrics"][metric] = cases
        entry["batch_ratio"] = batch_ratios(r["log"])
        entry["split"], entry["looks"] = log_facts(r["log"])
        entry["widths"] = widths(r["json"]["wall"])
        result.append(entry)
    with open(os.path.join(cell, "verdicts.json"), "w") as f:
        json.dump(result, f)


def widths(path):
    """{case: width of the gate's interval in % of the baseline median}."""
    if path in ("", "-") or not os.path.exists(path):
        return {}
    out = {}
    for c in json.load(open(path))["cases"]:
        key = c["benchmark"] + "/" + c.get("dataset", "")
        out[key] = 100 * (c["ci_high_us"] - c["ci_low_us"]) / c["median_baseline_us"]
    return out


# ------------------------------------------------------------------ table

RULES = [("benchsite gate", "gate"), ("benchsite --family-wise", "fw")] + PEERS


def pct(k, n):
    return "    -" if n == 0 else f"{100.0 * k / n:5.1f}"


def cell_table(cell):
    meta = read_meta(cell)
    vpath = os.path.join(cell, "verdicts.json")
    if not os.path.exists(vpath):
        return
    verdicts = json.load(open(vpath))
    ok = [v for v in verdicts if not v.get("failed")]
    logs = {(r["kind"], r["rep"]): r["log"] for r in read_runs(cell)}
    for v in ok:  # verdicts judged before batch sizes were kept
        if "batch_ratio" not in v and os.path.exists(logs.get((v["kind"], v["rep"]), "")):
            v["batch_ratio"] = batch_ratios(logs[(v["kind"], v["rep"])])
    failed = len(verdicts) - len(ok)
    aa = [v for v in ok if v["kind"] == "aa"]
    planted_key = "/".join(PLANTED)
    walls = sorted(v["wall_s"] for v in aa)
    cpus = sorted(v["cpu_s"] for v in aa)
    n_plant = {p: sum(1 for v in ok if v["kind"] == f"p{p}") for p in PLANTS}
    print()
    print(f"== load {meta.get('load', '?')}, config {meta.get('config', '?')}"
          f"  ({meta.get('flags', '').strip() or 'no flags'})")
    print(f"   load average {meta.get('loadavg_start', '?')} at start, "
          f"{meta.get('loadavg_end', '?')} at end; others' CPU busy before "
          f"our load: {meta.get('others_busy', '?')}")
    if walls:
        print(f"   one 9-case run (both builds): wall {np.median(walls):.2f} s "
              f"(min {walls[0]:.2f}, max {walls[-1]:.2f}), CPU "
              f"{np.median(cpus):.2f} s; A/A runs {len(aa)}, plant runs "
              + ", ".join(f"+{p}%: {n_plant[p]}" for p in PLANTS if n_plant[p])
              + (f"; {failed} runs failed" if failed else ""))
    hdr = (f"   {'rule':<24} {'metric':<5} {'fa/case':>7} {'fa/case*':>8}"
           f" {'suite':>6} " + " ".join(f"{'+' + str(p) + '%':>6}" for p in PLANTS)
           + f" {'inc/case':>8} {'inc+5%':>6}")
    print(hdr)
    counts = {}
    for metric in ("wall", "cpu"):
        if not any(metric in v["metrics"] for v in ok):
            continue
        for label, rule in RULES:
            fa = fan = sfa = sn = all_fa = all_n = inc = incn = 0
            have = False
            for v in aa:
                cases = v["metrics"].get(metric, {})
                flags = [c.get(rule) for c in cases.values()]
                if any(f is not None for f in flags):
                    have = True
                flags = [bool(f) for f in flags if f is not None]
                fa += sum(flags)
                fan += len(flags)
                if flags:
                    sn += 1
                    sfa += any(flags)
                for c in cases.values():
                    if rule == "gate" and "inconclusive" in c:
                        inc += c["inconclusive"]
                        incn += 1
            all_fa, all_n = fa, fan
            inc_all, inc_alln = inc, incn
            power = {}
            inc5 = inc5n = 0
            for p in PLANTS:
                k = n = 0
                for v in ok:
                    if v["kind"] != f"p{p}":
                        continue
                    cases = v["metrics"].get(metric, {})
                    for key, c in cases.items():
                        f = c.get(rule)
                        if f is None:
                            continue
                        have = True
                        if key == planted_key:
                            k += f
                            n += 1
                            if p == 5 and rule == "gate" and "inconclusive" in c:
                                inc5 += c["inconclusive"]
                                inc5n += 1
                        else:
                            all_fa += f
                            all_n += 1
                            if rule == "gate" and "inconclusive" in c:
                                inc_all += c["inconclusive"]
                                inc_alln += 1
                power[p] = (k, n)
            if not have:
                continue
            counts[(metric, rule)] = {"fa": (fa, fan), "suite": (sfa, sn),
                                      "power": power, "fa*": (all_fa, all_n),
                                      "inc": (inc_all, inc_alln)}
            inc_s = pct(inc_all, inc_alln) if rule == "gate" else ""
            inc5_s = pct(inc5, inc5n) if rule == "gate" else ""
            print(f"   {label:<24} {metric:<5} {pct(fa, fan):>7} "
                  f"{pct(all_fa, all_n):>8} {pct(sfa, sn):>6} "
                  + " ".join(f"{pct(*power[p]):>6}" for p in PLANTS)
                  + f" {inc_s:>8} {inc5_s:>6}")
    diagnose(ok, planted_key)
    resolution(cell)
    spread(ok, walls)
    targets(counts, "this cell")
    return (meta.get("load", "?"), meta.get("config", "?")), counts


# The targets of issue 33 (uneven load; issue 25 set the first five for
# busy1): (label, rule, what, plant, bound, direction). fa counts the A/A
# runs' cases, fa* also the unplanted cases of the plant runs (identical
# code in another build), inc the gate's inconclusive cases among those.
TARGETS = [("false alarms per case", "gate", "fa", None, 2.5, "<="),
           ("false alarms per identical-code case", "gate", "fa*", None, 2.5,
            "<="),
           ("suites failed", "gate", "suite", None, 10.0, "<="),
           ("--family-wise suites failed", "fw", "suite", None, 3.0, "<="),
           ("identical-code cases inconclusive", "gate", "inc", None, 5.0,
            "<="),
           ("+5 % found", "gate", "power", 5, 90.0, ">="),
           ("+10 % found", "gate", "power", 10, 99.0, ">=")]


def bound(k, n, direction):
    """Exact one-sided 95 % (Clopper-Pearson) bound of a rate, in %: the
    upper one for a rate that must stay low, the lower for one that must
    be high."""
    if direction == "<=":
        return 100.0 if k == n else 100.0 * sps.beta.ppf(0.95, k + 1, n - k)
    return 0.0 if k == 0 else 100.0 * sps.beta.ppf(0.05, k, n - k + 1)


def targets(counts, what):
    """One line per metric: each target's count, rate, its exact one-sided
    95 % bound and whether the counts show the target (the bound inside
    it), only meet it (the rate inside, the bound not), or miss it."""
    for metric in ("wall", "cpu"):
        parts = []
        for label, rule, kind, plant, goal, direction in TARGETS:
            c = counts.get((metric, rule))
            if c is None:
                continue
            k, n = c["power"].get(plant, (0, 0)) if kind == "power" else c[kind]
            if n == 0:
                continue
            rate, b = 100.0 * k / n, bound(k, n, direction)
            def inside(x):
                return x <= goal if direction == "<=" else x >= goal
            state = ("shown" if inside(b) else
                     "met, not shown" if inside(rate) else "missed")
            sign = "≤" if direction == "<=" else "≥"
            parts.append(f"{label} {k}/{n} = {rate:.1f} % ({sign} {b:.2f} %; "
                         f"target {sign} {goal:g} %: {state})")
        if parts:
            print(f"   targets, gate on {metric} time, {what}, with exact "
                  f"one-sided 95 % bounds:")
            for part in parts:
                print(f"     {part}")


def spread(ok, walls):
    """Per case, over the A/A runs: the median and largest width of the
    gate's interval (wall, % of the baseline median; target: median <= 2 %
    at half), how many (case, run) pairs of identical code ran the two
    builds with different batch sizes (target 0), and the adaptive runs:
    case-runs that took extra looks, and the longest 9-case run."""
    by = {}
    for v in ok:
        for key, w in v.get("widths", {}).items():
            if v["kind"] == "aa" or key != "/".join(PLANTED):
                by.setdefault(key, []).append(w)
    if by:
        print("   interval width (wall, identical code), median / max %: "
              + ", ".join(f"{k.split('/')[0]} {np.median(w):.1f}/{max(w):.1f}"
                          for k, w in sorted(by.items())))
        worst = max(np.median(w) for w in by.values())
        print(f"   widest case median {worst:.2f} % (target at half: every "
              f"case <= 2 %: {'met' if worst <= 2 else 'missed'})")
    split = n = 0
    for v in ok:
        for key, k in v.get("split", {}).items():
            if v["kind"] == "aa" or key != "/".join(PLANTED):
                split += k
                n += 1
    if n:
        print(f"   split batch sizes on identical code: {split} (case, run) "
              f"pairs (target 0)")
    extra = total = 0
    for v in ok:
        for key, looks in v.get("looks", {}).items():
            total += 1
            extra += looks > 1
    if total:
        print(f"   adaptive: {extra} of {total} case-runs took extra runs "
              f"({pct(extra, total).strip()} %); the longest run "
              f"{max(walls) if walls else 0:.1f} s wall (target <= 60 s)")


def resolution(cell):
    """What the gate saw of the planted case: median delta and the median
    width of its 95 % interval, per kind of run (wall)."""
    seen = {}
    for r in read_runs(cell):
        path = r["json"]["wall"]
        if r["status"] != "0" or not os.path.exists(path):
            continue
        for c in json.load(open(path))["cases"]:
            if (c["benchmark"], c.get("dataset", "")) == PLANTED:
                mb = c["median_baseline_us"]
                seen.setdefault(r["kind"], []).append(
                    (c["delta_pct"], 100 * (c["ci_high_us"] - c["ci_low_us"]) / mb))
    kinds = ["aa"] + [f"p{p}" for p in PLANTS]
    parts = [f"{'A/A' if k == 'aa' else '+' + k[1:] + '%'} "
             f"{np.median([d for d, _ in seen[k]]):+.1f}% "
             f"(width {np.median([w for _, w in seen[k]]):.0f}%)"
             for k in kinds if k in seen]
    if parts:
        print("   lookup as the gate saw it, median delta (median width of "
              "its 95 % interval): " + ", ".join(parts))


def diagnose(ok, planted_key):
    """Which cases the gate flagged in unchanged code, and whether the
    two builds ran with different batch sizes there (issue 25's cause 1)."""
    by_case = {}
    mism = mism_fa = same = same_fa = 0
    for v in ok:
        cases = v["metrics"].get("wall", {})
        ratios = v.get("batch_ratio", {})
        for key, c in cases.items():
            if "gate" not in c or (v["kind"] != "aa" and key == planted_key):
                continue
            n, k = by_case.get(key, (0, 0))
            by_case[key] = (n + 1, k + c["gate"])
            if key in ratios:
                if ratios[key] > 1.41:
                    mism += 1
                    mism_fa += c["gate"]
                else:
                    same += 1
                    same_fa += c["gate"]
    if not by_case:
        return
    print("   gate false alarms by case (unchanged code, wall): " + ", ".join(
        f"{key.split('/')[0]} {k}/{n}" for key, (n, k) in sorted(by_case.items())))
    if mism + same:
        print(f"   batch sizes of the two builds differ by > 1.41x in {mism} of "
              f"{mism + same} unchanged case-runs; gate false alarms there "
              f"{pct(mism_fa, mism).strip()} %, elsewhere "
              f"{pct(same_fa, same).strip()} %")


def table(dirs):
    cells = []
    for d in dirs:
        found = [os.path.dirname(p) for p in
                 glob.glob(os.path.join(d, "cells", "*", "*", "verdicts.json"))]
        cells += sorted(found, key=lambda c: int(read_meta(c).get("order", 0)))
    print("Rates in %. fa/case: A/A runs' cases flagged as regressions; "
          "fa/case*: also the eight unplanted cases of every plant run; "
          "suite: A/A runs with any case flagged; +p%: runs whose planted "
          "case (lookup) was flagged; inc/case: cases of identical code "
          "(A/A runs, and the unplanted cases of plant runs) the gate called "
          "inconclusive, inc+5%: the +5 % plant called inconclusive (builds "
          "that report it).")
    groups = {}
    for c in cells:
        got = cell_table(c)
        if got:
            groups.setdefault(got[0], []).append(got[1])
    for (load, config), many in groups.items():
        if len(many) < 2:
            continue
        pooled = {}
        for counts in many:
            for key, c in counts.items():
                p = pooled.setdefault(key, {"fa": (0, 0), "suite": (0, 0),
                                            "power": {}})
                for kind in ("fa", "suite", "fa*", "inc"):
                    p.setdefault(kind, (0, 0))
                    p[kind] = tuple(a + b for a, b in zip(p[kind], c[kind]))
                for plant, kn in c["power"].items():
                    p["power"][plant] = tuple(
                        a + b for a, b in zip(p["power"].get(plant, (0, 0)), kn))
        print()
        print(f"== load {load}, config {config}: {len(many)} cells pooled")
        targets(pooled, "pooled")


# ----------------------------------------------------------------- plants

def plants(lab):
    """plantsize's lines (bench/verdict/plantsize.c): path, fastest and
    median CPU ns a call, fastest and median wall ns a call, ..."""
    p = os.path.join(lab, "plants.txt")
    if not os.path.exists(p):
        return
    rows, la = [], "?"
    for line in open(p):
        if line.startswith("loadavg="):
            la = line.split("=", 1)[1].strip()
            continue
        f = line.split()
        rows.append((os.path.basename(f[0]), float(f[1]), float(f[2]),
                     float(f[3]), float(f[4])))
    if not rows:
        return
    base = rows[0]
    print(f"planted slowdown of lookup [2000], measured alone apart from "
          f"benchsite (thread CPU clock, ~1 ms batches, rotated; load "
          f"average {la} at the end): nominal against measured")
    print(f"   {'build':<12} {'nominal':>8} {'median':>8} {'fastest':>8}"
          f"   CPU ns a call (median, fastest)")
    for name, cmin, cmed, _, _ in rows:
        nominal = ("0 (A/A)" if name.startswith("aa_") else
                   "+" + name[len("plant"):-len(".so")] + "%")
        print(f"   {name:<12} {nominal:>8} "
              f"{100 * (cmed / base[2] - 1):+7.2f}% "
              f"{100 * (cmin / base[1] - 1):+7.2f}%   {cmed:9.1f} {cmin:9.1f}")


# ---------------------------------------------------------------- example

def example(cell):
    """.ci/example's gate run N times: how often exactly the planted `sum`
    is flagged (by wall time, and by CPU time when the build has it)."""
    runs = read_runs(cell)
    meta = read_meta(cell)
    for metric in ("wall", "cpu"):
        exact = n = 0
        lines = []
        for r in runs:
            path = r["json"][metric]
            if r["status"] != "0":
                lines.append(f"   rep {r['rep']:>2}: run failed ({r['status']})")
                continue
            if path in ("", "-") or not os.path.exists(path):
                continue
            j = json.load(open(path))
            flagged = sorted(c["benchmark"] for c in j["cases"]
                             if c.get("significant_regression"))
            deltas = " ".join(f"{c['benchmark']} {c['delta_pct']:+.2f}%"
                              for c in j["cases"])
            n += 1
            exact += flagged == ["sum"]
            lines.append(f"   rep {r['rep']:>2}: flagged "
                         f"{','.join(flagged) or '-':<14} {deltas}  "
                         f"({r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU)")
        if n == 0 and metric == "cpu":
            continue
        print(f"== example gate ({metric}), load {meta.get('load')}, config "
              f"{meta.get('config')} ({meta.get('flags', '').strip() or 'no flags'}):"
              f" exactly `sum` flagged in {exact} of {n}; load average "
              f"{meta.get('loadavg_start')} -> {meta.get('loadavg_end')}, "
              f"others' CPU busy before: {meta.get('others_busy')}")
        print("\n".join(lines))


# ----------------------------------------------------------------- snappy

def snappy(paths):
    for path in paths:
        j = json.load(open(path))
        flagged = []
        print(f"== {path}")
        print(f"   {'case':<22} {'delta':>8}  95% interval        verdict")
        for c in j["cases"]:
            mb = c["median_baseline_us"]
            lo = 100 * c["ci_low_us"] / mb
            hi = 100 * c["ci_high_us"] / mb
            name = c["benchmark"] + ("/" + c["dataset"] if c.get("dataset") else "")
            mark = ("REGRESSION" if c.get("significant_regression") else
                    "IMPROVEMENT" if c.get("significant_improvement") else
                    c.get("verdict", ""))
            if c.get("inconclusive"):
                mark += ", inconclusive"
            if c.get("significant_regression"):
                flagged.append(name)
            print(f"   {name:<22} {c['delta_pct']:+7.2f}%  [{lo:+6.1f}%, {hi:+6.1f}%]"
                  f"  {mark}")
        print(f"   flagged {len(flagged)}: {' '.join(flagged) or '-'}")


# --------------------------------------------------------------- commands

def commands(cell):
    """The command pairs (`--commands N`): an unchanged pair (the same work
    spelled two ways) and a slower one, each run N times with run's
    defaults; how often the gate flagged each, by wall and by CPU time,
    with the intervals."""
    meta = read_meta(cell)
    print(f"== command pairs, load {meta.get('load')} (others' CPU busy "
          f"before: {meta.get('others_busy')}); load average "
          f"{meta.get('loadavg_start')} -> {meta.get('loadavg_end')}")
    for kind, want in (("same", False), ("slower", True)):
        for metric in ("wall", "cpu"):
            k = n = 0
            cells = []
            for r in read_runs(cell):
                if r["kind"] != kind or r["status"] != "0":
                    continue
                path = r["json"][metric]
                if path in ("", "-") or not os.path.exists(path):
                    continue
                c = json.load(open(path))["cases"][0]
                mb = c["median_baseline_us"]
                flagged = bool(c.get("significant_regression"))
                n += 1
                k += flagged == want
                cells.append(f"{c['delta_pct']:+.1f}% [{100 * c['ci_low_us'] / mb:+.1f}, "
                             f"{100 * c['ci_high_us'] / mb:+.1f}]"
                             + (" inconclusive" if c.get("inconclusive") else ""))
            if n:
                print(f"   {kind:<6} {metric:<4} gated correctly {k} of {n} "
                      f"({'flagged' if want else 'not flagged'}): "
                      + "; ".join(cells))


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "cell":
        r = 100_000
        if "--criterion-resamples" in argv:
            r = int(argv[argv.index("--criterion-resamples") + 1])
        judge_cell(argv[2], r)
    elif cmd == "table":
        table(argv[2:])
    elif cmd == "plants":
        plants(argv[2])
    elif cmd == "example":
        example(argv[2])
    elif cmd == "snappy":
        snappy(argv[2:])
    elif cmd == "commands":
        commands(argv[2])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
