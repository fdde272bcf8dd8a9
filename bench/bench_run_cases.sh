#!/bin/sh
# The runner with many cases (issue 23: cases were looked up by a linear
# scan, so 20 000 benchmarks took 9 s, 40 000 took 29 s and 80 000 did not
# finish in 40 s). For each size in SIZES, the time of `benchsite run`
#   - in library mode: a library defining that many cases, --filter
#     selecting one of them (so the time is the case tables, not the
#     measuring), one block;
#   - in Google Benchmark mode: a stand-in that prints a report of that
#     many benchmarks, two blocks;
# beside the same runs of a peer build (default: the `main` branch, built
# from git into BUILD_DIR/peer-SHA). Wall and CPU seconds (benchsite and
# its children), the least of three tries; a try past LIMIT seconds is
# stopped and shown as ">LIMIT". Prints, never fails on a slow machine.
#
# usage: bench/bench_run_cases.sh [BUILD_DIR] [PEER_BENCHSITE|GIT_REF]
#   defaults: build/release, main; SIZES (env) "20000 40000 80000",
#   LIMIT (env) 60
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
peer=${2:-main}
sizes=${SIZES:-20000 40000 80000}
limit=${LIMIT:-60}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli
bs=$build/benchsite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -x "$peer" ]; then
  sha=$(git -C "$here" rev-parse --short "$peer")
  src=$build/peer-$sha
  if [ ! -x "$src/build/benchsite" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    git -C "$here" archive "$sha" | tar -x -C "$src"
    cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBENCHSITE_TESTS=OFF >/dev/null
    cmake --build "$src/build" --target benchsite_cli >/dev/null
  fi
  echo "peer: $peer ($sha), $src/build/benchsite"
  peer=$src/build/benchsite
else
  echo "peer: $peer"
fi
echo "this: $bs ($(git -C "$here" rev-parse --short HEAD))"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# The library of N cases and the Google Benchmark report of N entries.
make_inputs() { # N
  python3 - "$1" "$work" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
with open(f"{work}/lib{n}.c", "w") as f:
    f.write('#include "benchsite/harness.h"\n'
            "static void run(void *s, uint64_t n) { (void)s;"
            " for (volatile uint64_t i = 0; i < n; i++) ; }\n"
            "static const bs_bench_case cases[] = {\n")
    for i in range(n):
        f.write(f'  {{"bench_{i}", "n={i}", {i + 1}, 0, run, 0, 0}},\n')
    f.write("};\nBS_HARNESS_DEFINE_CASES(cases)\n")
with open(f"{work}/gb{n}.json", "w") as f:
    f.write('{"benchmarks": [\n')
    f.write(",\n".join(
        f'{{"name": "BM_case_{i}/{i}", "run_type": "iteration",'
        f' "iterations": 1000, "real_time": {1 + i % 7}.5,'
        f' "cpu_time": 1.25, "time_unit": "ns"}}' for i in range(n)))
    f.write("\n]}\n")
with open(f"{work}/gb{n}.sh", "w") as f:
    f.write(f"#!/bin/sh\nexec cat {work}/gb{n}.json\n")
PY
  chmod +x "$work/gb$1.sh"
  cc -O1 -shared -fPIC -I"$here/src/run/include" -o "$work/lib$1.so" "$work/lib$1.c"
}

# "WALL CPU" of the least of three tries of a command, or ">LIMIT".
best_of_3() {
  python3 - "$limit" "$@" <<'PY'
import os, resource, subprocess, sys, time
limit, cmd = float(sys.argv[1]), sys.argv[2:]
best = None
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=limit)
    except subprocess.TimeoutExpired:
        print(f">{limit:g} -")
        sys.exit(0)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        print(f"exit{r.returncode} -", file=sys.stdout)
        sys.stderr.write(r.stderr.decode(errors="replace")[-300:])
        sys.exit(0)
    if best is None or wall < best[0]:
        best = (wall, cpu)
print(f"{best[0]:.2f} {best[1]:.2f}")
PY
}

printf '%-8s %-6s %16s %16s\n' mode cases "this wall/cpu s" "peer wall/cpu s"
for n in $sizes; do
  make_inputs "$n"
  for mode in lib gb; do
    if [ "$mode" = lib ]; then
      set -- run --quiet --out "$work/out.csv" --blocks 1 --filter bench_7/ \
        --lib "a=$work/lib$n.so"
    else
      set -- run --quiet --out "$work/out.csv" --blocks 2 \
        --google-benchmark "a=$work/gb$n.sh"
    fi
    this=$(best_of_3 "$bs" "$@")
    that=$(best_of_3 "$peer" "$@")
    printf '%-8s %-6s %16s %16s\n' "$mode" "$n" "$(echo "$this" | tr ' ' /)" \
      "$(echo "$that" | tr ' ' /)"
  done
done
