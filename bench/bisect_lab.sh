#!/bin/sh
# The bisection lab: how often `benchsite bisect` names the commit that
# made a case slower, how often it says "no step" when there is none,
# whether it ever names a wrong commit as found, how many probes it takes
# and how long, on synthetic git repositories this script makes (a
# benchmark library, bench/bisect/lib.c, whose cost per commit is known),
# under background load it starts and stops itself. A benchmark: it
# prints figures and never fails because of them.
#
#   bench/bisect_lab.sh [options]
#   bench/bisect_lab.sh --table DIR...     print finished labs again
#
# Scenarios (each repository: commits 0..N, commit 0 the good one, commit
# N the bad one; the step commits drawn from the seed):
#   step      one +5 % step at a random commit
#   nostep    no step at all
#   twosteps  +5 % at one random commit, +10 % more at a later one
#   broken    one +5 % step; the first midpoint (N/2) does not build
#   noisy     one +5 % step inside a stretch of 8 commits whose every batch
#             does 0-80 % more work at random
# Counted per scenario and load, over the seeds: the culprit exact (found
# and one of the true step commits), "no step" where there is none,
# undecided ranges (and whether each holds a step), and WRONG: found, and
# not a step commit -- must be 0. Probes are the measured ones (the
# start, the halvings, the confirmation; skipped commits not counted),
# beside ceil(log2 N) + 3; the wall time of one bisection, builds
# included.
#
# Options:
#   --seeds N        repositories per scenario and load (default 20)
#   --commits N      commits after the good one (default 64)
#   --scenarios LIST (default step,nostep,twosteps,broken,noisy)
#   --loads LIST     none,half,bursty,busy1 (default none,half): nothing
#                    added; one busy process on the machine (one CPU of two
#                    contended); one process busy in bursts of 10-200 ms at
#                    about 30 % duty; one busy process per CPU
#   --bisect-args ARGS   more words for benchsite bisect (split at blanks),
#                    e.g. "--protocol Development" or "--sequential"
#   --build DIR      benchsite build to measure (default build/release)
#   --work DIR       where repositories and results go (default
#                    BUILD/bisect-lab); each invocation writes a new
#                    run-DATE folder there
#   --cap SECONDS    bound of every load generator and of every bisection
#                    (default 7200)
#
# Every load generator runs under `timeout` and is killed by its PID when
# its cell ends, on any exit and on Ctrl-C. A smoke run: --seeds 2
# --commits 16 --loads none.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/build.sh"
py=/usr/bin/python3 # Debian's

seeds=20
commits=64
scenarios=step,nostep,twosteps,broken,noisy
loads=none,half
bisect_args=
build=$here/build/release
work=
cap=7200
mode=lab

usage() {
  sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
  --seeds) seeds=$2; shift ;;
  --commits) commits=$2; shift ;;
  --scenarios) scenarios=$2; shift ;;
  --loads) loads=$2; shift ;;
  --bisect-args) bisect_args=$2; shift ;;
  --build) build=$2; shift ;;
  --work) work=$2; shift ;;
  --cap) cap=$2; shift ;;
  --table)
    shift
    [ $# -gt 0 ] || usage
    mode=table
    break ;;
  -h | --help) usage ;;
  *) echo "bisect_lab: unknown option $1" >&2; usage ;;
  esac
  shift
done

# ------------------------------------------------------------ the table
table() { # RESULTS.tsv...
  "$py" - "$@" <<'PY'
import math, sys
rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows += [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f]
cells = {}
for r in rows:
    cells.setdefault((r["scenario"], r["load"]), []).append(r)
print("%-9s %-6s %5s %7s %7s %9s %6s %7s %6s %8s" % (
    "scenario", "load", "runs", "exact", "nostep", "undecided", "WRONG",
    "probes", "target", "wall s"))
for (sc, load), rs in sorted(cells.items()):
    n = len(rs)
    exact = sum(r["verdict"] == "exact" for r in rs)
    nostep = sum(r["verdict"] == "no-step" for r in rs)
    und = sum(r["verdict"].startswith("undecided") for r in rs)
    held = sum(r["verdict"] == "undecided-holds" for r in rs)
    wrong = sum(r["verdict"] == "WRONG" for r in rs)
    failed = sum(r["verdict"] == "failed" for r in rs)
    probes = [int(r["probes"]) for r in rs if r["probes"] != "-"]
    walls = [float(r["wall"]) for r in rs]
    target = math.ceil(math.log2(int(rs[0]["commits"]))) + 3
    has_step = sc != "nostep"
    print("%-9s %-6s %5d %7s %7s %9s %6d %7s %6d %8.1f%s" % (
        sc, load, n, "%d/%d" % (exact, n) if has_step else "-",
        "%d/%d" % (nostep, n) if not has_step else
        ("%d" % nostep if nostep else "-"),
        "%d (%d)" % (und, held) if und else "0", wrong,
        "%.1f" % (sum(probes) / len(probes)) if probes else "-", target,
        sum(walls) / n, "  %d failed" % failed if failed else ""))
print("exact: found a true step commit; undecided (n): of which n ranges "
      "hold a step; WRONG: found a commit that is no step (must be 0);")
print("probes: measured probes per bisection (mean); target: "
      "ceil(log2 N) + 3; wall: one bisection, builds included (mean)")
PY
}

if [ "$mode" = table ]; then
  files=
  for d in "$@"; do files="$files $d/results.tsv"; done
  # shellcheck disable=SC2086
  table $files
  exit 0
fi

# ------------------------------------------------------------- building
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
bench_build "$build" benchsite_cli
bs=$build/benchsite
: "${work:=$build/bisect-lab}"
lab=$work/run-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$lab/bin"
cc=${CC:-cc}
"$cc" -O2 -std=c11 -o "$lab/bin/hog" "$here/bench/verdict/hog.c"
inc=$here/src/run/include
ncpu=$(getconf _NPROCESSORS_ONLN)
{
  echo "benchsite $("$bs" --version 2>&1 | head -n 1), $build"
  echo "source: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $ncpu CPUs"
  echo "seeds $seeds, commits $commits, scenarios $scenarios, loads $loads"
  echo "bisect args: ${bisect_args:-(none)}"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} | tee "$lab/about.txt"

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
trap 'echo "bisect_lab: interrupted; load stopped" >&2; exit 130' INT TERM HUP

start_load() { # NAME SEED
  case $1 in
  none) ;;
  half)
    timeout "$cap" "$lab/bin/hog" spin &
    load_pids="$load_pids $!" ;;
  bursty)
    timeout "$cap" "$lab/bin/hog" bursty "$2" &
    load_pids="$load_pids $!" ;;
  busy1)
    k=$ncpu
    while [ "$k" -gt 0 ]; do
      timeout "$cap" "$lab/bin/hog" spin &
      load_pids="$load_pids $!"
      k=$((k - 1))
    done ;;
  *) echo "bisect_lab: unknown load $1" >&2; exit 2 ;;
  esac
  [ "$1" = none ] || sleep 1 # let it reach full speed
}

# ------------------------------------------------------- the repositories
# A number in 1..$2 from seed $1 and salt $3 (awk's generator: the same
# on one machine, run after run).
draw() {
  awk -v s="$1" -v n="$2" -v salt="$3" \
    'BEGIN { srand(s * 7919 + salt); print int(rand() * n) + 1 }'
}

# make_repo DIR SCENARIO SEED: the repository, and DIR.truth: "steps
# K1 [K2]" (commit numbers where a step lands) and "broken K".
make_repo() {
  dir=$1 sc=$2 seed=$3
  n=$commits
  k1=$(draw "$seed" "$n" 1)
  k2=0
  broken=-1
  noisy_lo=0 noisy_hi=-1
  case $sc in
  nostep) k1=0 ;;
  twosteps)
    # Two distinct commits, the first the smaller.
    k2=$(draw "$seed" "$n" 2)
    while [ "$k2" = "$k1" ]; do k2=$((k2 % n + 1)); done
    if [ "$k2" -lt "$k1" ]; then t=$k1; k1=$k2; k2=$t; fi ;;
  broken)
    broken=$((n / 2))
    [ "$k1" != "$broken" ] || k1=$((broken + 1)) ;;
  noisy)
    noisy_lo=$((k1 - 4)) noisy_hi=$((k1 + 3))
    [ "$noisy_lo" -ge 1 ] || noisy_lo=1 ;;
  esac
  rm -rf "$dir"
  mkdir -p "$dir"
  git -C "$dir" init --quiet
  git -C "$dir" config user.email lab@example.invalid
  git -C "$dir" config user.name "bisect lab"
  cp "$here/bench/bisect/lib.c" "$dir/bench.c"
  i=0
  while [ "$i" -le "$n" ]; do
    pct=0
    [ "$k1" = 0 ] || [ "$i" -lt "$k1" ] || pct=5
    [ "$k2" = 0 ] || [ "$i" -lt "$k2" ] || pct=15
    {
      echo "#define COST_PCT $pct"
      echo "/* commit $i */"
      if [ "$i" -ge "$noisy_lo" ] && [ "$i" -le "$noisy_hi" ]; then
        echo "#define NOISY 1"
      fi
      if [ "$i" = "$broken" ]; then echo "#error this commit does not build"; fi
    } >"$dir/cost.h"
    git -C "$dir" add -A
    git -C "$dir" commit --quiet -m "commit $i"
    i=$((i + 1))
  done
  git -C "$dir" rev-list --reverse HEAD >"$dir.ids"
  echo "steps $k1 $k2" >"$dir.truth"
  echo "broken $broken" >>"$dir.truth" # -1: none
}

# ------------------------------------------------------------- one run
# bisect_one CELL SCENARIO SEED: one bisection of a new repository; a line
# of CELL/../results.tsv.
bisect_one() {
  cell=$1 sc=$2 seed=$3
  repo=$cell/repo-$seed
  make_repo "$repo" "$sc" "$seed"
  good=$(sed -n 1p "$repo.ids")
  bad=$(tail -n 1 "$repo.ids")
  json=$cell/bisect-$seed.json
  status=0
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # --bisect-args: words
  timeout "$cap" "$bs" bisect --repo "$repo" --good "$good" --bad "$bad" \
    --build "$cc -O2 -fPIC -shared -std=c11 -D_POSIX_C_SOURCE=200809L -I'$inc' -o {tree}/bench.so {tree}/bench.c" \
    --lib bench.so --json "$json" --quiet $bisect_args \
    >"$cell/out-$seed.txt" 2>"$cell/err-$seed.txt" || status=$?
  end=$(date +%s.%N)
  "$py" - "$json" "$repo.ids" "$repo.truth" "$status" "$sc" "$load" "$seed" \
    "$commits" "$start" "$end" >>"$lab/results.tsv" <<'PY'
import json, os, sys
path, ids_path, truth_path, status, sc, load, seed, n, t0, t1 = sys.argv[1:]
ids = open(ids_path).read().split()
truth = dict(l.split(None, 1) for l in open(truth_path).read().splitlines())
steps = [int(k) for k in truth["steps"].split() if int(k) > 0]
step_ids = {ids[k] for k in steps}
verdict, probes = "failed", "-"
if status in ("0", "1", "4") and os.path.exists(path):
    d = json.load(open(path))
    probes = str(sum(p["outcome"] != "skipped" for p in d["probes"]))
    if d["outcome"] == "found":
        verdict = "exact" if d["culprit"] in step_ids else "WRONG"
    elif d["outcome"] == "no-step":
        verdict = "no-step"
    else:
        lo, hi = ids.index(d["range"][0]), ids.index(d["range"][1])
        verdict = "undecided-holds" if any(lo <= k <= hi for k in steps) \
            else "undecided"
wall = float(t1) - float(t0)
print("\t".join([sc, load, seed, n, verdict, probes, "%.2f" % wall,
                 status]))
PY
  printf '.' >&2
}

printf 'scenario\tload\tseed\tcommits\tverdict\tprobes\twall\tstatus\n' \
  >"$lab/results.tsv"
for load in $(echo "$loads" | tr , ' '); do
  for sc in $(echo "$scenarios" | tr , ' '); do
    cell=$lab/cells/$load/$sc
    mkdir -p "$cell"
    printf '%s %s: ' "$load" "$sc" >&2
    start_load "$load" 1
    seed=1
    while [ "$seed" -le "$seeds" ]; do
      bisect_one "$cell" "$sc" "$seed"
      seed=$((seed + 1))
    done
    stop_load
    echo >&2
  done
done
echo
table "$lab/results.tsv" | tee "$lab/table.txt"
echo "(results: $lab)"
