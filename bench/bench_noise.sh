#!/bin/sh
# Times the A/A validation (issue 3): 40 runs x 2 impls x 100 samples at
# R = 10000, i.e. 80 unpaired bootstrap confidences, and prints the time
# per confidence beside numpy doing the same resampling on the same data.
#
# usage: bench/bench_noise.sh [BUILD_DIR]
# BUILD_DIR defaults to build/release (configured as Release if new).
# Needs Debian's /usr/bin/python3 with numpy for the comparison.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
py=/usr/bin/python3

. "$here/bench/build.sh"
bench_build "$build" bench_noise benchsite_cli

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== benchsite (C), per engine; CPU time"
"$build/bench_noise" 40 100 10000 --csv "$tmp/aa.csv"

echo
echo "== benchsite noise on the same log, end to end (wall clock)"
start=$(date +%s.%N)
"$build/benchsite" noise "$tmp/aa.csv" --a A --b B --json "$tmp/aa.json"
end=$(date +%s.%N)
echo "$start $end" | awk '{ printf "benchsite noise: %.3f s\n", $2 - $1 }'

echo
echo "== numpy, the same resampling (R medians of n draws per series)"
"$py" - "$tmp/aa.csv" <<'EOF'
import csv
import sys
import time

import numpy as np

runs = {}
with open(sys.argv[1], newline="") as f:
    for r in csv.DictReader(f):
        runs.setdefault(int(r["run"]), {"A": [], "B": []})[r["impl"]].append(
            float(r["per_call_us"]))

R = 10000
rng = np.random.default_rng(0)


def conf(x, y):
    x = np.asarray(x)
    y = np.asarray(y)
    mx = np.median(x[rng.integers(0, len(x), size=(R, len(x)))], axis=1)
    my = np.median(y[rng.integers(0, len(y), size=(R, len(y)))], axis=1)
    return float(np.mean((mx == my) | (1.0 - mx / my >= 0)))


start = time.process_time()
n = 0
for k in sorted(runs):
    conf(runs[k]["A"], runs[k]["B"])
    conf(runs[k]["B"], runs[k]["A"])
    n += 2
t = time.process_time() - start
print(f"numpy {np.__version__}: {n} confidences in {t:.3f} s CPU = "
      f"{1e3 * t / n:.3f} ms per confidence")
EOF
