#!/bin/sh
# SVG compaction and the SVG check on hostile charts (issue 37: the
# compaction was cubic in the number of chart definitions, 5 s of CPU for
# a 50 KB chart). For each shape of bench/bench_svgmin.c (chained
# definitions, unused ones, '#' after '#', mergeable groups, deep nesting,
# an ordinary chart) at BYTES (default 1 MiB): the CPU time of this
# build's compaction and check, of a peer build's (default: the `main`
# branch, built from git into BUILD_DIR/peer-SHA with this bench_svgmin.c)
# at BYTES and at sizes doubling up to it while a try stays under LIMIT
# seconds (the growth per doubling: 2x linear, 4x quadratic, 8x cubic),
# and of libxml2 alone parsing the same file into a tree (xmllint
# --noout), the floor of any compaction. Prints, never fails on a slow
# machine; a try past LIMIT is stopped and shown as ">LIMIT".
#
# usage: bench/bench_svgmin.sh [BUILD_DIR] [PEER_GIT_REF|none] [BYTES]
#   defaults: build/release, main, 1048576; LIMIT (env) 60
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
peer=${2:-main}
bytes=${3:-1048576}
limit=${LIMIT:-60}
. "$here/bench/build.sh"
bench_build "$build" bench_svgmin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
shapes="chain unused hashes groups nested plain"

echo "this: $(git -C "$here" rev-parse --short HEAD) ($build/bench_svgmin)"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "== this build, $bytes bytes, CPU seconds (least of 3)"
"$build/bench_svgmin" "$bytes" 3

if command -v xmllint >/dev/null 2>&1; then
  echo
  echo "== libxml2 alone: xmllint --noout on the same charts, CPU seconds"
  for s in $shapes; do
    "$build/bench_svgmin" "$bytes" 1 "$s" "$work/$s.svg"
    python3 - "$work/$s.svg" "$s" <<'PY'
import resource, subprocess, sys
best = None
for _ in range(3):
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["xmllint", "--noout", "--nonet", sys.argv[1]], check=True)
    t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime)
    best = t if best is None else min(best, t)
print(f"{sys.argv[2]:<7} {best:10.3f}")
PY
  done
else
  echo "(xmllint is not installed: no libxml2 figure)"
fi

[ "$peer" != none ] || exit 0
sha=$(git -C "$here" rev-parse --short "$peer")
src=$build/peer-$sha
if [ ! -x "$src/build/bench_svgmin" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  git -C "$here" archive "$sha" | tar -x -C "$src"
  cp "$here/bench/bench_svgmin.c" "$src/bench/"
  cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBENCHSITE_TESTS=OFF >/dev/null
  cmake --build "$src/build" --target bench_svgmin >/dev/null
fi
echo
echo "== peer $peer ($sha), one try per size, stopped after $limit s"
printf '%-7s %10s %12s %12s\n' shape bytes "compact (s)" "check (s)"
for s in $shapes; do
  n=16384
  while :; do
    [ "$n" -lt "$bytes" ] || n=$bytes
    if out=$(timeout "$limit" "$src/build/bench_svgmin" "$n" 1 "$s"); then
      echo "$out" | tail -n 1 | cut -c1-44
    else
      printf '%-7s %10s %12s\n' "$s" "$n" ">$limit"
      break
    fi
    [ "$n" -lt "$bytes" ] || break
    n=$((n * 2))
  done
done
