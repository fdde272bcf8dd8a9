#!/usr/bin/env python3
"""Writes the fixtures of tests/test_metrics.c (run from this directory).

metrics.csv     a log with all three metrics: wall (per_call_us), CPU time
                (cpu_per_call_us) and peak memory (max_rss_kib), for impls
                main and pr, cases sum/dot/scan, 12 blocks, one calibration
                row per impl without the optional columns (they are only
                required of confirm rows).
cpu_as_wall.csv the same rows with per_call_us holding the CPU times and no
                cpu_per_call_us or max_rss_kib column;
rss_as_wall.csv the same with per_call_us holding the peak memory.

`compare --metric cpu` of metrics.csv must give the JSON `compare` gives of
cpu_as_wall.csv (but for "metric"), and likewise for rss: the metric
changes which column is read and nothing else. The copies are made here,
not by benchsite, so the check is independent.

inconclusive.csv is written by hand below; see tests/test_metrics.c for the
worked values.
"""
import random

rng = random.Random(20261201)
header = ["benchmark", "dataset", "impl", "run", "block", "phase",
          "iterations", "per_call_us", "cpu_per_call_us", "max_rss_kib"]
rows = []
for impl in ("main", "pr"):
    rows.append(["sum", "n=8", impl, "0", "", "calibration", "10",
                 "%.17g" % 2.5, "", ""])
cases = {  # wall, cpu, rss of main; pr's factor for each
    "sum": (10.0, 9.5, 2048, 1.05, 1.04, 1.25),
    "dot": (20.0, 19.0, 40000, 1.00, 0.97, 1.00),
    "scan": (0.5, 0.45, 900, 0.90, 0.92, 0.998),
}
for block in range(12):
    for name, (w, c, m, fw, fc, fm) in cases.items():
        for impl in (("main", "pr") if block % 2 == 0 else ("pr", "main")):
            kw = 1.0 if impl == "main" else fw
            kc = 1.0 if impl == "main" else fc
            km = 1.0 if impl == "main" else fm
            wall = w * kw * (1 + rng.gauss(0, 0.01))
            cpu = c * kc * (1 + rng.gauss(0, 0.01))
            rss = round(m * km + rng.randint(0, 16))
            rows.append([name, "n=8", impl, "0", str(block), "confirm", "100",
                         "%.17g" % wall, "%.17g" % cpu, "%d" % rss])


def write(path, cols, transform):
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(transform(r)) + "\n")


write("metrics.csv", header, lambda r: r)
base = header[:8]
write("cpu_as_wall.csv", base,
      lambda r: r[:7] + [r[8] if r[5] == "confirm" else r[7]])
write("rss_as_wall.csv", base,
      lambda r: r[:7] + [r[9] if r[5] == "confirm" else r[7]])
