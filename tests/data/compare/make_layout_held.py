#!/usr/bin/python3
"""Reference values for layout-sensitive cases held by their runs
(tests/test_compare.c: compare.layout_sensitive_changes_must_hold_over_runs).

    cd tests/data/compare && /usr/bin/python3 make_layout_held.py

writes layout_held.csv, a log of 5 runs of 8 blocks per case, the
baseline 100 us in every block and the candidate 100 + x, x the run's own
change (so each run's paired change is x % exactly), and
layout_held_expected.txt: per case the spread (max - min) of the runs'
changes, the one-sided p-value toward a regression of Student's t test of
the runs' changes against 0 (scipy.stats.ttest_1samp, alternative
"greater"; "nan" when the spread is within 3 %, the case then not
layout-sensitive), and 1 or 0 for held, significant regression and
significant improvement, by the rule: the interval (certainly clear of 0
here: at most one run in five disagrees) shows the change, and the runs
must too, at alpha = (100 - 95) / 200 = 0.025 (no looks: the gate's 95 %).
"""
import numpy as np
from scipy import stats

CASES = {
    "held": [8, 7, -5, 9, 6],
    "holds": [8, 7, 4, 9, 6],
    "faster_held": [-8, -7, 5, -9, -6],
    "faster_holds": [-8, -7, -4, -9, -6],
    "steady": [8, 8, 8, 8, 8],
}
ALPHA = 0.025

with open("layout_held.csv", "w") as f:
    f.write("benchmark,impl,run,block,per_call_us\n")
    for name, xs in CASES.items():
        for run, x in enumerate(xs):
            for block in range(8):
                f.write(f"{name},main,{run},{block},100\n")
                f.write(f"{name},pr,{run},{block},{100 + x}\n")

with open("layout_held_expected.txt", "w") as f:
    f.write("# case spread runs_p held regression improvement\n")
    for name, xs in CASES.items():
        xs = np.array(xs, dtype=float)
        spread = xs.max() - xs.min()
        delta = np.median(np.repeat(xs, 8))
        if spread > 3:
            p = stats.ttest_1samp(xs, 0.0, alternative="greater").pvalue
        else:
            p = float("nan")
        up, down = delta >= 3, delta <= -3
        held = spread > 3 and ((up and not p <= ALPHA) or (down and not 1 - p <= ALPHA))
        f.write(f"{name} {spread!r} {p!r} {int(held)} {int(up and not held)} "
                f"{int(down and not held)}\n")
