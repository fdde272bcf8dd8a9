#!/bin/sh
# Ingest speed and memory of the commands users run (benchsite check,
# compare --mode hotspot, archive add; compare's confirmatory bootstrap
# too, on the first shape) on two generated ~100 MB logs of the same size:
# few large cases (982 cases of 1520 confirm rows) and many small ones (a
# CI run of a large suite: about 49 450 cases of 20 blocks of two impls).
# Beside them, in the same script on the same files: libcsv alone counting
# fields; the floor of any reader that keeps rows (libcsv, every number
# converted exactly, a row stored per record, nothing validated:
# bench_ingest --floor), with the share it takes of the time 2x the bare
# csv.reader allows; and Python's bare csv.reader. Each command's CPU
# time (user + sys of the child: the machine may be shared), its page
# faults and its peak RSS (both from wait4's rusage) are printed side by
# side.
#
# Targets (issue 22): check, compare --mode hotspot and archive add >= 2x
# the bare csv.reader on both shapes; peak RSS <= 1.3x the file for check
# and archive add. Prints, never fails on a slow machine.
#
#   bench/bench_ingest.sh [BUILD_DIR] [MB] [BEFORE_BUILD_DIR]
#
# BUILD_DIR defaults to build/release, MB to 100. With BEFORE_BUILD_DIR
# (a release build of an earlier commit: its benchsite is used, nothing is
# built there) every command runs alternately with that build's benchsite
# and this one's, best of 3 each, so both see the same load.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
mb=${2:-100}
before=${3:-}
. "$here/bench/build.sh"
bench_build "$build" bench_ingest benchsite_cli
if [ -n "$before" ] && [ ! -x "$before/benchsite" ]; then
  echo "bench_ingest.sh: no benchsite in $before" >&2
  exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bench_ingest" --generate "$out/large.csv" "$mb"
"$build/bench_ingest" --generate-small "$out/small.csv" "$mb"
cat >"$out/env.csv" <<'CSV'
key,value
target,native
commit,bench
date,2026-11-30T10:00:00Z
protocol,Development
baseline,main
candidate,pr
CSV
echo "library reader alone (bs_log_read_file), few large cases:"
"$build/bench_ingest" "$out/large.csv" 3
python3 - "$out" "$build" "$before" <<'PY'
import csv, os, subprocess, sys, time
out, build, before = sys.argv[1:]
env = os.path.join(out, "env.csv")
builds = [("before", before), ("after", build)] if before else [("", build)]
narch = 0

def child(argv, ok=(0,)):
    # CPU time (user + sys), minor + major page faults and peak RSS (KiB)
    # of one child process, from its own rusage.
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"{argv[0]} exited {code}: {err.decode()[:500]}")
    return (ru.ru_utime + ru.ru_stime, ru.ru_minflt + ru.ru_majflt,
            ru.ru_maxrss)

def csv_reader(path):
    # csv.reader alone: rows as lists of strings, nothing checked.
    c0 = time.process_time()
    with open(path, newline="", encoding="utf-8") as f:
        for _ in csv.reader(f):
            pass
    return time.process_time() - c0

def commands(path, shape):
    global narch
    cmds = [("check", lambda bs: [bs, "check", path, "--manifest", env], (0,)),
            ("compare --mode hotspot", lambda bs: [
                bs, "compare", path, "--manifest", env, "--mode", "hotspot"],
             (0,))]
    def add(bs):
        global narch
        narch += 1
        return [bs, "archive", "add", "--archive",
                os.path.join(out, f"arch{narch}"), path, "--manifest", env]
    cmds.append(("archive add (new archive)", add, (0,)))
    if shape == "large":
        cmds.append(("compare (confirmatory)", lambda bs: [
            bs, "compare", path, "--manifest", env], (0, 1)))
    return cmds

for shape, what in (("large", "few large cases"), ("small", "many small cases")):
    path = os.path.join(out, shape + ".csv")
    size = os.path.getsize(path)
    mb = size / 1e6
    with open(path, "rb") as f:
        rows = sum(1 for _ in f) - 1
    libcsv = min(child([os.path.join(build, "bench_ingest"), "--libcsv",
                        path])[0] for _ in range(3))
    floor = min(child([os.path.join(build, "bench_ingest"), "--floor",
                       path])[0] for _ in range(3))
    py = min(csv_reader(path) for _ in range(2))
    print(f"\n{what}: {mb:.1f} MB, {rows} rows; CPU time (user + sys), "
          f"best of 3 (csv.reader: 2)")
    print(f"  libcsv alone, counting fields   {libcsv:6.3f} s {mb / libcsv:6.1f}"
          f" MB/s  ({py / libcsv:4.2f}x csv.reader)")
    print(f"  floor: libcsv, numbers, rows    {floor:6.3f} s "
          f"{mb / floor:6.1f} MB/s  ({py / floor:4.2f}x csv.reader: "
          f"{floor / (py / 2) * 100:.0f} % of the time 2x allows)")
    print(f"  python csv.reader alone         {py:6.3f} s {mb / py:6.1f} MB/s"
          f"  (2x = {2 * mb / py:.1f} MB/s, {py / 2:.3f} s)")
    print(f"  {'command':27s} {'build':6s} {'CPU s':>6s} {'MB/s':>6s} "
          f"{'x csv.reader':>12s} {'faults':>8s} {'peak RSS':>10s} {'x file':>6s}")
    for name, argv, ok in commands(path, shape):
        reps = 1 if name.startswith("compare (conf") else 3
        best = {}
        for _ in range(reps):
            for label, b in builds:
                r = child(argv(os.path.join(b, "benchsite")), ok)
                if label not in best or r[0] < best[label][0]:
                    best[label] = r
        for label, _ in builds:
            cpu, faults, rss = best[label]
            print(f"  {name:27s} {label:6s} {cpu:6.3f} {mb / cpu:6.1f} "
                  f"{py / cpu:11.2f}x {faults:8d} {rss / 1024:6.1f} MiB "
                  f"{rss * 1024 / size:5.2f}x")
            name = ""
PY
