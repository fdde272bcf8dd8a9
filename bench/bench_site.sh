#!/bin/sh
# Site at scale (issue 12). For each archive size in SIZES (runs) x CASES
# cases (synthetic, made by bench_archive.sh, each run chained to the one
# before), prints:
#   - the full build: wall time, CPU time (benchsite and its gnuplot
#     processes) and the CPUs kept busy (CPU / wall; target >= 1.6 on 2);
#   - one more run, incremental: wall, CPU, and benchsite's own CPU
#     without gnuplot, the least of three runs added one after another to
#     the site as benchsite left it (target at the largest size: at most
#     twice the smallest's). Not from copies of one site: a copy gives
#     every file a new inode and ctime, so the stamps by which a build
#     knows a published file unchanged without reading it would never
#     match; and deleting the last try's copy just before would time the
#     file system (ext4 searches past recently freed inodes on every file
#     created: a third of the CPU time when measured so);
#   - a rebuild with nothing new (the second one: the first after a full
#     build reads every published report once);
#   - the site's bytes, and a linear extrapolation to 10 000 runs x 200
#     cases (target < 1 GB); the bytes a compact case-run adds, by kind of
#     file (target < 400), and a full report's bytes per case. Case pages
#     and history charts show the newest 200 runs, so they are taken at
#     their size in the largest build (give one of 200 runs or more), not
#     extrapolated; everything else is scaled by 200 / CASES, which
#     overstates what grows per run whatever its cases (a run page's
#     head and foot, its index row, its state lines);
#   - peak memory.
# Then, side by side, the per-chart cost of the largest full build against
# gnuplot alone rendering the same charts from the same script files, and
# the per-chart cost of one run's report (`benchsite report` of the
# newest run, less `benchsite compare`: the analysis it also makes)
# against gnuplot alone on that report's script files (target: at most
# 1.5x). The full build's figure includes the analysis of every run, which
# grows with the archive while the charts do not: the report's is the
# cost of the charts themselves.
# gnuplot's CPU is measured by a wrapper (--gnuplot) that runs it under
# /usr/bin/time. Prints, never fails on a slow machine.
#
# usage: bench/bench_site.sh [BUILD_DIR] [CASES] [SIZES...]
#   defaults: build/release, 20 cases, sizes 30 100 300 1000
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
cases=${2:-20}
[ $# -ge 2 ] && shift 2 || shift $#
sizes=${*:-30 100 300 1000}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli
bs=$build/benchsite
gp=$(command -v gnuplot)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The timing wrapper: one line "user sys" per gnuplot process.
cat >"$work/gnuplot-timed" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o "$work/gnuplot.cpu" -f "%U %S" "$gp" "\$@"
EOF
# The capturing wrapper: keeps each script and its data files to replay.
cat >"$work/gnuplot-capture" <<EOF
#!/bin/sh
d=\$(mktemp -d "$work/replay/XXXXXX")
cp "\$2" gp*.dat "\$d/"
echo "\$2" >"\$d/script"
exec "$gp" "\$@"
EOF
sed "s|/replay/|/replay-report/|" "$work/gnuplot-capture" \
  >"$work/gnuplot-capture-report"
chmod +x "$work/gnuplot-timed" "$work/gnuplot-capture" \
  "$work/gnuplot-capture-report"
mkdir "$work/replay" "$work/replay-report"

for runs in $sizes; do
  archive=$work/archive-$runs
  "$here/bench/bench_archive.sh" "$build" "$runs" "$cases" "$archive" \
    >/dev/null
  first=$(ls "$archive/runs" | head -n 1)
  for k in 1 2 3; do
    sed -e "s/^commit,.*/commit,one-more-run-$k/" \
      -e "s/^date,.*/date,2026-06-01T00:00:0${k}Z/" \
      "$archive/runs/$first/manifest.csv" >"$work/env-$runs-$k.csv"
  done
  cp "$archive/runs/$first/log-1.csv" "$work/log-$runs.csv"
done

/usr/bin/python3 - "$bs" "$work" "$cases" $sizes <<'PY'
import glob, os, subprocess, sys, time
bs, work, cases = sys.argv[1], sys.argv[2], int(sys.argv[3])
sizes = [int(x) for x in sys.argv[4:]]
cpu_log = os.path.join(work, "gnuplot.cpu")

def gnuplot_cpu():
    if not os.path.exists(cpu_log):
        return 0.0
    t = 0.0
    for line in open(cpu_log):
        f = line.split()
        if len(f) == 2:
            t += float(f[0]) + float(f[1])
    os.unlink(cpu_log)
    return t

def run(args, gnuplot="gnuplot-timed"):
    """Wall, CPU (with children), gnuplot's CPU, peak RSS (MB)."""
    argv = [bs] + args + ["--gnuplot", os.path.join(work, gnuplot)]
    t0 = time.perf_counter()
    pid = os.spawnv(os.P_NOWAIT, bs, argv)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("benchsite failed: %s" % " ".join(argv))
    return wall, ru.ru_utime + ru.ru_stime, gnuplot_cpu(), ru.ru_maxrss / 1024

def tree_bytes(d):
    n = 0
    for root, _, files in os.walk(d):
        for f in files:
            n += os.lstat(os.path.join(root, f)).st_size
    return n

def kinds(d):
    """Bytes outside the full reports by kind of file."""
    k = dict(history_json=0, run_pages=0, state=0, index=0, case_pages=0,
             history_charts=0, other=0)
    for root, _, files in os.walk(d):
        rel = os.path.relpath(root, d)
        if rel == "runs" or rel.startswith("runs" + os.sep):
            continue
        for f in files:
            n = os.lstat(os.path.join(root, f)).st_size
            if rel == "history":
                k["history_json"] += n
            elif rel == "charts":
                k["history_charts"] += n
            elif f.startswith("run-"):
                k["run_pages"] += n
            elif f.startswith("case-"):
                k["case_pages"] += n
            elif f == "index.html":
                k["index"] += n
            elif f.startswith(".benchsite-site"):
                k["state"] += n
            else:
                k["other"] += n
    return k

print("load average when starting: %s (2 CPUs; wall times and CPUs busy "
      "shrink as the load grows, CPU times much less)"
      % " ".join(open("/proc/loadavg").read().split()[:3]))
rows = {}
for runs in sizes:
    archive = os.path.join(work, "archive-%d" % runs)
    out = os.path.join(work, "public-%d" % runs)
    full = run(["site", "--archive", archive, "--out", out])
    print("      load average now: %s"
          % " ".join(open("/proc/loadavg").read().split()[:3]))
    charts = len(glob.glob(out + "/**/*.svg", recursive=True))
    size = tree_bytes(out)
    reports = len(os.listdir(os.path.join(out, "runs")))
    # The size of the part that grows with the archive: everything but
    # the full reports (runs/), which stay about K + flagged runs.
    detail = tree_bytes(os.path.join(out, "runs"))
    # A stamp younger than a second is not trusted: the reports of the
    # full build are read once more by the first rebuild after it.
    time.sleep(1.2)
    run(["site", "--archive", archive, "--out", out])
    none = run(["site", "--archive", archive, "--out", out])
    # One more run, three times, each added to the site the last left;
    # the least benchsite CPU counts (the machine is shared).
    inc = None
    for k in (1, 2, 3):
        subprocess.run([bs, "archive", "add", "--archive", archive,
                        os.path.join(work, "log-%d.csv" % runs), "--manifest",
                        os.path.join(work, "env-%d-%d.csv" % (runs, k))],
                       check=True, stdout=subprocess.DEVNULL)
        t = run(["site", "--archive", archive, "--out", out])
        if inc is None or t[1] - t[2] < inc[1] - inc[2]:
            inc = t
    rows[runs] = dict(full=full, none=none, inc=inc, charts=charts,
                      size=size, detail=detail, reports=reports,
                      kinds=kinds(out))
    print("%5d runs x %d cases: full %6.1f s wall, %6.1f s CPU (%.2f CPUs "
          "busy), %d charts, %d full reports; peak %.0f MB"
          % (runs, cases, full[0], full[1], full[1] / full[0], charts,
             reports, max(full[3], inc[3])))
    print("      one more run: %.2f s wall, %.2f s CPU, benchsite alone "
          "%.3f s CPU; nothing new: %.2f s wall, %.3f s CPU"
          % (inc[0], inc[1], inc[1] - inc[2], none[0], none[1]))
    print("      site: %.1f MB (%.1f MB of it full reports); %.0f bytes per "
          "case-run outside the reports"
          % (size / 2**20, detail / 2**20,
             (size - detail) / (runs * cases)))

lo, hi = sizes[0], sizes[-1]
a, b = rows[lo]["inc"], rows[hi]["inc"]
print("incremental, benchsite's own CPU: %.3f s at %d runs, %.3f s at %d "
      "runs = %.2fx (target <= 2x)"
      % (a[1] - a[2], lo, b[1] - b[2], hi, (b[1] - b[2]) / (a[1] - a[2])))
# Case pages and history charts show the newest 200 runs: they stop
# growing at 200, so they are counted at their size in the largest build
# (which must have 200 runs or more), not extrapolated.
bounded = ("case_pages", "history_charts")
def growing(r):
    return r["size"] - r["detail"] - sum(r["kinds"][k] for k in bounded)
if len(sizes) >= 2:
    m, n = sizes[-2], sizes[-1]
    grow = (growing(rows[n]) - growing(rows[m])) / (n - m)
    base = rows[n]["size"] - grow * n
    scale = 200 / cases
    est = (base + grow * 10000) * scale
    print("extrapolated to 10 000 runs x 200 cases: %.2f GB (%.0f bytes a "
          "run, %.1f MB fixed, both x%.0f for the cases; target < 1 GB)"
          % (est / 1e9, grow, base / 2**20, scale))
    km, kn = rows[m]["kinds"], rows[n]["kinds"]
    per = {k: (kn[k] - km[k]) / ((n - m) * cases) for k in kn}
    print("bytes per compact case-run (growth from %d to %d runs): %.0f "
          "(target < 400) = %s; not counted, as they stop growing at 200 "
          "runs: %s%s"
          % (m, n, sum(v for k, v in per.items() if k not in bounded),
             ", ".join("%s %.0f" % (k, v) for k, v in per.items()
                       if v and k not in bounded),
             ", ".join("%s %.0f" % (k, per[k]) for k in bounded),
             "" if n >= 200 else " (the largest size is under 200 runs: "
             "the extrapolation is too low)"))
    print("full reports: %.0f bytes per case of a detailed run (%d reports "
          "at %d runs)" % (rows[n]["detail"] / (rows[n]["reports"] * cases),
                          rows[n]["reports"], n))

def replay(pattern):
    """gnuplot alone on captured script files, as benchsite runs it: one
    process per script, `-d SCRIPT` in the chart directory, the same
    minimal environment. CPU time of all of them."""
    t = 0.0
    for d in sorted(glob.glob(os.path.join(work, pattern, "*"))):
        script = open(os.path.join(d, "script")).read().strip()
        pid = os.spawnv(os.P_NOWAIT, "/usr/bin/env",
                        ["env", "-i", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin",
                         "sh", "-c",
                         "cd '%s' && exec gnuplot -d %s </dev/null >/dev/null"
                         % (d, script)])
        _, status, ru = os.wait4(pid, 0)
        t += ru.ru_utime + ru.ru_stime
    return t

# gnuplot alone on the same script files as the largest full build.
archive = os.path.join(work, "archive-%d" % hi)
out = os.path.join(work, "capture")
run(["site", "--archive", archive, "--out", out], "gnuplot-capture")
t = replay("replay")
full = rows[hi]["full"]
charts = rows[hi]["charts"]
print("per chart at %d runs: benchsite full build %.2f ms CPU (everything "
      "included: the analyses of all %d runs too), gnuplot alone on the same "
      "scripts %.2f ms = %.2fx"
      % (hi, full[1] / charts * 1e3, hi, t / charts * 1e3, full[1] / t))

# One report's charts: `benchsite report` of the newest run (best of 5,
# CPU with its gnuplot processes) less `benchsite compare` of the same
# log (the analysis), against gnuplot alone on the report's own scripts.
newest = sorted(os.listdir(os.path.join(archive, "runs")))[-1]
rdir = os.path.join(archive, "runs", newest)
log, mf = os.path.join(rdir, "log-1.csv"), os.path.join(rdir, "manifest.csv")
rout = os.path.join(work, "report")

def cpu_of(argv):
    pid = os.spawnv(os.P_NOWAIT, bs, [bs] + argv)
    _, status, ru = os.wait4(pid, 0)
    if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) not in (0, 1):
        sys.exit("benchsite failed: %s" % " ".join(argv))
    return ru.ru_utime + ru.ru_stime

def quiet(argv):
    fd = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    try:
        return cpu_of(argv)
    finally:
        os.dup2(fd, 1)
        os.close(fd)

rep = min(quiet(["report", log, "--manifest", mf, "--out", rout,
                 "--gnuplot", "gnuplot"]) for _ in range(5))
ana = min(quiet(["compare", log, "--manifest", mf]) for _ in range(5))
quiet(["report", log, "--manifest", mf, "--out", rout, "--gnuplot",
       os.path.join(work, "gnuplot-capture-report")])
rcharts = len(glob.glob(rout + "/**/*.svg", recursive=True))
alone = min(replay("replay-report") for _ in range(5))
print("per chart of one report (%d charts): benchsite report %.3f ms CPU "
      "all told, %.3f ms less its analysis (benchsite compare %.1f ms); "
      "gnuplot alone on the same scripts %.3f ms = %.2fx (target <= 1.5x); "
      "load average %s"
      % (rcharts, rep / rcharts * 1e3, (rep - ana) / rcharts * 1e3,
         ana * 1e3, alone / rcharts * 1e3, (rep - ana) / alone,
         " ".join(open("/proc/loadavg").read().split()[:3])))
PY
