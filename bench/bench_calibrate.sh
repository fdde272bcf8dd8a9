#!/bin/sh
# benchsite calibrate on the verdict lab's nine-case library
# (bench/verdict/cases.c): how long a calibration takes with the defaults
# (issue 35's target: 40 A/A runs and 40 per plant within 5 minutes on a
# 2-CPU machine), the planted sizes as the gate measures them (a +10 % and
# a +5 % plant should measure +10 % +- 1 % and +5 % +- 1 % paired delta on
# a quiet machine), and, beside, the verdict lab's own counts for the
# closest setup. A benchmark: it prints figures and never fails because of
# them.
#
#   bench/bench_calibrate.sh [--reps N] [--build DIR] [--lab LAB_DIR]
#
#   --reps N      runs (default: calibrate's own default, 40)
#   --build DIR   benchsite build (default build/release)
#   --lab DIR     a finished verdict lab (bench/verdict_lab.sh) whose table
#                 is printed beside; without it the lab is run for the
#                 closest setup: --configs shared --loads none with as many
#                 A/A runs and runs per plant (sequential Shared blocks of
#                 two impls; calibrate interleaves 2 + plants impls in the
#                 same blocks, so the two agree only within their bounds)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/build.sh"
py=/usr/bin/python3
reps=
build=$here/build/release
lab=
while [ $# -gt 0 ]; do
  case $1 in
  --reps) reps=$2; shift ;;
  --build) build=$2; shift ;;
  --lab) lab=$2; shift ;;
  *) sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
bench_build "$build" benchsite_cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CC:-cc}" -O2 -fno-toplevel-reorder -falign-functions=64 -fPIC -shared \
  -std=c11 -I"$here/src/run/include" -o "$work/cases.so" \
  "$here/bench/verdict/cases.c"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
"$build/benchsite" calibrate --lib base="$work/cases.so" --quiet \
  ${reps:+--reps "$reps"} --json "$work/cal.json" >"$work/cal.txt"
end=$(date +%s)
echo "benchsite calibrate, 9 cases, defaults${reps:+ but --reps $reps}: $((end - start)) s"
cat "$work/cal.txt"

# The planted sizes: each plant's median paired delta per case, and their
# spread over the cases.
"$py" - "$work/cal.json" <<'PY'
import json, statistics, sys
c = json.load(open(sys.argv[1]))
print("\nplanted size as measured (median paired delta over the runs):")
print(f"{'case':<24}" + "".join(f"{'+%g %%' % p:>10}" for p in c["plants_pct"]))
for k in c["cases"]:
    name = k["benchmark"] + (f" [{k['dataset']}]" if k["dataset"] else "")
    print(f"{name[:24]:<24}" + "".join(f"{p['median_delta_pct']:>+10.2f}" for p in k["plants"]))
for i, p in enumerate(c["plants_pct"]):
    v = [k["plants"][i]["median_delta_pct"] for k in c["cases"]]
    within = sum(abs(x - p) <= 1 for x in v)
    print(f"+{p:g} %: median over cases {statistics.median(v):+.2f} %, "
          f"{within} of {len(v)} cases within +-1 %")
s = c["suite"]
# The floor of the time: the measured batches alone, every judgement a
# run of its own (duet: the two impls' batches at the same time).
pairings = c["reps"] * ((1 + len(c["plants_pct"])) if c["duet"] else 1)
per_block = 1 if c["duet"] else 2 + len(c["plants_pct"])
floor = (pairings * c["runs_per_rep"] * c["blocks"] * per_block *
         len(c["cases"]) * c["target_us"] / 1e6)
print(f"\ntime: {c['seconds']:.0f} s; the measured batches alone take "
      f"{pairings} runs x {c['runs_per_rep']} x {c['blocks']} blocks x "
      f"{per_block} x {len(c['cases'])} cases x {c['target_us'] / 1000:g} ms "
      f"= {floor:.0f} s (before setups, calibration and warm-ups); "
      f"5 minutes {'cannot' if floor > 300 else 'can'} hold at these settings")
print(f"\ncalibrate: A/A runs flagged {s['false_alarms']['count']}/{s['false_alarms']['runs']} "
      f"(<= {100 * s['false_alarms']['high']:.1f} %); " +
      "; ".join(f"+{p['plant_pct']:g} % found {100 * p['found']['rate']:.1f} % "
                f"[{100 * p['found']['low']:.1f}, {100 * p['found']['high']:.1f}]"
                for p in s["plants"]))
PY

echo
if [ -z "$lab" ]; then
  n=${reps:-40}
  echo "the verdict lab for the closest setup (shared, no load, $n A/A, $n per plant):"
  out=$(sh "$here/bench/verdict_lab.sh" --build "$build" --configs shared \
    --loads none --reps "$n" --plant-reps "$n" --plants 3,5,10 \
    --work "$work/lab" 2>&1 | tail -n 40)
  echo "$out"
else
  echo "the verdict lab $lab, beside (judge.py table):"
  "$py" "$here/bench/verdict/judge.py" table "$lab"
fi
echo
echo "agrees within bounds: the lab's A/A rates (fa/case, suite) beside"
echo "calibrate's A/A lines, and the lab's +p% (its plant is on lookup only)"
echo "beside calibrate's lookup rows, each with its one-sided 95 % bounds."
