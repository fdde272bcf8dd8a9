#!/bin/sh
# The memory of reading a harness's report (issue 36: a Google Benchmark
# or pytest-benchmark report became a JSON tree about 21 times its size,
# 57 MiB of report -> 1.2 GB). Makes a Google Benchmark report of SIZE MiB
# (default 50: the target is <= 200 MB peak) and a pytest-benchmark report
# of the same size, entries as the harnesses write them (counters, one of
# them NaN; pytest's statistics), and prints the peak resident memory of
# `benchsite run` reading each through a stand-in harness that prints the
# file (Google Benchmark) or copies it where it is told (pytest), one impl
# and one block, then two impls and three blocks; beside it the report's
# size, and Python's json.load of the same file (a peer: a whole tree).
# With PEER (a benchsite binary or a git ref, built from git into
# BUILD_DIR/peer-SHA), the same runs of that build too, and the NaN
# counters become 0.5 (builds before issue 36 refuse NaN). Prints, never
# fails on a slow machine.
#
# usage: bench/bench_harness_memory.sh [BUILD_DIR] [PEER_BENCHSITE|GIT_REF]
#   defaults: build/release, no peer; SIZE (env) 50
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
peer=${2:-}
size=${SIZE:-50}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli
bs=$build/benchsite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$peer" ] && [ ! -x "$peer" ]; then
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
elif [ -n "$peer" ]; then
  echo "peer: $peer"
fi
echo "this: $bs ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work" "$size" "${peer:+0.5}" <<'PY'
import sys
work, mib = sys.argv[1], int(sys.argv[2])
nan = sys.argv[3] or "NaN"
want = mib << 20
for kind in ("gb", "pt"):
    with open(f"{work}/{kind}.json", "w") as f:
        f.write('{"context": {"date": "2026-12-04T10:00:00+00:00", '
                '"num_cpus": 2, "load_avg": [1.5, 1.2, 1.0]},\n'
                ' "benchmarks": [\n' if kind == "gb" else
                '{"machine_info": {"node": "x", "cpu": {"count": 2}},\n'
                ' "benchmarks": [\n')
        n, i = 0, 0
        while n < want:
            if kind == "gb":
                e = ('    {\n'
                     f'      "name": "BM_Codec_{i % 97}/{i}/real_time",\n'
                     f'      "family_index": {i % 97},\n'
                     f'      "per_family_instance_index": {i // 97},\n'
                     f'      "run_name": "BM_Codec_{i % 97}/{i}/real_time",\n'
                     '      "run_type": "iteration",\n'
                     '      "repetitions": 1,\n'
                     '      "repetition_index": 0,\n'
                     '      "threads": 1,\n'
                     f'      "iterations": {1000 + i % 7},\n'
                     f'      "real_time": {1.5e3 + i % 11:.16e},\n'
                     f'      "cpu_time": {1.4e3 + i % 13:.16e},\n'
                     '      "time_unit": "ns",\n'
                     '      "bytes_per_second": 2.7306666666666666e+09,\n'
                     '      "items_per_second": 6.6666666666666672e+05,\n'
                     f'      "ratio": {nan}\n'
                     '    }')
            else:
                e = ('    {"group": null, '
                     f'"name": "test_codec_{i % 97}[{i}]", '
                     f'"fullname": "tests/test_codec.py::test_codec_{i % 97}[{i}]", '
                     f'"params": {{"n": {i}}}, "param": "{i}", '
                     f'"extra_info": {{"ratio": {nan}}}, "options": '
                     '{"disable_gc": false, "timer": "perf_counter", '
                     '"min_rounds": 5, "max_time": 1.0, "min_time": 5e-06, '
                     '"warmup": false}, "stats": {"min": 1.2e-06, '
                     '"max": 2.5e-06, "mean": 1.5e-06, "stddev": 1.1e-07, '
                     '"rounds": 1000, "median": 1.49e-06, "iqr": 1e-07, '
                     '"q1": 1.45e-06, "q3": 1.55e-06, "iqr_outliers": 12, '
                     '"stddev_outliers": 40, "outliers": "40;12", '
                     '"ld15iqr": 1.3e-06, "hd15iqr": 1.7e-06, '
                     '"ops": 666666.6666666666, "total": 0.0015, '
                     '"iterations": 10}}')
            f.write(("" if i == 0 else ",\n") + e)
            n += len(e) + 2
            i += 1
        f.write("\n  ]\n}\n")
PY

# peak RSS (KiB) of a command: its largest descendant as rusage sees it
peak() {
  python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)
if r.returncode:
    sys.stderr.write(r.stderr.decode(errors="replace"))
    print("failed(%d)" % r.returncode)
else:
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$@"
}

cat >"$work/pt.sh" <<EOF
#!/bin/sh
for a; do case \$a in --benchmark-json=*) f=\${a#--benchmark-json=};; esac; done
cp '$work/pt.json' "\$f"
EOF
chmod +x "$work/pt.sh"

mib() { awk -v k="$1" 'BEGIN { if (k ~ /^[0-9]+$/) printf "%7.1f MB", k * 1024 / 1e6; else printf "%10s", k }'; }
report() { # LABEL BENCHSITE
  for kind in gb pt; do
    bytes=$(wc -c <"$work/$kind.json")
    if [ $kind = gb ]; then
      what="Google Benchmark"
      opt=--google-benchmark
      cmd="/bin/sh -c 'exec cat \"\$0\"' $work/gb.json"
    else
      what=pytest-benchmark
      opt=--pytest-benchmark
      cmd=$work/pt.sh
    fi
    one=$(peak "$2" run --quiet --out "$work/log.csv" --blocks 1 $opt "a=$cmd")
    two=$(peak "$2" run --quiet --out "$work/log.csv" --blocks 3 \
      $opt "a=$cmd" $opt "b=$cmd")
    printf '%-6s %-17s %7.1f MB report: peak %s (1 impl, 1 block), %s (2 impls, 3 blocks)\n' \
      "$1" "$what" "$(echo "$bytes" | awk '{ print $1 / 1e6 }')" \
      "$(mib "$one")" "$(mib "$two")"
  done
}
echo "report sizes and peak resident memory of \`benchsite run\` (target: a 50 MiB Google Benchmark report in <= 200 MB):"
report this "$bs"
[ -n "$peer" ] && report peer "$peer"
for kind in gb pt; do
  what="Google Benchmark"
  [ $kind = pt ] && what=pytest-benchmark
  py=$(peak python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/$kind.json")
  printf '%-6s %-17s Python json.load of the same file: peak %s\n' python "$what" "$(mib "$py")"
done
