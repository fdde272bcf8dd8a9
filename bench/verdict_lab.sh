#!/bin/sh
# The verdict lab: how often `benchsite run` + the gate call identical code
# a regression, how often they find a planted one, and how long a run
# takes, under background load the script starts and stops itself; the
# same logs judged beside by asv's, benchstat's and Criterion.rs's rules
# (bench/verdict/judge.py, which cites the version of each rule). A
# benchmark: it prints figures and never fails because of them.
#
#   bench/verdict_lab.sh [options]              the lab (A/A and plants)
#   bench/verdict_lab.sh --example N [options]  .ci/example's gate, N times
#   bench/verdict_lab.sh --snappy BASE_BUILD HEAD_BUILD [options]
#   bench/verdict_lab.sh --harness [options]    harness programs: Google
#                                               Benchmark, go test and
#                                               pytest-benchmark suites
#                                               (bench/verdict/harness/)
#   bench/verdict_lab.sh --commands N [options] two command pairs N times
#                                               each: dd over 64 MiB spelled
#                                               two ways (unchanged), and
#                                               64 MiB against 192 MiB
#   bench/verdict_lab.sh --table DIR...         print finished labs again;
#                                               cells of the same load and
#                                               configuration are also
#                                               pooled for the targets
#
# Options:
#   --quick              few repetitions (6 A/A, 3 per plant), criterion
#                        with 10 000 resamples, configurations dev (and
#                        shared when the build has it): about 10 minutes
#                        for the four loads on a quiet machine
#   --loads LIST         none,half,bursty,busy1,busy2,membw (default
#                        none,half,bursty,busy1; --example half; --snappy
#                        none,busy1; --harness none,half,busy1): nothing
#                        added; one busy process on
#                        the whole machine (one CPU of two contended, the
#                        commonest CI runner); one process busy in bursts
#                        of 10-200 ms at about 30 % duty; 1 or 2 busy
#                        processes per CPU; one streaming copy over
#                        2 x 256 MiB
#   --configs LIST       PRESET[+duet][+seq][+fresh],... with PRESET one
#                        of default (no --protocol), dev, gate, shared;
#                        +duet adds --duet, +seq --sequential (the two
#                        builds one after the other), +fresh --fresh block,
#                        +runsN measures N runs (N fresh measuring
#                        processes) of the preset's blocks / N each, or
#                        of M each with +blocksM after it.
#                        A configuration this build's `run` cannot do is
#                        skipped with a note. Default (full): dev,gate,
#                        shared,dev+duet,shared+duet,dev+fresh,shared+fresh;
#                        --quick: dev,shared; --example and --snappy:
#                        default (run's own defaults; snappy takes the
#                        first configuration only); --harness:
#                        default+seq,default+duet (one program after the
#                        other against side by side; run's own default is
#                        side by side for Google Benchmark, one after the
#                        other for go and pytest)
#   --reps N             A/A runs per cell (default 40; --quick 6;
#                        --harness 10)
#   --plant-reps N       runs per plant per cell (default 20; --quick 3;
#                        --harness 10)
#   --plants LIST        planted slowdowns in % (default 1,2,3,5,10;
#                        --harness 10)
#   --harnesses LIST     --harness: gbench,go,pytest (the default; one
#                        whose tools are missing is skipped with a note)
#   --criterion-resamples R   (default 100000, Criterion's own; --quick 10000)
#   --build DIR          benchsite build to measure (default build/release)
#   --work DIR           where logs go (default BUILD/verdict-lab); each
#                        invocation writes a new run-DATE folder there
#   --cap SECONDS        bound of every load generator, started anew for
#                        each cell (default 7200)
#   --blocks M           snappy: blocks (default 30), in one run: each
#                        block starts both programs anew already;
#                        --harness: --blocks M for every run (default:
#                        none, run's own: 50 pairs under Shared)
#   --snappy-filter RE   snappy: Google Benchmark filter
#                        (default 'BM_UFlat/|BM_ZFlat/')
#   --snappy-min-time S  snappy: --benchmark_min_time (default 0.1)
#
# One repetition is one `benchsite run` of the nine cases of
# bench/verdict/cases.c (base against a candidate, as a CI job runs it)
# and one `benchsite compare` of its log, with --metric cpu beside when
# the build has it. With --harness, one `benchsite run` of a harness's
# six-case suite (bench/verdict/harness/: an A/A pair of identical builds,
# and candidates whose lookup case does PLANT % more work) and one
# `benchsite compare` with the default metric (the manifest's gate_metric:
# CPU time for Google Benchmark, wall time for go and pytest, which
# report no CPU time), judged per harness, load
# and configuration (judge.py harness): cases of identical builds flagged
# (target <= 2.5 %) and the planted +10 % found with no other case
# flagged (target >= 9 of 10). Every load generator runs under `timeout` and is
# killed by its PID when its cell ends, on any exit and on Ctrl-C.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/build.sh"
py=/usr/bin/python3 # Debian's, with python3-numpy and python3-scipy
judge="$here/bench/verdict/judge.py"

mode=lab
quick=0
loads=
configs=
reps=
plant_reps=
plants=1,2,3,5,10
resamples=
build=$here/build/release
work=
cap=7200
blocks=30
snappy_filter='BM_UFlat/|BM_ZFlat/'
snappy_min_time=0.1
example_n=10
snappy_base=
snappy_head=
harnesses=gbench,go,pytest
blocks_set=0

usage() {
  sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
  --quick) quick=1 ;;
  --loads) loads=$2; shift ;;
  --configs) configs=$2; shift ;;
  --reps) reps=$2; shift ;;
  --plant-reps) plant_reps=$2; shift ;;
  --plants) plants=$2; shift ;;
  --criterion-resamples) resamples=$2; shift ;;
  --build) build=$2; shift ;;
  --work) work=$2; shift ;;
  --cap) cap=$2; shift ;;
  --blocks) blocks=$2; blocks_set=1; shift ;;
  --harness) mode=harness ;;
  --harnesses) harnesses=$2; shift ;;
  --snappy-filter) snappy_filter=$2; shift ;;
  --snappy-min-time) snappy_min_time=$2; shift ;;
  --example) mode=example; example_n=$2; shift ;;
  --commands) mode=commands; example_n=$2; shift ;;
  --snappy) mode=snappy; snappy_base=$2; snappy_head=$3; shift 2 ;;
  --table) # every argument after it is a finished lab's folder
    shift
    [ $# -gt 0 ] || usage
    mode=table
    break ;;
  -h | --help) usage ;;
  *) echo "verdict_lab: unknown option $1" >&2; usage ;;
  esac
  shift
done

if [ "$mode" = table ]; then
  for d in "$@"; do "$py" "$judge" plants "$d"; done
  exec "$py" "$judge" table "$@"
fi

if [ "$mode" = harness ]; then
  : "${configs:=default+seq,default+duet}" "${reps:=10}" "${plant_reps:=10}"
  [ "$plants" = 1,2,3,5,10 ] && plants=10
elif [ "$mode" != lab ]; then
  : "${configs:=default}" # what .ci/example and a new user run
fi
if [ $quick = 1 ]; then
  : "${reps:=6}" "${plant_reps:=3}" "${resamples:=10000}"
  : "${configs:=dev,shared}"
else
  : "${reps:=40}" "${plant_reps:=20}" "${resamples:=100000}"
  : "${configs:=dev,gate,shared,dev+duet,shared+duet,dev+fresh,shared+fresh}"
fi
if [ "$mode" = snappy ]; then
  : "${loads:=none,busy1}"
  configs=${configs%%,*}
elif [ "$mode" = example ] || [ "$mode" = commands ]; then
  : "${loads:=half}"
elif [ "$mode" = harness ]; then
  : "${loads:=none,half,busy1}"
else
  : "${loads:=none,half,bursty,busy1}"
fi

# ------------------------------------------------------------- building
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
bench_build "$build" benchsite_cli benchlib_base benchlib_head
bs=$build/benchsite
: "${work:=$build/verdict-lab}"
lab=$work/run-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$lab/lib"
cc=${CC:-cc}
build_lib() { # OUT PLANT_PCT
  "$cc" -O2 -fno-toplevel-reorder -falign-functions=64 -fPIC -shared \
    -std=c11 -I"$here/src/run/include" -DPLANT_PCT="$2" \
    -o "$1" "$here/bench/verdict/cases.c"
}
build_lib "$lab/lib/aa_a.so" 0 # the A/A pair: the same source, compiled twice
build_lib "$lab/lib/aa_b.so" 0
for p in $(echo "$plants" | tr , ' '); do
  build_lib "$lab/lib/plant$p.so" "$p"
done
"$cc" -O2 -std=c11 -o "$lab/lib/hog" "$here/bench/verdict/hog.c"
"$cc" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$here/src/run/include" \
  -o "$lab/lib/plantsize" "$here/bench/verdict/plantsize.c" -ldl
ncpu=$(getconf _NPROCESSORS_ONLN)

# ------------------------------------------------ what this build can do
run_help=$("$bs" run --help 2>&1 || true)
cmp_help=$("$bs" compare --help 2>&1 || true)
has() { printf '%s\n' "$1" | grep -q -e "$2"; }
has_duet=0 has_fresh=0 has_shared=0 has_quiet=0 has_metric=0 has_failinc=0
has "$run_help" '--duet' && has_duet=1
has "$run_help" '--fresh' && has_fresh=1
has "$run_help" 'Shared' && has_shared=1
has "$run_help" '--quiet' && has_quiet=1
has "$cmp_help" '--metric' && has_metric=1
has "$cmp_help" '--fail-inconclusive' && has_failinc=1
{
  echo "benchsite $("$bs" --version 2>&1 | head -n 1), $build"
  echo "source: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $ncpu CPUs"
  echo "run has: duet $has_duet, fresh $has_fresh, Shared $has_shared, quiet $has_quiet;" \
    "compare has: metric $has_metric, fail-inconclusive $has_failinc"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} | tee "$lab/about.txt"

config_flags() { # CONFIG -> flags on stdout, or status 1 and a note on stderr
  preset=${1%%+*}
  flags=
  case $preset in
  default) ;;
  dev) flags="--protocol Development" ;;
  gate) flags="--protocol RegressionGate" ;;
  shared)
    if [ $has_shared = 0 ]; then
      echo "note: $1 skipped: this build's run has no Shared preset" >&2
      return 1
    fi
    flags="--protocol Shared" ;;
  *) echo "verdict_lab: unknown preset in $1" >&2; exit 2 ;;
  esac
  case $1 in *+duet*)
    if [ $has_duet = 0 ]; then
      echo "note: $1 skipped: this build's run has no --duet" >&2
      return 1
    fi
    flags="$flags --duet" ;;
  esac
  case $1 in *+seq*)
    flags="$flags --sequential" ;;
  esac
  case $1 in *+fresh*)
    if [ $has_fresh = 0 ]; then
      echo "note: $1 skipped: this build's run has no --fresh" >&2
      return 1
    fi
    flags="$flags --fresh block" ;;
  esac
  case $1 in *+runs[0-9]*)
    # N fresh measuring processes a comparison, the preset's blocks
    # shared among them (Shared, Development, RegressionGate: 50, 10 and
    # 20 pairs; N runs of 50 / N blocks and so on)
    nr=${1##*+runs}
    nr=${nr%%+*}
    case $preset in
    dev) nb=10 ;;
    gate) nb=20 ;;
    *) nb=50 ;;
    esac
    nb=$((nb / nr))
    case $1 in *+blocks[0-9]*)
      nb=${1##*+blocks}
      nb=${nb%%+*} ;;
    esac
    flags="$flags --runs $nr --blocks $nb" ;;
  esac
  [ $has_quiet = 1 ] && flags="$flags --quiet"
  echo "$flags"
}

# ------------------------------------------------------------ the loads
load_pids=
stop_load() {
  for p in $load_pids; do
    kill "$p" 2>/dev/null || true
  done
  for p in $load_pids; do
    wait "$p" 2>/dev/null || true
  done
  load_pids=
}
trap 'stop_load' EXIT
trap 'echo "verdict_lab: interrupted; load stopped" >&2; exit 130' INT TERM HUP

start_load() { # NAME
  case $1 in
  none) ;;
  half)
    timeout "$cap" "$lab/lib/hog" spin &
    load_pids="$load_pids $!" ;;
  bursty)
    timeout "$cap" "$lab/lib/hog" bursty "$order" &
    load_pids="$load_pids $!" ;;
  busy1 | busy2)
    k=$((${1#busy} * ncpu))
    while [ "$k" -gt 0 ]; do
      timeout "$cap" "$lab/lib/hog" spin &
      load_pids="$load_pids $!"
      k=$((k - 1))
    done ;;
  membw)
    timeout "$cap" "$lab/lib/hog" copy 256 &
    load_pids="$load_pids $!" ;;
  *) echo "verdict_lab: unknown load $1" >&2; exit 2 ;;
  esac
  [ "$1" = none ] || sleep 1 # let it reach full speed
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' /; }
busy_cpus() { # CPUs busy over 3 s, from /proc/stat
  a=$(head -n 1 /proc/stat)
  sleep 3
  b=$(head -n 1 /proc/stat)
  printf '%s\n%s\n' "$a" "$b" | awk -v n="$ncpu" '
    { t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6
      if (NR == 1) { t0 = t; i0 = idle } else { t1 = t; i1 = idle } }
    END { printf "%.2f of %d CPUs", n * (1 - (i1 - i0) / (t1 - t0)), n }'
}

# ------------------------------------------------------------- one run
# measure CELL KIND REP BASE_SPEC CAND_SPEC FLAGS...: one `benchsite run`
# and its compare; appends a line to CELL/runs.tsv.
measure() {
  cell=$1 kind=$2 rep=$3 base=$4 cand=$5
  shift 5
  log=$cell/$kind-$rep.csv
  jw=$cell/$kind-$rep.wall.json
  jc=-
  status=0
  # shellcheck disable=SC2086
  /usr/bin/time -f '%e %U %S' -o "$cell/time.txt" \
    "$bs" run --lib "base=$base" --lib "cand=$cand" --out "$log" "$@" \
    >/dev/null 2>>"$cell/stderr.txt" || status=$?
  # shellcheck disable=SC2046
  set -- $(tail -n 1 "$cell/time.txt")
  wall=${1:-0} cpu=$(echo "${2:-0} ${3:-0}" | awk '{ print $1 + $2 }')
  if [ $status = 0 ]; then
    c=0
    "$bs" compare "$log" --baseline base --candidate cand --json "$jw" \
      >/dev/null 2>>"$cell/stderr.txt" || c=$?
    [ $c -le 1 ] || status=compare$c
    if [ $has_metric = 1 ] && head -n 1 "$log" | grep -q cpu_per_call_us; then
      jc=$cell/$kind-$rep.cpu.json
      c=0
      "$bs" compare "$log" --baseline base --candidate cand --metric cpu \
        --json "$jc" >/dev/null 2>>"$cell/stderr.txt" || c=$?
      [ $c -le 1 ] || jc=-
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$rep" "$log" "$jw" "$jc" \
    "$wall" "$cpu" "$status" >>"$cell/runs.tsv"
  printf '.' >&2
}

order=0
lab_cell() { # LOAD CONFIG FLAGS OTHERS
  cell=$lab/cells/$1/$2
  mkdir -p "$cell"
  order=$((order + 1))
  {
    echo "order=$order"
    echo "load=$1"
    echo "config=$2"
    echo "flags=$3"
    echo "others_busy=$4"
    echo "loadavg_start=$(loadavg)"
  } >"$cell/meta.txt"
  t0=$(date +%s)
  printf 'cell %s / %s (%s): ' "$1" "$2" "${3:-no flags}" >&2
  max=$reps
  [ "$plant_reps" -gt "$max" ] && max=$plant_reps
  r=1
  while [ $r -le "$max" ]; do
    if [ $r -le "$reps" ]; then
      # shellcheck disable=SC2086
      measure "$cell" aa $r "$lab/lib/aa_a.so" "$lab/lib/aa_b.so" $3
    fi
    if [ $r -le "$plant_reps" ]; then
      for p in $(echo "$plants" | tr , ' '); do
        # shellcheck disable=SC2086
        measure "$cell" "p$p" $r "$lab/lib/aa_a.so" "$lab/lib/plant$p.so" $3
      done
    fi
    r=$((r + 1))
  done
  echo "loadavg_end=$(loadavg)" >>"$cell/meta.txt"
  echo " $(($(date +%s) - t0)) s" >&2
}

example_cell() { # LOAD CONFIG FLAGS OTHERS
  cell=$lab/cells/$1/$2
  mkdir -p "$cell"
  {
    echo "load=$1"
    echo "config=$2"
    echo "flags=$3"
    echo "others_busy=$4"
    echo "loadavg_start=$(loadavg)"
  } >"$cell/meta.txt"
  ex=$build/examples/benchlib
  r=1
  while [ $r -le "$example_n" ]; do
    # shellcheck disable=SC2086
    measure "$cell" ex $r "$ex/base/libbench.so" "$ex/head/libbench.so" $3
    r=$((r + 1))
  done
  echo "loadavg_end=$(loadavg)" >>"$cell/meta.txt"
  echo >&2
}

# The command pairs: run's defaults on two dd commands per pair, judged
# by wall and CPU time (command mode records both).
commands_cell() { # LOAD CONFIG FLAGS OTHERS
  cell=$lab/cells/$1/$2
  mkdir -p "$cell"
  {
    echo "load=$1"
    echo "config=$2"
    echo "flags=$3"
    echo "others_busy=$4"
    echo "loadavg_start=$(loadavg)"
  } >"$cell/meta.txt"
  dd0='dd if=/dev/zero of=/dev/null bs=1M count=64'
  dd1='dd if=/dev/zero of=/dev/null bs=1024k count=64'
  dd3='dd if=/dev/zero of=/dev/null bs=1M count=192'
  r=1
  while [ $r -le "$example_n" ]; do
    for kind in same slower; do
      log=$cell/$kind-$r.csv
      status=0
      other=$dd1
      [ $kind = slower ] && other=$dd3
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %U %S' -o "$cell/time.txt" \
        "$bs" run --cmd "base=$dd0" --cmd "cand=$other" --benchmark dd \
        --out "$log" $3 >/dev/null 2>>"$cell/stderr.txt" || status=$?
      wall=$(awk 'END { print $1 }' "$cell/time.txt")
      cpu=$(awk 'END { print $2 + $3 }' "$cell/time.txt")
      jw=$cell/$kind-$r.wall.json jc=$cell/$kind-$r.cpu.json
      if [ $status = 0 ]; then
        "$bs" compare "$log" --baseline base --candidate cand --json "$jw" \
          >/dev/null 2>>"$cell/stderr.txt" || true
        "$bs" compare "$log" --baseline base --candidate cand --metric cpu \
          --json "$jc" >/dev/null 2>>"$cell/stderr.txt" || true
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$r" "$log" "$jw" \
        "$jc" "${wall:-0}" "${cpu:-0}" "$status" >>"$cell/runs.tsv"
      printf '.' >&2
    done
    r=$((r + 1))
  done
  echo "loadavg_end=$(loadavg)" >>"$cell/meta.txt"
  echo >&2
}

snappy_cell() { # LOAD FLAGS OTHERS
  cell=$lab/cells/$1/snappy
  mkdir -p "$cell"
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$snappy_base/CMakeCache.txt")
  la=$(loadavg)
  t0=$(date +%s)
  log=$cell/snappy.csv
  # snappy's benchmarks read testdata/ under $srcdir (snappy-test.cc)
  # shellcheck disable=SC2086
  # (run's --filter is a substring; the regular expression goes to the
  # program itself)
  gb_args="--benchmark_min_time=$snappy_min_time --benchmark_filter=$snappy_filter"
  c=0
  # shellcheck disable=SC2086
  srcdir=$src "$bs" run --runs 1 --blocks "$blocks" $2 \
    --google-benchmark "base=$snappy_base/snappy_benchmark $gb_args" \
    --google-benchmark "head=$snappy_head/snappy_benchmark $gb_args" \
    --out "$log" 2>>"$cell/stderr.txt" >/dev/null || c=$?
  if [ $c != 0 ]; then
    echo "== snappy, load $1: benchsite run failed ($c):" >&2
    cat "$cell/stderr.txt" >&2
    return 0
  fi
  "$bs" compare "$log" --baseline base --candidate head --json "$cell/wall.json" \
    >/dev/null 2>>"$cell/stderr.txt" || c=$?
  echo "== snappy 6a2b78a -> d261d27, load $1 (others: $3), load average $la -> $(loadavg), $blocks blocks, $(($(date +%s) - t0)) s, compare exit $c"
  "$py" "$judge" snappy "$cell/wall.json"
  if [ $has_metric = 1 ]; then
    "$bs" compare "$log" --baseline base --candidate head --metric cpu \
      --json "$cell/cpu.json" >/dev/null 2>>"$cell/stderr.txt" || true
    echo "   (CPU time:)"
    "$py" "$judge" snappy "$cell/cpu.json"
  fi
}

# ------------------------------------------------- harness programs
# --harness: each harness's suite (bench/verdict/harness/) built as an A/A
# pair of identical builds (aa_a, aa_b) and one candidate per plant, each
# in a directory of its own that its program runs in (--dir), as two
# checkouts of a project are.
hsrc=$here/bench/verdict/harness
harness_ok() { # HARNESS: whether its tools are here (else a note)
  case $1 in
  gbench)
    if ! command -v c++ >/dev/null || [ ! -f /usr/include/benchmark/benchmark.h ]; then
      echo "note: gbench skipped: needs c++ and Debian's libbenchmark-dev" >&2
      return 1
    fi ;;
  go)
    if ! command -v go >/dev/null; then
      echo "note: go skipped: needs Debian's golang-go" >&2
      return 1
    fi ;;
  pytest)
    if ! "$py" -c 'import pytest_benchmark' 2>/dev/null; then
      echo "note: pytest skipped: needs Debian's python3-pytest-benchmark" >&2
      return 1
    fi ;;
  *) echo "verdict_lab: unknown harness $1" >&2; exit 2 ;;
  esac
}
build_harness() { # HARNESS VARIANT PLANT_PCT: $lab/h/HARNESS/VARIANT
  d=$lab/h/$1/$2
  mkdir -p "$d"
  case $1 in
  gbench)
    "${CXX:-c++}" -O2 -std=c++17 -DPLANT_PCT="$3" -o "$d/gb" \
      "$hsrc/gb_cases.cc" -lbenchmark -lpthread ;;
  go)
    cp "$hsrc"/go/*.go "$hsrc/go/go.mod" "$d/"
    printf 'package verdictlab\n\nconst plantPct = %s\n' "$3" >"$d/plant.go"
    (cd "$d" && go test -c -o "$d/cases.test") ;;
  pytest)
    cp "$hsrc"/pytest/*.py "$d/"
    printf 'PLANT_PCT = %s\n' "$3" >"$d/plant.py" ;;
  esac
}
harness_option() { # HARNESS -> run's option
  case $1 in
  gbench) echo --google-benchmark ;;
  go) echo --go-bench ;;
  pytest) echo --pytest-benchmark ;;
  esac
}
harness_command() { # HARNESS DIR -> the command its impl runs (in DIR)
  case $1 in
  gbench) echo "$2/gb --benchmark_min_time=0.05" ;;
  go) echo "$2/cases.test -test.benchtime=50ms" ;;
  pytest) echo "$py -m pytest -q -p no:cacheprovider --benchmark-max-time=0.05" ;;
  esac
}
harness_planted() { # HARNESS -> the planted case: benchmark<TAB>dataset
  case $1 in
  gbench) printf 'BM_lookup\t2000\n' ;;
  go) printf 'example.com/verdictlab.BenchmarkLookup\tn=2000\n' ;;
  pytest) printf 'test_cases.py::test_lookup\t2000\n' ;;
  esac
}

# hmeasure CELL HARNESS KIND REP BASE_DIR CAND_DIR FLAGS...: one
# `benchsite run` of the harness's suite and its compare (the default
# metric); appends a line to CELL/runs.tsv.
hmeasure() {
  cell=$1 h=$2 kind=$3 rep=$4 based=$5 candd=$6
  shift 6
  log=$cell/$kind-$rep.csv
  jw=$cell/$kind-$rep.wall.json
  status=0
  opt=$(harness_option "$h")
  # shellcheck disable=SC2086
  PYTHONDONTWRITEBYTECODE=1 /usr/bin/time -f '%e %U %S' -o "$cell/time.txt" \
    "$bs" run "$opt" "base=$(harness_command "$h" "$based")" --dir "base=$based" \
    "$opt" "cand=$(harness_command "$h" "$candd")" --dir "cand=$candd" \
    --out "$log" --manifest-out "$cell/$kind-$rep.env.csv" "$@" \
    >/dev/null 2>>"$cell/stderr.txt" || status=$?
  # shellcheck disable=SC2046
  set -- $(tail -n 1 "$cell/time.txt")
  wall=${1:-0} cpu=$(echo "${2:-0} ${3:-0}" | awk '{ print $1 + $2 }')
  if [ $status = 0 ]; then
    c=0
    # the default metric: the manifest's gate_metric where run wrote one
    "$bs" compare "$log" --manifest "$cell/$kind-$rep.env.csv" \
      --baseline base --candidate cand --json "$jw" \
      >/dev/null 2>>"$cell/stderr.txt" || c=$?
    [ $c -le 1 ] || status=compare$c
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$rep" "$log" "$jw" - \
    "$wall" "$cpu" "$status" >>"$cell/runs.tsv"
  printf '.' >&2
}

harness_cell() { # LOAD CONFIG FLAGS OTHERS HARNESS
  cell=$lab/cells/$1/$2/$5
  mkdir -p "$cell"
  order=$((order + 1))
  planted=$(harness_planted "$5")
  {
    echo "order=$order"
    echo "load=$1"
    echo "config=$2"
    echo "flags=$3"
    echo "harness=$5"
    echo "planted_benchmark=$(printf '%s' "$planted" | cut -f1)"
    echo "planted_dataset=$(printf '%s' "$planted" | cut -f2)"
    echo "others_busy=$4"
    echo "loadavg_start=$(loadavg)"
  } >"$cell/meta.txt"
  t0=$(date +%s)
  printf 'cell %s / %s / %s (%s): ' "$1" "$2" "$5" "${3:-no flags}" >&2
  max=$reps
  [ "$plant_reps" -gt "$max" ] && max=$plant_reps
  r=1
  while [ $r -le "$max" ]; do
    if [ $r -le "$reps" ]; then
      # shellcheck disable=SC2086
      hmeasure "$cell" "$5" aa $r "$lab/h/$5/aa_a" "$lab/h/$5/aa_b" $3
    fi
    if [ $r -le "$plant_reps" ]; then
      for p in $(echo "$plants" | tr , ' '); do
        # shellcheck disable=SC2086
        hmeasure "$cell" "$5" "p$p" $r "$lab/h/$5/aa_a" "$lab/h/$5/plant$p" $3
      done
    fi
    r=$((r + 1))
  done
  echo "loadavg_end=$(loadavg)" >>"$cell/meta.txt"
  echo " $(($(date +%s) - t0)) s" >&2
}

# ---------------------------------------------------- the planted sizes
# Apart from benchsite, on the thread's CPU clock, in short rotated
# batches (bench/verdict/plantsize.c), before any load is started.
measure_plants() {
  rounds=3000
  [ $quick = 1 ] && rounds=1000
  echo "measuring the plants alone (lookup, $rounds rounds of ~1 ms batches, no load added; load average $(loadavg))" >&2
  # shellcheck disable=SC2046
  "$lab/lib/plantsize" lookup $rounds "$lab/lib/aa_a.so" "$lab/lib/aa_b.so" \
    $(for p in $(echo "$plants" | tr , ' '); do echo "$lab/lib/plant$p.so"; done) \
    >"$lab/plants.txt"
  echo "loadavg=$(loadavg)" >>"$lab/plants.txt"
  "$py" "$judge" plants "$lab"
}

# ---------------------------------------------------------------- main
if [ "$mode" = snappy ]; then
  for d in "$snappy_base" "$snappy_head"; do
    if [ ! -x "$d/snappy_benchmark" ]; then
      echo "verdict_lab: $d/snappy_benchmark not found (see bench/README.md, Verdict lab)" >&2
      exit 2
    fi
  done
  flags=$(config_flags "$configs") || exit 0
  for load in $(echo "$loads" | tr , ' '); do
    others=$(busy_cpus)
    start_load "$load"
    snappy_cell "$load" "$flags" "$others"
    stop_load
  done
  exit 0
fi

if [ "$mode" = harness ]; then
  # go's caches where the user keeps them, else in the lab
  [ -n "${GOCACHE:-}" ] || [ -n "${HOME:-}" ] || export GOCACHE="$lab/gocache"
  hs=
  for h in $(echo "$harnesses" | tr , ' '); do
    harness_ok "$h" || continue
    echo "building the $h suite (A/A pair, plants $plants)" >&2
    build_harness "$h" aa_a 0
    build_harness "$h" aa_b 0
    for p in $(echo "$plants" | tr , ' '); do
      build_harness "$h" "plant$p" "$p"
    done
    hs="$hs $h"
  done
  for load in $(echo "$loads" | tr , ' '); do
    for config in $(echo "$configs" | tr , ' '); do
      flags=$(config_flags "$config") || continue
      [ $blocks_set = 1 ] && flags="$flags --blocks $blocks"
      for h in $hs; do
        others=$(busy_cpus)
        start_load "$load"
        harness_cell "$load" "$config" "$flags" "$others" "$h"
        stop_load
        "$py" "$judge" harness "$lab/cells/$load/$config/$h"
      done
    done
  done
  "$py" "$judge" harness-table "$lab" | tee "$lab/table.txt"
  echo "logs and verdicts: $lab" >&2
  exit 0
fi

[ "$mode" = lab ] && measure_plants
# Each cell (load x configuration) starts its own load and stops it before
# its runs are judged, so the judging never loads the runs.
for load in $(echo "$loads" | tr , ' '); do
  for config in $(echo "$configs" | tr , ' '); do
    flags=$(config_flags "$config") || continue
    others=$(busy_cpus)
    start_load "$load"
    if [ "$mode" = example ]; then
      example_cell "$load" "$config" "$flags" "$others"
      stop_load
      "$py" "$judge" example "$lab/cells/$load/$config"
    elif [ "$mode" = commands ]; then
      commands_cell "$load" "$config" "$flags" "$others"
      stop_load
      "$py" "$judge" commands "$lab/cells/$load/$config"
    else
      lab_cell "$load" "$config" "$flags" "$others"
      stop_load
      "$py" "$judge" cell "$lab/cells/$load/$config" \
        --criterion-resamples "$resamples"
    fi
  done
done
if [ "$mode" = lab ]; then
  "$py" "$judge" table "$lab" | tee "$lab/table.txt"
fi
echo "logs and verdicts: $lab" >&2
