#!/bin/sh
# Start-up (issue 22 target: `benchsite --help` and `compare` of a
# one-case log within 1.5x /bin/true, in CPU time). Prints, never fails on
# a slow machine.
#
#   bench/bench_startup.sh [BUILD_DIR] [ROUNDS] [BEFORE_BINARY]
#
# bench_startup (bench/bench_startup.c) starts /bin/true, `benchsite
# --help`, `compare` and `check` of a one-case log (the `sum` case of
# examples/pr.csv), and BEFORE_BINARY's same three commands when given,
# once each per round, interleaved, ROUNDS rounds (default 300): CPU time
# (user + system) of each process from getrusage, least / median / 90th
# percentile, its page faults, and the ratio to /bin/true. Then the cost of
# one more measuring process of `benchsite run` (each is benchsite started
# again): `run --fresh block` (one process per block, 11 for 10 blocks)
# against `--fresh run` (one process) on bench/runlib's empty body, the
# difference of the medians divided by the 10 extra processes. Last,
# `report` of examples/pr.csv, which draws charts and so loads libxml2.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
rounds=${2:-300}
before=${3:-}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli bench_startup bench_runlib
bs=$build/benchsite
timer=$build/bench_startup
lib=$build/bench/libbench_runlib.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

awk -F, 'NR == 1 || $1 == "sum"' "$here/examples/pr.csv" >"$out/one.csv"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo |
  head -1); load average $(load)"
echo "benchsite: $bs (needs: $(LC_ALL=C readelf -d "$bs" 2>/dev/null |
  sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '))"
[ -n "$before" ] && echo "before:    $before (needs: $(LC_ALL=C readelf -d \
  "$before" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
  tr '\n' ' '))"

one=$out/one.csv
set -- -- true /bin/true \
  -- help "$bs" --help \
  -- compare "$bs" compare "$one" --baseline main --candidate pr \
  -- check "$bs" check "$one" --manifest "$here/examples/env.csv"
if [ -n "$before" ]; then
  set -- "$@" -- help-before "$before" --help \
    -- compare-before "$before" compare "$one" --baseline main --candidate pr \
    -- check-before "$before" check "$one" --manifest "$here/examples/env.csv"
fi

echo
echo "== start-up: CPU ms per process, $rounds interleaved rounds"
"$timer" "$rounds" "$@" | tee "$out/startup.txt"
echo "load average after: $(load)"
awk '$1 == "help" || $1 == "compare" {
       printf "%-8s %.2fx /bin/true (median; paired %s; target <= 1.5x)\n",
              $1, $7, $8 }' "$out/startup.txt"

echo
echo "== run's measuring processes: --fresh block (11) against --fresh run (1)"
opts="--filter empty --blocks 10 --protocol Shared"
# shellcheck disable=SC2086 # $opts: words without blanks
set -- -- fresh-run "$bs" run --lib "a=$lib" $opts --fresh run \
  --out "$out/r.csv" \
  -- fresh-block "$bs" run --lib "a=$lib" $opts --fresh block \
  --out "$out/b.csv"
if [ -n "$before" ]; then
  # shellcheck disable=SC2086
  set -- "$@" -- fresh-run-before "$before" run --lib "a=$lib" $opts \
    --fresh run --out "$out/r.csv" \
    -- fresh-block-before "$before" run --lib "a=$lib" $opts --fresh block \
    --out "$out/b.csv"
fi
"$timer" $((rounds / 10 > 10 ? rounds / 10 : 10)) "$@" | tee "$out/fresh.txt"
echo "load average after: $(load)"
awk '{ med[$1] = $3 }
     END {
       printf "one measuring process: %.2f ms CPU", \
              (med["fresh-block"] - med["fresh-run"]) / 10
       if ("fresh-block-before" in med)
         printf " (before: %.2f ms)", \
                (med["fresh-block-before"] - med["fresh-run-before"]) / 10
       printf "\n" }' "$out/fresh.txt"

echo
echo "== report of examples/pr.csv (13 charts; libxml2 loaded for the first)"
ex=$here/examples
set -- -- report "$bs" report "$ex/pr.csv" --manifest "$ex/env.csv" \
  --out "$out/report"
if [ -n "$before" ]; then
  set -- "$@" -- report-before "$before" report "$ex/pr.csv" \
    --manifest "$ex/env.csv" --out "$out/report-before"
fi
"$timer" $((rounds / 15 > 10 ? rounds / 15 : 10)) "$@"
echo "load average after: $(load)"
