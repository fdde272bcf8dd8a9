#!/bin/sh
# Site speed (issue 5): a synthetic archive of RUNS runs x CASES cases
# (bench_archive.sh makes it), a full `benchsite site` build, then one more
# run and an incremental build. Prints the time per chart, the incremental
# build as a share of the full one, and peak memory. Targets: at most 3 ms
# per chart all told, incremental at most 5 % of full, peak memory under
# 500 MB. Prints, never fails on a slow machine.
#
# usage: bench/bench_site.sh [BUILD_DIR] [RUNS] [CASES]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
runs=${2:-1000}
cases=${3:-20}
bs=$build/benchsite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive=$work/archive
out=$work/public

echo "== archive: $runs runs x $cases cases"
"$here/bench/bench_archive.sh" "$build" "$runs" "$cases" "$archive"

echo "== full site build"
/usr/bin/time -f "%e %M" -o "$work/full.time" \
  "$bs" site --archive "$archive" --out "$out"
charts=$(find "$out" -name '*.svg' | wc -l)
pages=$(find "$out" -name '*.html' | wc -l)
bytes=$(du -sk "$out" | cut -f1)

echo "== one more run, incremental build"
first=$(ls "$archive/runs" | head -n 1)
sed -e 's/^commit,.*/commit,one-more-run/' \
  -e 's/^date,.*/date,2027-01-01T00:00:00Z/' \
  "$archive/runs/$first/manifest.csv" >"$work/env.csv"
"$bs" archive add --archive "$archive" "$archive/runs/$first/log-1.csv" \
  --manifest "$work/env.csv"
/usr/bin/time -f "%e %M" -o "$work/inc.time" \
  "$bs" site --archive "$archive" --out "$out"

/usr/bin/python3 - "$work/full.time" "$work/inc.time" "$charts" "$pages" \
  "$bytes" <<'PY'
import sys
full_s, full_kb = map(float, open(sys.argv[1]).read().split()[-2:])
inc_s, inc_kb = map(float, open(sys.argv[2]).read().split()[-2:])
charts, pages, kb = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print(f"full build: {full_s:.1f} s for {charts} charts and {pages} pages "
      f"({kb / 1024:.0f} MB): {full_s / charts * 1e3:.2f} ms per chart "
      f"all told (target <= 3 ms)")
print(f"incremental build after one run: {inc_s:.2f} s = "
      f"{inc_s / full_s * 100:.1f} % of the full build (target <= 5 %)")
print(f"peak memory: full {full_kb / 1024:.0f} MB, incremental "
      f"{inc_kb / 1024:.0f} MB (target < 500 MB)")
PY
