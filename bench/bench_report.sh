#!/bin/sh
# Renders a report of 200 compared cases (601 charts) and prints the time
# per chart, all told, with every chart rendered by one gnuplot process
# and, for comparison, with one gnuplot process per chart.
#
#   bench/bench_report.sh [BUILD_DIR]     (default: build/release)
#
# BUILD_DIR is configured as Release if new; bench_report is brought up to
# date. Target: at most 3 ms per chart all told.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
bin=$build/bench_report
. "$here/bench/build.sh"
bench_build "$build" bench_report
command -v gnuplot >/dev/null || { echo "bench_report.sh: gnuplot not found" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_report.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# 200 cases x 20 blocks x 2 impls, deterministic numbers (an LCG in awk).
awk 'BEGIN {
  print "benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us"
  s = 12345
  for (c = 0; c < 200; c++) {
    base = 5 + (c % 37) * 3.5; shift = ((c % 9) - 4) * 0.02
    for (b = 0; b < 20; b++) {
      s = (s * 1103515245 + 12345) % 2147483648; u = s / 2147483648
      s = (s * 1103515245 + 12345) % 2147483648; v = s / 2147483648
      printf "bench%03d,n=%d,%d,main,0,%d,confirm,1000,%.6f\n", c, 64 * (c % 50 + 1), 64 * (c % 50 + 1), b, base * (1 + (u - 0.5) * 0.04)
      printf "bench%03d,n=%d,%d,pr,0,%d,confirm,1000,%.6f\n", c, 64 * (c % 50 + 1), 64 * (c % 50 + 1), b, base * (1 + shift + (v - 0.5) * 0.04)
    }
  }
}' > "$work/log.csv"
printf 'key,value\ntarget,native\nprofile,release\ndtype,f64\nmachine,bench\nfrequency_policy,performance\ncommit,bench\ndate,2026-01-01T00:00:00Z\nprotocol,Development\nbaseline,main\ncandidate,pr\n' > "$work/env.csv"

run() {
  "$bin" "$work/log.csv" "$work/env.csv" "$work/out" "$here/templates" "$here/site" "$@"
}

echo "one gnuplot process for all charts (3 runs):"
for i in 1 2 3; do run; done
echo "one gnuplot process per chart (1 run):"
run 1
