#!/bin/sh
# A real project's harness suite under load: klauspost/compress's s2
# package as Debian ships it (golang-github-klauspost-compress-dev,
# sources and testdata under /usr/share/gocode, built offline), measured
# by `benchsite run --go-bench` with the user's own -test.bench as
# written, judged by `benchsite compare` by the default metric (go test
# reports wall time only). A benchmark: it prints figures and never fails
# because of them.
#
#   bench/real_go_lab.sh [options]
#
# Per load: REPS A/A runs (two test binaries built alike from the same
# source: the same bytes in two files, as two checkouts of one commit
# give) and CHANGE_REPS runs of a known real change: the same package
# built with `-tags noasm`, s2's pure-Go decoder in place of its amd64
# assembly. The change is measured first with nothing added (what a quiet
# machine finds), then under each load; "found as on a quiet machine"
# compares the sets of cases flagged and their direction.
#
# Options:
#   --build DIR        benchsite build (default build/release)
#   --loads LIST       none,half,bursty,busy1 (default half)
#   --reps N           A/A runs per load (default 10)
#   --change-reps N    runs of the change per load, and quiet (default 3)
#   --blocks M         --blocks for every run (default 20; run's own
#                      default for a harness is 50 pairs)
#   --bench RE         -test.bench (default TwainDecode1e[45]$: 8 cases)
#   --benchtime T      -test.benchtime (default 50ms)
#   --work DIR         where logs go (default BUILD/real-go-lab); each
#                      invocation writes a new run-DATE folder there
#   --cap SECONDS      bound of every load generator (default 7200)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build/release
loads=half
reps=10
change_reps=3
blocks=20
bench='TwainDecode1e[45]$'
benchtime=50ms
work=
cap=7200
while [ $# -gt 0 ]; do
  case $1 in
  --build) build=$2; shift 2 ;;
  --loads) loads=$2; shift 2 ;;
  --reps) reps=$2; shift 2 ;;
  --change-reps) change_reps=$2; shift 2 ;;
  --blocks) blocks=$2; shift 2 ;;
  --bench) bench=$2; shift 2 ;;
  --benchtime) benchtime=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --cap) cap=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "real_go_lab: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
bs=$build/benchsite
[ -x "$bs" ] || { echo "real_go_lab: no benchsite in $build" >&2; exit 2; }
src=/usr/share/gocode/src/github.com/klauspost/compress/s2
if [ ! -d "$src" ] || ! command -v go >/dev/null; then
  echo "real_go_lab: needs Debian's golang-go and golang-github-klauspost-compress-dev" >&2
  exit 2
fi
py=/usr/bin/python3
[ -n "$work" ] || work=$build/real-go-lab
lab=$work/run-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$lab/bin"

echo "benchsite $("$bs" --version 2>/dev/null | head -n 1), $build"
echo "source: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "suite: s2.test -test.bench='$bench' -test.benchtime=$benchtime, --blocks $blocks"

# GOPATH mode, offline, go's cache in the lab
export GO111MODULE=off GOPATH=/usr/share/gocode
export GOCACHE="$lab/gocache"
echo "building s2.test twice (A/A) and with -tags noasm (the change)" >&2
go test -c -o "$lab/bin/a/s2.test" github.com/klauspost/compress/s2
go test -c -o "$lab/bin/b/s2.test" github.com/klauspost/compress/s2
go test -c -tags noasm -o "$lab/bin/noasm/s2.test" github.com/klauspost/compress/s2
cmp -s "$lab/bin/a/s2.test" "$lab/bin/b/s2.test" && echo "A/A: the two binaries are the same bytes"
cc -O2 -std=c11 -o "$lab/bin/hog" "$here/bench/verdict/hog.c"

load_pids=
stop_load() {
  for p in $load_pids; do kill "$p" 2>/dev/null || true; done
  for p in $load_pids; do wait "$p" 2>/dev/null || true; done
  load_pids=
}
trap 'stop_load' EXIT
trap 'echo "real_go_lab: interrupted; load stopped" >&2; exit 130' INT TERM HUP
start_load() {
  case $1 in
  none) ;;
  half) timeout "$cap" "$lab/bin/hog" spin & load_pids="$load_pids $!" ;;
  bursty) timeout "$cap" "$lab/bin/hog" bursty 1 & load_pids="$load_pids $!" ;;
  busy1)
    for _ in $(seq "$(nproc)"); do
      timeout "$cap" "$lab/bin/hog" spin &
      load_pids="$load_pids $!"
    done ;;
  *) echo "real_go_lab: unknown load $1" >&2; exit 2 ;;
  esac
  [ "$1" = none ] || sleep 1
}

# one CELL KIND REP CANDIDATE_DIR: one run (base: a/) and its compare
one() {
  cell=$1 kind=$2 rep=$3 cand=$4
  d=$lab/$cell
  mkdir -p "$d"
  t0=$(date +%s.%N)
  (cd "$src" && "$bs" run --quiet --blocks "$blocks" --out "$d/$kind-$rep.csv" \
    --manifest-out "$d/$kind-$rep.env.csv" \
    --go-bench "base=$lab/bin/a/s2.test -test.bench=$bench -test.benchtime=$benchtime" \
    --go-bench "cand=$cand/s2.test -test.bench=$bench -test.benchtime=$benchtime" >/dev/null)
  t1=$(date +%s.%N)
  rc=0
  "$bs" compare "$d/$kind-$rep.csv" --manifest "$d/$kind-$rep.env.csv" \
    --baseline base --candidate cand --json "$d/$kind-$rep.json" >/dev/null || rc=$?
  printf '%s\t%s\t%s\t%s\n' "$kind" "$rep" "$rc" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >>"$d/runs.tsv"
  printf '.' >&2
}

cell() { # LOAD
  echo "cell $1 (others' CPU before the load: $(others))" >&2
  start_load "$1"
  i=1
  while [ "$i" -le "$reps" ]; do one "$1" aa "$i" "$lab/bin/b"; i=$((i + 1)); done
  i=1
  while [ "$i" -le "$change_reps" ]; do one "$1" change "$i" "$lab/bin/noasm"; i=$((i + 1)); done
  stop_load
  echo >&2
}

others() { # CPUs busy over 3 s, from /proc/stat
  a=$(head -n 1 /proc/stat); sleep 3; b=$(head -n 1 /proc/stat)
  printf '%s\n%s\n' "$a" "$b" | awk -v n="$(nproc)" '
    { t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6
      if (NR == 1) { t0 = t; i0 = idle } else { t1 = t; i1 = idle } }
    END { printf "%.2f of %d", n * (1 - (i1 - i0) / (t1 - t0)), n }'
}

# The change with nothing added first: what a quiet machine finds.
echo "quiet reference (others' CPU: $(others))" >&2
i=1
while [ "$i" -le "$change_reps" ]; do one quiet change "$i" "$lab/bin/noasm"; i=$((i + 1)); done
echo >&2
for load in $(echo "$loads" | tr , ' '); do cell "$load"; done

"$py" - "$lab" "$loads" <<'EOF'
import json, os, sys
from scipy.stats import beta
lab, loads = sys.argv[1], sys.argv[2].split(",")

def runs(cell, kind):
    d = os.path.join(lab, cell)
    out = []
    for line in open(os.path.join(d, "runs.tsv")):
        k, rep, rc, secs = line.split("\t")
        if k != kind:
            continue
        j = json.load(open(os.path.join(d, "%s-%s.json" % (k, rep))))
        out.append((j, float(secs)))
    return out

def flagged(j):
    return {(c["benchmark"], c["dataset"]): ("slower" if c["significant_regression"]
            else "faster") for c in j["cases"]
            if c["significant_regression"] or c["significant_improvement"]}

def name(k):
    return "%s [%s]" % (k[0].rsplit(".", 1)[-1], k[1]) if k[1] else k[0]

quiet = runs("quiet", "change")
ref = None
print("\nquiet reference: the change (-tags noasm) with nothing added")
for j, secs in quiet:
    f = flagged(j)
    print("  %5.1f s  %d of %d flagged: %s" % (secs, len(f), len(j["cases"]),
          ", ".join("%s %s %+.1f %%" % (name(k), v, next(c["delta_pct"] for c in j["cases"] if (c["benchmark"], c["dataset"]) == k)) for k, v in sorted(f.items()))))
    ref = f if ref is None else {k: v for k, v in ref.items() if f.get(k) == v}
print("  found in every quiet run: %d cases" % len(ref))
print("\n| load | A/A: unchanged cases flagged (exact 95 % bound) | A/A runs with a flag | inconclusive | change: runs finding the quiet set | change: other cases flagged | a run, median |")
print("|---|---|---|---|---|---|---|")
for load in loads:
    aa = runs(load, "aa")
    n = sum(len(j["cases"]) for j, _ in aa)
    k = sum(len(flagged(j)) for j, _ in aa)
    inc = sum(j["inconclusive"] for j, _ in aa)
    hi = beta.ppf(0.95, k + 1, n - k) if k < n else 1.0
    bad = sum(1 for j, _ in aa if flagged(j))
    ch = runs(load, "change")
    same = sum(1 for j, _ in ch if all(flagged(j).get(q) == v for q, v in ref.items()))
    extra = sum(len([q for q in flagged(j) if q not in ref]) for j, _ in ch)
    secs = sorted(s for _, s in aa + ch)
    med = secs[len(secs) // 2] if secs else float("nan")
    print("| %s | %d/%d = %.1f %% (≤ %.1f %%) | %d/%d | %d/%d | %d/%d | %d | %.0f s |" % (
        load, k, n, 100.0 * k / n if n else 0, 100 * hi, bad, len(aa), inc, n,
        same, len(ch), extra, med))
EOF
echo "logs and verdicts: $lab" >&2
