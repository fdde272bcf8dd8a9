#!/bin/sh
# CI: every libFuzzer target for SECONDS each (default 60) under ASan +
# UBSan, JOBS at a time (default: the number of cores). Fails when any
# target finds a crash; the inputs are in build/fuzz/artifacts/TARGET/.
#
#   tests/fuzz/run-ci.sh [SECONDS]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
build=$here/build/fuzz
if [ ! -f "$build/build.ninja" ]; then
  CC=${CC:-clang} cmake -S "$here" -B "$build" -G Ninja \
    -DBENCHSITE_FUZZ=ON -DBENCHSITE_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug \
    >/dev/null
fi
cmake --build "$build" >/dev/null
logs=$build/ci-logs
mkdir -p "$logs"
targets=$(cd "$here/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fail=0
set -- $targets
while [ $# -gt 0 ]; do
  pids=""
  n=0
  while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
    t=$1
    shift
    BS_FUZZ_NOBUILD=1 "$here/tests/fuzz/run.sh" "$t" "$seconds" "$build" \
      >"$logs/$t.txt" 2>&1 &
    pids="$pids $!:$t"
    n=$((n + 1))
  done
  for p in $pids; do
    if wait "${p%%:*}"; then
      echo "fuzz ${p#*:}: clean ($(grep -o 'stat::number_of_executed_units: *[0-9]*' \
        "$logs/${p#*:}.txt" | grep -o '[0-9]*$') runs)"
    else
      echo "fuzz ${p#*:}: FAILED, see $logs/${p#*:}.txt" >&2
      tail -30 "$logs/${p#*:}.txt" >&2
      fail=1
    fi
  done
done
exit $fail
