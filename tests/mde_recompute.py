#!/usr/bin/python3
"""The minimum detectable change of every compared case, recomputed from
compare's JSON by a program that shares no code with benchsite.

Usage: mde_recompute.py BENCHSITE SOURCE_DIR OUT_DIR

SPEC §2.15: mde_pct = max(δ, Δ% − L%), L% = 100 · (ci_low_us /
median_baseline_us), δ the case's threshold (effective_threshold_pct: the
mode's δ, raised to the case's noise floor under --noise). Each JSON's
delta_pct, ci_low_us, median_baseline_us and effective_threshold_pct,
read back from their %.17g text, give the same double in IEEE arithmetic
here as in C, so the recomputed mde must equal the JSON's exactly (bit
for bit, not to a tolerance). Also checked: `blind` (mde_pct above the
mode's threshold_pct, on a case with no significant change) per case, and the top level's `blind` count and
`blind_max_mde_pct`.

The comparisons: every compare log of examples/ (pr.csv, pr.csv with the
noise floors of aa.csv, aa.csv as A against B, each run of
examples/archive), tests/data/compare/looks.csv (an adaptive run's levels)
and a 200-case log this script writes with a seeded generator
(numpy.random.RandomState, whose stream numpy keeps fixed): noise from
0.1 % to 15 %, changes from −20 % to +20 %, six runs of six blocks with a
layout bias per run, a third of the cases without looks, a third looked
at once and a third measured again; compared in the gate and in hotspot
mode at δ = 5 %.

Prints, per group and in all, "mde recomputed independently: N of N
exact" (bench/bench_mde.sh prints the same lines). Exit 0 when every case
agrees, 1 otherwise; 77 (skipped) without numpy.
"""
import glob
import json
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is missing: skipped")
    sys.exit(77)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def compare(binary, out, tag, args, want_rc=(0, 1)):
    js = os.path.join(out, tag + ".json")
    r = subprocess.run([binary, "compare"] + args + ["--json", js],
                       capture_output=True, text=True, timeout=600)
    if r.returncode not in want_rc:
        sys.exit("%s: benchsite compare exited %d: %s" %
                 (tag, r.returncode, r.stderr))
    with open(js, encoding="utf-8") as f:
        # %.17g writes a whole double as "3": read every number as the
        # double it was (counts compare equal either way).
        return json.load(f, parse_int=float)


def check(tag, res):
    """(exact, cases) of one comparison's JSON."""
    exact = 0
    delta = res["threshold_pct"]
    blind, worst = 0, None
    for c in res["cases"]:
        name = "%s: %s [%s]" % (tag, c["benchmark"], c["dataset"])
        eff = c["effective_threshold_pct"]
        lower = 100.0 * (c["ci_low_us"] / c["median_baseline_us"])
        reach = c["delta_pct"] - lower
        mde = reach if reach > eff else eff
        got = c["mde_pct"]
        if got is not None and got == mde and got.hex() == mde.hex():
            exact += 1
        else:
            fail("%s: mde_pct %r, recomputed %r" % (name, got, mde))
        # A significant change is never blind: the run saw it.
        is_blind = (mde > delta and not c["significant_regression"]
                    and not c["significant_improvement"])
        if c["blind"] != is_blind:
            fail("%s: blind %r, mde %r against δ %r" %
                 (name, c["blind"], mde, delta))
        if is_blind:
            blind += 1
            worst = mde if worst is None or mde > worst else worst
    if res["blind"] != blind:
        fail("%s: %d blind, recounted %d" % (tag, res["blind"], blind))
    if res["blind_max_mde_pct"] != worst:
        fail("%s: blind_max_mde_pct %r, recomputed %r" %
             (tag, res["blind_max_mde_pct"], worst))
    return exact, len(res["cases"])


def synthetic(path, ncases=200, runs=6, blocks=6, seed=20261204):
    """A log whose cases differ in noise, change, layout bias and looks."""
    rs = np.random.RandomState(seed)
    rows = ["benchmark,dataset,impl,run,block,look,per_call_us"]
    for i in range(ncases):
        base = 10.0 ** rs.uniform(-1, 3)
        noise = 10.0 ** rs.uniform(-3, np.log10(0.15))
        change = rs.choice([0.0, 0.0, 0.0, -0.2, -0.03, 0.02, 0.05, 0.2])
        bias = rs.uniform(0, 0.05) if i % 4 == 0 else 0.0
        kind = i % 3  # no look; look 0 only; measured again (looks 0, 1)
        for run in range(runs):
            layout = 1.0 + rs.normal(0, bias) if bias else 1.0
            look = ("" if kind == 0 else
                    "0" if kind == 1 or run < runs // 2 else "1")
            for blk in range(blocks):
                b = base * (1 + rs.normal(0, noise))
                c = base * (1 + change) * layout * (1 + rs.normal(0, noise))
                for impl, v in (("main", b), ("pr", c)):
                    rows.append("bench%03d,n=%d,%s,%d,%d,%s,%.6g" %
                                (i, 1 << (i % 12), impl, run, blk, look,
                                 max(v, 1e-6)))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    ex = os.path.join(src, "examples")
    groups = {"examples": [], "200-case run": []}

    pr = [os.path.join(ex, "pr.csv"), "--manifest", os.path.join(ex, "env.csv")]
    groups["examples"].append(("pr", compare(binary, out, "pr", pr)))
    noise = os.path.join(out, "noise.json")
    r = subprocess.run([binary, "noise", os.path.join(ex, "aa.csv"),
                        "--manifest", os.path.join(ex, "aa-env.csv"),
                        "--json", noise], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("benchsite noise exited %d: %s" % (r.returncode, r.stderr))
    groups["examples"].append(
        ("pr-noise", compare(binary, out, "pr-noise", pr + ["--noise", noise])))
    groups["examples"].append(("aa", compare(
        binary, out, "aa",
        [os.path.join(ex, "aa.csv"), "--manifest",
         os.path.join(ex, "aa-env.csv"), "--baseline", "A",
         "--candidate", "B"])))
    for run in sorted(glob.glob(os.path.join(ex, "archive", "runs", "*"))):
        logs = sorted(glob.glob(os.path.join(run, "log-*.csv")))
        tag = "archive-" + os.path.basename(run)
        groups["examples"].append((tag, compare(
            binary, out, tag,
            logs + ["--manifest", os.path.join(run, "manifest.csv")])))
    groups["examples"].append(("looks", compare(
        binary, out, "looks",
        [os.path.join(src, "tests", "data", "compare", "looks.csv"),
         "--baseline", "main", "--candidate", "pr"])))

    log = os.path.join(out, "synthetic200.csv")
    synthetic(log)
    args = [log, "--baseline", "main", "--candidate", "pr"]
    groups["200-case run"].append(
        ("synthetic", compare(binary, out, "synthetic", args)))
    groups["200-case run"].append(("synthetic-hotspot", compare(
        binary, out, "synthetic-hotspot",
        args + ["--mode", "hotspot", "--threshold", "5"])))

    total_exact = total = 0
    for name, results in groups.items():
        exact = n = blind = 0
        for tag, res in results:
            e, k = check(tag, res)
            exact, n, blind = exact + e, n + k, blind + res["blind"]
        print("%s (%d comparisons, %d blind cases): mde recomputed "
              "independently: %d of %d exact" %
              (name, len(results), blind, exact, n))
        total_exact, total = total_exact + exact, total + n
    print("mde recomputed independently: %d of %d exact" % (total_exact, total))
    # The synthetic log is meant to hold every kind of case the figure
    # distinguishes; a generator change that lost one would test less.
    syn = groups["200-case run"][0][1]
    levels = {c["level_pct"] for c in syn["cases"]}
    if syn["blind"] == 0 or syn["blind"] == len(syn["cases"]):
        fail("the 200-case run has %d blind cases: want some, not all" %
             syn["blind"])
    if levels != {95, 96, 99.3}:
        fail("the 200-case run's levels are %r, want 95, 96 and 99.3" %
             sorted(levels))
    if not syn["layout_sensitive"]:
        fail("the 200-case run has no layout-sensitive case")
    if len(syn["cases"]) != 200:
        fail("the 200-case run has %d cases" % len(syn["cases"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
