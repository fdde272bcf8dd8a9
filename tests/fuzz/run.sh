#!/bin/sh
# Runs one libFuzzer target for a fixed time under ASan + UBSan.
#
#   tests/fuzz/run.sh TARGET SECONDS [BUILD_DIR] [-- LIBFUZZER_ARGS...]
#
# TARGET is log, manifest, csvin, num, json, jsonread, template, markup,
# acks, archive, sitestate or harness (tests/fuzz/fuzz_TARGET.c). Builds
# BUILD_DIR (default build/fuzz, with
# CC=clang) when needed, seeds the working corpus BUILD_DIR/corpus/TARGET
# from examples/, tests/data/ and tests/fuzz/regressions/TARGET/, and
# fuzzes on one core. A crashing input lands in BUILD_DIR/artifacts/TARGET/
# and the script exits non-zero: fix the bug, then copy the input into
# tests/fuzz/regressions/TARGET/ (CTest replays that directory).
set -eu
if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$here/build/fuzz
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  build=$1
  shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
src=$here/tests/fuzz/fuzz_$target.c
if [ ! -f "$src" ]; then
  echo "run.sh: no target $target ($src)" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  CC=${CC:-clang} cmake -S "$here" -B "$build" -G Ninja \
    -DBENCHSITE_FUZZ=ON -DBENCHSITE_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug \
    >/dev/null
fi
# run-ci.sh builds everything first and sets BS_FUZZ_NOBUILD, so parallel
# runs do not start ninja in the same tree at once.
[ -n "${BS_FUZZ_NOBUILD:-}" ] || cmake --build "$build" --target "fuzz_$target" >/dev/null

# Seeds: the inputs the target reads, as files.
seeds=""
case $target in
log | csvin)
  seeds="$here/examples $here/tests/data/log $here/tests/data/bad
         $here/tests/data/compare $here/tests/data/check $here/tests/data/noise"
  ;;
manifest) seeds="$here/examples $here/tests/data/manifest $here/tests/data/bad" ;;
template) seeds="$here/templates" ;;
jsonread) seeds="$here/tests/data/noise $here/tests/data/metrics $here/tests/data/report" ;;
acks) seeds="$here/tests/data/archive/acks" ;;
esac
regressions=$here/tests/fuzz/regressions/$target
corpus=$build/corpus/$target
artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts"
for d in $seeds $here/tests/fuzz/seeds/$target $regressions; do
  [ -d "$d" ] || continue
  find "$d" -maxdepth 2 -type f -size -64k -exec cp {} "$corpus"/ \; 2>/dev/null || true
done
case $target in
log | manifest | csvin | acks | archive) dict=$here/tests/fuzz/csv.dict ;;
*) dict=$here/tests/fuzz/$target.dict ;;
esac
if [ -f "$dict" ]; then dict="-dict=$dict"; else dict=""; fi

echo "fuzz_$target: ${seconds}s, corpus $corpus ($(ls "$corpus" | wc -l) files)"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$build/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" $dict "$@" "$corpus"
