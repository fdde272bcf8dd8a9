#!/bin/sh
# Times the history model (issue 24): bs_history_finish on CASES cases x
# RUNS runs (chains, the creep scan, drift, change points, what is open)
# and the change-point search alone, then numpy doing the same search
# (E-divisive by binary segmentation, 99 shuffles a split, alpha 0.01,
# each Q from the definition over a distance matrix) on the first PEER
# cases' medians, and prints the time per case of each and how many of
# the peer's steps the model found at the same run.
#
# usage: bench/bench_history.sh [BUILD_DIR [CASES [RUNS [PEER]]]]
# Defaults: build/release (configured as Release if new), 200, 1000, 4.
# Needs Debian's /usr/bin/python3 with numpy for the peer.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
cases=${2:-200}
runs=${3:-1000}
peer=${4:-4}
py=/usr/bin/python3

. "$here/bench/build.sh"
bench_build "$build" bench_history

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "== benchsite's history model (C), CPU time"
"$build/bench_history" "$cases" "$runs" 3 "$tmp" | tee "$tmp/c.txt"

echo
echo "== numpy, the same change-point search on the first $peer cases"
"$py" - "$tmp" "$peer" "$cases" <<'PY'
import csv
import sys
import time

import numpy as np

out, peer, ncases = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = {}
with open(out + "/medians.csv", newline="") as f:
    for r in csv.DictReader(f):
        x.setdefault(int(r["case"]), []).append(float(r["median"]))
c_steps = {}
with open(out + "/steps.csv", newline="") as f:
    for r in csv.DictReader(f):
        c_steps.setdefault(int(r["case"]), []).append(int(r["entry"]))

P, ALPHA, MIN = 99, 0.01, 2


def best_split(v):
    """Largest Q over the splits (each side >= MIN) and its first split."""
    m = len(v)
    d = np.abs(np.subtract.outer(v, v))
    s = d.cumsum(0).cumsum(1)
    s = np.pad(s, ((1, 0), (1, 0)))
    t = np.arange(MIN, m - MIN + 1)
    a, b = t.astype(float), (m - t).astype(float)
    left = s[t, t] / 2
    right = (s[m, m] - 2 * s[t, m] + s[t, t]) / 2
    between = s[t, m] - s[t, t]
    q = 2 / m * (between - b / (a - 1) * left - a / (b - 1) * right)
    k = int(np.argmax(q))
    return q[k], int(t[k])


def steps(v, rng):
    found, todo = [], [(0, len(v))]
    while todo:
        s, e = todo.pop(0)
        if e - s < 2 * MIN:
            continue
        seg = v[s:e]
        q, at = best_split(seg)
        b = 0
        for _ in range(P):
            if best_split(rng.permutation(seg))[0] >= q:
                b += 1
                break  # Besag-Clifford: p = 1 after one exceedance
        if b == 0:  # p = 1/(P + 1) <= ALPHA
            found.append(s + at)
            todo += [(s, s + at), (s + at, e)]
    return sorted(found)


rng = np.random.default_rng(1)
agree = total = 0
start = time.process_time()
res = {}
for c in range(min(peer, ncases)):
    res[c] = steps(np.array(x[c]), rng)
cpu = time.process_time() - start
for c, st in res.items():
    mine = c_steps.get(c, [])
    total += len(st)
    agree += sum(any(abs(s - m) <= 1 for m in mine) for s in st)
    print("case %d: numpy steps at %s; benchsite at %s" % (c, st, mine))
n = len(res)
print("numpy change-point search: %.3f s CPU for %d cases (%.1f ms a case); "
      "%d of its %d steps found by benchsite at the same run +-1"
      % (cpu, n, 1e3 * cpu / n, agree, total))
with open(out + "/peer.txt", "w") as f:
    f.write("%.9g\n" % (cpu / n))
PY

echo
awk -v cases="$cases" 'NR == FNR && /change-point search alone/ {
    for (i = 1; i <= NF; i++) if ($i == "alone") c = $(i + 1) / cases }
  NR != FNR { p = $1 }
  END { printf "change-point search per case: benchsite %.3f ms, numpy %.1f ms: %.0fx\n",
        1e3 * c, 1e3 * p, p / c }' "$tmp/c.txt" "$tmp/peer.txt"
