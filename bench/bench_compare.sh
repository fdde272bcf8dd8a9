#!/bin/sh
# Confirmatory analysis speed against scipy.stats.bootstrap on the same data
# (targets: <= 0.5 ms per case, >= 25x scipy) and, for one case of m = 8 ...
# 24 pairs, against a floor: the same draws and medians done the simplest
# fast way, in the same process (target at m = 20: <= 1.3x the floor).
# Prints, never fails on a slow machine. Usage: bench/bench_compare.sh
# [BUILD_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
. "$here/bench/build.sh"
bench_build "$build" bench_compare
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bench_compare" "$out" | tee "$out/c.txt"
c_ms=$(sed -n 's/^RESULT per_case_ms=\([0-9.]*\).*/\1/p' "$out/c.txt")
floor=$(sed -n 's/^RESULT .*floor_ratio_m20=\([0-9.]*\).*/\1/p' "$out/c.txt")
echo "one case at m = 20: benchsite takes ${floor}x the CPU time of its floor (target <= 1.3x; 0 = no floor on this CPU)"
/usr/bin/python3 - "$out/deltas.txt" "$c_ms" <<'PY'
import sys, time
import numpy as np
from scipy import stats
d = np.loadtxt(sys.argv[1])
c_ms = float(sys.argv[2])
reps, t0 = 0, time.perf_counter()
while True:
    res = stats.bootstrap((d,), np.median, n_resamples=10000,
                          confidence_level=0.95, method="percentile",
                          random_state=reps)
    reps += 1
    t = time.perf_counter() - t0
    if t > 3.0:
        break
sp_ms = t / reps * 1e3
print(f"scipy.stats.bootstrap (percentile, median, 10000): {sp_ms:.3f} ms per case "
      f"over {reps} runs (interval [{res.confidence_interval.low:.4f}, "
      f"{res.confidence_interval.high:.4f}] us)")
print(f"benchsite is {sp_ms / c_ms:.1f}x faster than scipy "
      f"(target >= 25x; per case {c_ms:.4f} ms, target <= 0.5 ms)")
PY
