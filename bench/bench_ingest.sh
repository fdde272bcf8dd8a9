#!/bin/sh
# Ingest speed of the observation log reader against Python's csv module on
# the same file (issue 6 targets: >= 100 MB/s, peak memory <= 2x the parsed
# rows, >= 5x Python's csv). Prints, never fails on a slow machine.
#
#   bench/bench_ingest.sh [BUILD_DIR] [MB]     (default build/release, 100)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
mb=${2:-100}
. "$here/bench/build.sh"
bench_build "$build" bench_ingest
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
log=$out/ingest.csv
"$build/bench_ingest" --generate "$log" "$mb"
"$build/bench_ingest" "$log" 3 | tee "$out/c.txt"
c_mbs=$(sed -n 's/^RESULT mb_per_s=\([0-9.]*\).*/\1/p' "$out/c.txt")
c_cpu=$(sed -n 's/^RESULT .*cpu_mb_per_s=\([0-9.]*\).*/\1/p' "$out/c.txt")
python3 - "$log" "$c_mbs" "$c_cpu" <<'PY'
import csv, os, sys, time
path, c_mbs, c_cpu = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
mb = os.path.getsize(path) / 1e6

def best(fn, reps=2):
    # Best wall time and best CPU time (the machine may be shared).
    runs = [timed(fn) for _ in range(reps)]
    return min(r[0] for r in runs), min(r[1] for r in runs)

def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0

def tokenize():
    # csv.reader alone: rows as lists of strings, nothing checked.
    with open(path, newline="", encoding="utf-8") as f:
        for _ in csv.reader(f):
            pass

def parse():
    # What bs_log_read_file does per row, in Python: the numbers converted
    # and range-checked, the phase checked, the rows kept.
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        h = next(r)
        ix = {k: h.index(k) for k in h}
        b, d, s, i, ru, bl, ph, it, us = (ix[k] for k in (
            "benchmark", "dataset", "scale", "impl", "run", "block", "phase",
            "iterations", "per_call_us"))
        for row in r:
            scale = float(row[s]) if row[s] else None
            run = int(row[ru]) if row[ru] else 0
            block = int(row[bl]) if row[bl] else -1
            iters = int(row[it]) if row[it] else 0
            t = float(row[us])
            if not (t > 0) or (scale is not None and not scale > 0):
                raise ValueError(row)
            if row[ph] not in ("", "confirm", "calibration"):
                raise ValueError(row)
            rows.append((row[b], row[d], scale, row[i], run, block, row[ph],
                         iters, t))

for name, fn in (("csv.reader, rows only", tokenize),
                 ("csv.reader + the same conversions and checks", parse)):
    t, c = best(fn)
    print(f"python {sys.version.split()[0]} {name}: {t:.3f} s = "
          f"{mb / t:.1f} MB/s (CPU {mb / c:.1f} MB/s); benchsite is "
          f"{c_mbs / (mb / t):.1f}x faster (CPU time: {c_cpu / (mb / c):.1f}x)")
PY
