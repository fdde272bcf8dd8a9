#!/bin/sh
# Archive speed on a synthetic history (issue 5): RUNS runs x CASES cases,
# each a log of 2 impls x 20 rotated blocks that `benchsite check` accepts.
# Times `archive add` per run (validation, SHA-256, fsync, rename), the
# no-op re-add, `archive verify` and `archive list` over the whole archive,
# and prints their peak memory. Prints, never fails on a slow machine.
#
# usage: bench/bench_archive.sh [BUILD_DIR] [RUNS] [CASES] [KEEP_DIR]
#   BUILD_DIR  holds benchsite (default build/release, built if missing)
#   RUNS       default 1000; CASES default 20
#   KEEP_DIR   keep the generated archive there (for the site benchmark)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
runs=${2:-1000}
cases=${3:-20}
keep=${4:-}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli
bs=$build/benchsite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
archive=${keep:-$work/archive}
if [ -e "$archive" ]; then
  echo "bench_archive: $archive exists; give a new directory" >&2
  exit 2
fi

/usr/bin/python3 - "$work/in" "$runs" "$cases" <<'PY'
import os, sys
out, runs, cases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out)
# xorshift64* (SPEC 2.2): deterministic noise.
s = 0x9E3779B97F4A7C15
def draw():
    global s
    s ^= s >> 12; s ^= (s << 25) & 0xFFFFFFFFFFFFFFFF; s ^= s >> 27
    return (s * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF
def noise():
    return 1.0 + ((draw() >> 11) / 2.0**53 - 0.5) * 0.02
header = "benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n"
for r in range(runs):
    # Case c gets slower by 10 % from run 300 + 20c on: a step in history.
    rows = [header]
    for c in range(cases):
        base = 1.0 + c
        step = 1.10 if r >= 300 + 20 * c else 1.0
        before = 1.10 if r - 1 >= 300 + 20 * c else 1.0
        n = 2 ** (c % 12)
        for j in range(20):
            order = ("base", "head") if j % 2 == 0 else ("head", "base")
            for impl in order:
                f = before if impl == "base" else step
                rows.append("case%02d,n=%d,%d,%s,0,%d,confirm,1000,%.17g\n"
                            % (c, n, n, impl, j, base * f * noise()))
    day, sec = divmod(r, 86400 // 600)
    hh, mm = divmod(sec * 10, 60)
    with open(os.path.join(out, "log%04d.csv" % r), "w") as f:
        f.writelines(rows)
    commit = "%040x" % (draw() ^ (r << 100))
    with open(os.path.join(out, "env%04d.csv" % r), "w") as f:
        f.write("key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                "machine,bench-box\nfrequency_policy,performance\n"
                "commit,%s\ndate,2026-%02d-%02dT%02d:%02d:00Z\n"
                "protocol,Development\nbaseline,base\ncandidate,head\n"
                % (commit, 1 + day // 28, 1 + day % 28, hh % 24, mm % 60))
        # Each run compares with the one before: the site chains them.
        if r > 0:
            f.write("baseline_commit,%s\n" % prev)
    prev = commit
PY

/usr/bin/python3 - "$bs" "$work/in" "$archive" "$runs" <<'PY'
import os, resource, subprocess, sys, time
bs, inp, archive, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def peak_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
def run(args):
    subprocess.run([bs] + args, check=True, stdout=subprocess.DEVNULL)
t0 = time.perf_counter()
for r in range(runs):
    run(["archive", "add", "--archive", archive,
         "%s/log%04d.csv" % (inp, r), "--manifest", "%s/env%04d.csv" % (inp, r)])
add = time.perf_counter() - t0
size = os.path.getsize("%s/log0000.csv" % inp)
print("archive add: %d runs in %.2f s, %.2f ms a run (log of %d bytes; "
      "includes process start, validation, check, SHA-256, fsync)"
      % (runs, add, add / runs * 1e3, size))
t0 = time.perf_counter()
run(["archive", "add", "--archive", archive,
     "%s/log0000.csv" % inp, "--manifest", "%s/env0000.csv" % inp])
print("archive add of an archived run (no-op): %.2f ms"
      % ((time.perf_counter() - t0) * 1e3))
t0 = time.perf_counter()
run(["archive", "verify", "--archive", archive])
print("archive verify: %.2f s for %d runs (%.2f ms a run)"
      % (time.perf_counter() - t0, runs,
         (time.perf_counter() - t0) / runs * 1e3))
t0 = time.perf_counter()
run(["archive", "list", "--archive", archive])
print("archive list: %.2f ms" % ((time.perf_counter() - t0) * 1e3))
print("peak memory of any one command: %.1f MB (target for the site: "
      "< 500 MB)" % peak_mb())
PY
