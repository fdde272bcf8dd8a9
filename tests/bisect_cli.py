#!/usr/bin/env python3
"""benchsite bisect on synthetic repositories this script makes.

Each repository holds a tiny benchmark library (one case, about a
microsecond a call, built against benchsite/harness.h with cc) whose cost
per commit is known: cost.h says how much work a call does, so a step of
+50 % is planted at a commit the test chooses, and probes are judged at
--threshold 20 on CPU time (verdicts are certain, even on a busy
machine, at --protocol Development --blocks 20; a run at the defaults,
half the start's step of wall time, is checked for its thresholds and for
never naming another commit). Checked:

- the culprit found is the planted commit (exit 1), with its parent, and
  the probes stay within ceil(log2 N) + 2;
- no step: exit 0, outcome no-step, no culprit;
- a commit that does not build (the first midpoint) is skipped and named,
  and the culprit is still found;
- a stretch made noisy on purpose (each batch's work times a factor from
  0.1 to 1.9, drawn at random, symmetric about 1) around the step: exit 4,
  the range reported holds the step, no culprit (or, when the noise lets
  every probe be decided, the step commit itself);
- hostile input: option-like commit names (--good=-x, --bad=--output=...),
  refs that do not exist, good not an ancestor of bad, an absolute --lib;
  a build command that deletes its tree (skipped, named, nothing of it
  left); a checkout with uncommitted changes (untouched); a cache another
  bisection holds; a culprit whose subject holds escape sequences and a
  workflow command (escaped in the text); Ctrl-C while building and
  while measuring (the process dies of SIGINT, no worktree is left in `git
  worktree list` or .git/worktrees, every tree of the cache has its mark
  and every mark its tree, no temporary file, and the next bisection
  completes, reusing the builds);
- builds are reused by a second bisection (builds_made 0);
- the JSON is benchsite.bisect/1 with the fields the reference names, the
  Markdown starts with its marker (and its table parses, when cmark-gfm
  is installed).

Usage: bisect_cli.py BENCHSITE SOURCE_DIR WORK_DIR
Exit status: 0 pass, 1 fail, 77 skip (git or cc missing).
"""

import fcntl
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

BENCH_C = r"""#include "benchsite/harness.h"
#include "cost.h"

#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

#ifdef NOISY
/* 1 + 0.9 (2k - 15) / 15, k = 0..15: factors from 0.1 to 1.9, symmetric
 * about 1, so that the mean of any number of draws has median 1 too (a
 * duet runs each block's batch in two halves: with factors symmetric only
 * in their logarithm, 0.22 to 4.5, a block's cost was the mean of two
 * draws, whose median is 1.3, and noisy commits measured 30-90 % slower
 * than they are). */
static const double spread[16] = {0.1, 0.22, 0.34, 0.46, 0.58, 0.7, 0.82, 0.94, 1.06, 1.18, 1.3, 1.42, 1.54, 1.66, 1.78, 1.9};
static uint64_t rng;
#include <time.h>
#include <unistd.h>
#endif

static void run(void *st, uint64_t n) {
  (void)st;
  uint64_t x = 1;
  long work = WORK;
#ifdef NOISY
  /* Each batch's work times a factor drawn from the table: the commit's
   * median cost stays its own, its batches spread from 0.1 to 1.9 times
   * it, and intervals are rarely narrow enough to judge it. The draws start
   * from the clock and the pid: a fixed start gave every process the same
   * factors, so a run's blocks had the same median factor each time
   * (1.3 as often as 1) and two runs agreed on a slowdown that was the
   * table's, not the commit's. */
  if (!rng) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    rng = ((uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15u) ^
          ((uint64_t)getpid() << 32) ^ (uint64_t)t.tv_sec;
    rng |= 1;
  }
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  work = (long)(WORK * spread[(rng * 0x2545F4914F6CDD1Du) >> 60]);
#endif
  for (uint64_t i = 0; i < n; i++)
    for (long k = 0; k < work; k++) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      OPAQUE(x);
    }
}

static uint64_t digest(void *st) {
  (void)st;
  return 42;
}

static const bs_bench_case cases[] = {{"work", "", 0, 0, run, digest, 0}};
BS_HARNESS_DEFINE_CASES(cases)
"""

# The build of every commit: a script of the repository, so that a commit
# may break it (the user's build command may be any program; benchsite
# starts it without a shell).
BUILD_SH = """set -e
tree=$1
inc=$2
if [ -n "${BISECT_TEST_HOLD:-}" ] && [ -f "$tree/hold" ]; then
  : >"$BISECT_TEST_HOLD"
  sleep 60
fi
if [ -f "$tree/delete-me" ]; then
  rm -rf "$tree"
  exit 0
fi
cc -O1 -shared -fPIC -I"$inc" -o "$tree/bench.so" "$tree/bench.c"
"""

FAILURES = []


def check(cond, what, got=None):
    if cond:
        print(f"  ok: {what}", flush=True)
    else:
        print(f"  FAIL: {what}" + ("" if got is None else f" (got {got!r})"),
              flush=True)
        FAILURES.append(what)
    return cond


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, text=True,
                          stdout=subprocess.PIPE).stdout.strip()


class Repo:
    """A repository of commits 0..n; commit 0 is the good one."""

    def __init__(self, root, n, step=None, broken=(), noisy=(), delete=(),
                 hold=(), subjects=None):
        self.root = root
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        git(root, "init", "--quiet")
        git(root, "config", "user.email", "test@example.com")
        git(root, "config", "user.name", "test")
        with open(os.path.join(root, "bench.c"), "w") as f:
            f.write(BENCH_C)
        with open(os.path.join(root, "build.sh"), "w") as f:
            f.write(BUILD_SH)
        self.ids = []
        for i in range(n + 1):
            work = 1500 if step is not None and i >= step else 1000
            lines = ["#define WORK %d" % work, "/* commit %d */" % i]
            if i in noisy:
                lines.append("#define NOISY 1")
            if i in broken:
                lines.append("#error this commit does not build")
            with open(os.path.join(root, "cost.h"), "w") as f:
                f.write("\n".join(lines) + "\n")
            for name, on in (("delete-me", i in delete), ("hold", i in hold)):
                p = os.path.join(root, name)
                if on:
                    open(p, "w").close()
                elif os.path.exists(p):
                    os.remove(p)
            git(root, "add", "-A")
            subject = (subjects or {}).get(i, "commit %d" % i)
            git(root, "commit", "--quiet", "-m", subject)
            self.ids.append(git(root, "rev-parse", "HEAD"))

    def worktrees(self):
        out = git(self.root, "worktree", "list", "--porcelain")
        return [l for l in out.splitlines() if l.startswith("worktree ")]

    def cache(self):
        return os.path.join(self.root, ".git", "benchsite-bisect")


class Bisect:
    def __init__(self, binary, src, work):
        self.binary = binary
        self.inc = os.path.join(src, "src", "run", "include")
        self.work = work

    def argv(self, repo, good, bad, *extra, build=None, threshold="20",
             metric="cpu"):
        """The words of a bisection. Probes are judged at 20 % (the step
        planted is +50 %) of CPU time (which a busy machine does not
        stretch): verdicts that hold however busy the machine is.
        threshold=None and metric=None leave the defaults, half the start's
        step and wall time."""
        return [self.binary, "bisect", "--repo", repo.root, "--good", good,
                "--bad", bad, "--build",
                build or "sh {tree}/build.sh {tree} '%s'" % self.inc,
                "--lib", "bench.so", "--protocol", "Development",
                "--blocks", "20",
                *(["--threshold", threshold] if threshold else []),
                *(["--metric", metric] if metric else []), *extra]

    def run(self, repo, good, bad, *extra, env=None, build=None,
            threshold="20", metric="cpu"):
        js = os.path.join(self.work, "out.json")
        if os.path.exists(js):
            os.remove(js)
        argv = self.argv(repo, good, bad, "--json", js, *extra, build=build,
                         threshold=threshold, metric=metric)
        t = time.monotonic()
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env,
                           timeout=600)
        print(f"    ({time.monotonic() - t:.1f} s, exit {p.returncode})",
              flush=True)
        doc = None
        if os.path.exists(js):
            with open(js) as f:
                doc = json.load(f)
        return p, doc


def cache_consistent(repo):
    """Every tree of the cache has its mark, every mark its tree, and
    nothing temporary is left."""
    c = repo.cache()
    if not os.path.isdir(c):
        return True
    names = set(os.listdir(c))
    for n in names:
        if n.endswith(".tmp"):
            return False
        if len(n) == 40 and n + ".ok" not in names:
            return False
        if n.endswith(".ok") and n[:-3] not in names:
            return False
    return True


def no_worktrees_left(repo):
    wt = os.path.join(repo.root, ".git", "worktrees")
    return repo.worktrees() == ["worktree " + repo.root] and (
        not os.path.isdir(wt) or not os.listdir(wt))


def test_found(b, work):
    print("found: a +50 % step at commit 17 of 24")
    r = Repo(os.path.join(work, "found"), 24, step=17)
    md = os.path.join(work, "found.md")
    # One other process keeps a CPU busy (bounded, and stopped here): the
    # probes still go side by side.
    busy = subprocess.Popen(["timeout", "300", "sh", "-c", "while :; do :; done"])
    try:
        p, d = b.run(r, r.ids[0], r.ids[24], "--markdown", md)
    finally:
        busy.terminate()
        busy.wait()
    check(p.returncode == 1, "exit status 1 (found)", p.returncode)
    check(d and d["schema"] == "benchsite.bisect/1", "JSON schema")
    check(d and d["outcome"] == "found", "outcome found",
          d and d["outcome"])
    check(d and d["culprit"] == r.ids[17], "the culprit is commit 17",
          d and d["culprit"])
    check(d and d["parent"] == r.ids[16], "its parent is commit 16")
    check(d and d["culprit_subject"] == "commit 17", "its subject")
    check(d and d["range"] is None, "no range")
    check(d and 30 < d["delta_pct"] < 80 and
          d["ci_low_pct"] <= d["delta_pct"] <= d["ci_high_pct"],
          "the culprit's delta against its parent is about +50 %",
          d and (d["delta_pct"], d["ci_low_pct"], d["ci_high_pct"]))
    measured = [q for q in d["probes"] if q["outcome"] != "skipped"]
    check(len(measured) <= math.ceil(math.log2(24)) + 2,
          "probes within ceil(log2 N) + 2", len(measured))
    check(d["probes"][0]["role"] == "start" and
          d["probes"][-1]["role"] == "confirm" and
          d["probes"][-1]["commit"] == r.ids[17] and
          d["probes"][-1]["against"] == r.ids[16],
          "the trail: the start first, the culprit against its parent last")
    for q in d["probes"][1:-1]:
        i = r.ids.index(q["commit"])
        want = "slower" if i >= 17 else "not slower"
        if not check(q["outcome"] == want, f"probe of commit {i} {want}",
                     q["outcome"]):
            break
    check(all(k in d for k in ("probes", "skipped", "builds_made",
                               "builds_reused", "seconds", "commits")),
          "JSON has probes, skipped, builds and time")
    check(d["commits"] == 24, "24 commits between good and bad")
    check(d["metric"] == "cpu", "the metric given")
    two = hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) >= 2
    check(d["duet"] is two and all(q["duet"] is two for q in d["probes"]
                                   if q["outcome"] != "skipped"),
          "by default every probe side by side wherever two CPUs can be had "
          "(here: %s), whatever else runs on them" % two,
          [(q["role"], q["duet"]) for q in d["probes"]])
    check(p.stdout.startswith("benchsite bisect: found " + r.ids[17]),
          "stdout: one summary line naming the culprit (with --json)",
          p.stdout[:80])
    check("probe 1 of about" in p.stderr, "progress on stderr")
    check(no_worktrees_left(r), "no worktree left")
    check(cache_consistent(r), "the cache is consistent")
    # Again, the text report on stdout: every build comes from the cache.
    p2 = subprocess.run(b.argv(r, r.ids[0], r.ids[24], "--quiet"),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    check(p2.returncode == 1 and p2.stdout.startswith(
        "benchsite bisect: found " + r.ids[17]) and
          "subject: commit 17" in p2.stdout and "\nconfirm " in p2.stdout,
          "the text report names the culprit, its subject and the trail",
          p2.stdout[:300])
    check("builds: 0 made, " in p2.stdout,
          "a second bisection reuses every build", p2.stdout[:400])
    check(p2.stderr == "", "--quiet: nothing on stderr", p2.stderr[:200])
    with open(md) as f:
        text = f.read()
    check(text.startswith("<!-- benchsite:bisect -->\n### benchsite bisect: `"
                          + r.ids[17][:12] + "`"),
          "Markdown: the marker, then the culprit in the headline",
          text[:120])
    if shutil.which("cmark-gfm"):
        html = subprocess.run(["cmark-gfm", "-e", "table"], input=text,
                              stdout=subprocess.PIPE, text=True).stdout
        rows = html.count("<tr>")
        check(rows == len(d["probes"]) + 1 and html.count("<th>") == 4,
              "Markdown: the trail is a table of four columns, a row a probe",
              rows)
    # The default: probes judged at half the start's step, never above the
    # low end of its interval (nor below half of 3 %). Whatever this
    # machine measured, the thresholds follow from the start's figures,
    # and a commit named is the planted one.
    p4, d4 = b.run(r, r.ids[0], r.ids[24], "--quiet", threshold=None,
                   metric=None)
    check(p4.returncode in (1, 4) and d4["outcome"] in ("found",
                                                         "undecided-range"),
          "the default threshold: found or undecided", d4 and d4["outcome"])
    st = d4["probes"][0]["cases"][0]
    want = max(min(st["delta_pct"] / 2, st["ci_low_pct"]), 1.5)
    later = [q["cases"][0]["threshold_pct"] for q in d4["probes"][1:]
             if q["cases"]]
    check(st["threshold_pct"] == 3 and d4["threshold_given"] is False and
          d4["metric"] == "wall" and
          later and all(abs(t - want) < 1e-9 for t in later),
          "the start judged at 3 %, probes at min(start delta / 2, its low "
          "end)", (st, later, want))
    check(d4["outcome"] != "found" or d4["culprit"] == r.ids[17],
          "never another commit", d4["culprit"])


def test_no_step(b, work):
    print("no step: 8 commits of the same cost")
    r = Repo(os.path.join(work, "nostep"), 8)
    # A step of 20 % is ruled out whatever the machine's load; 3 % (the
    # default) may not be, which is undecided, not "no step".
    p, d = b.run(r, r.ids[0], r.ids[8], "--sequential")
    check(p.returncode == 0, "exit status 0 (no step)", p.returncode)
    check(d and d["duet"] is False and not d["probes"][0]["duet"],
          "--sequential: one build at a time", d and d["duet"])
    check(d and d["outcome"] == "no-step" and d["culprit"] is None,
          "outcome no-step, no culprit", d and d["outcome"])
    check(d and len(d["probes"]) == 1, "one probe: the start")
    check(d and d["threshold_pct"] == 20 and d["threshold_given"],
          "the threshold is the one given")
    check(p.stdout.startswith("benchsite bisect: no step of at least 20 %"),
          "stdout says so", p.stdout[:80])


def test_google_benchmark_cpu(b, work):
    """A Google Benchmark program is bisected on its CPU time unless
    --metric says otherwise, as run's manifest gates it: here commit 3
    makes BM_x's CPU time 50 % longer while its wall time stays the same,
    so a bisection on wall time would find no step."""
    print("google benchmark: CPU time by default")
    root = os.path.join(work, "gbench")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    git(root, "init", "--quiet")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "test")
    ids = []
    for i in range(6):
        cpu = 150 if i >= 3 else 100
        prog = os.path.join(root, "gb")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\n# commit %d\necho '{\"benchmarks\":[{"
                    "\"name\":\"BM_x\",\"run_type\":\"iteration\","
                    "\"iterations\":10,\"real_time\":200,\"cpu_time\":%d,"
                    "\"time_unit\":\"us\"}]}'\n" % (i, cpu))
        os.chmod(prog, 0o755)
        git(root, "add", "-A")
        git(root, "commit", "--quiet", "-m", "commit %d" % i)
        ids.append(git(root, "rev-parse", "HEAD"))
    js = os.path.join(work, "gbench.json")
    argv = [b.binary, "bisect", "--repo", root, "--good", ids[0], "--bad",
            ids[5], "--build", "true", "--google-benchmark", "{tree}/gb",
            "--protocol", "Development", "--blocks", "6", "--threshold",
            "20", "--cache", os.path.join(work, "gbench-cache"), "--json",
            js]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    d = None
    if os.path.exists(js):
        with open(js) as f:
            d = json.load(f)
    check(p.returncode == 1, "exit status 1 (a step found)",
          (p.returncode, p.stderr[-400:]))
    check(d and d["metric"] == "cpu", "judged on CPU time", d and d["metric"])
    check(d and d["culprit"] == ids[3],
          "commit 3 is the culprit", d and d["culprit"])
    argv += ["--metric", "wall"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    check(p.returncode == 0, "--metric wall: no step (exit 0)",
          (p.returncode, p.stderr[-400:]))


def test_broken(b, work):
    print("a commit that does not build: commit 8 (the first midpoint) of 16, "
          "the step at 12")
    r = Repo(os.path.join(work, "broken"), 16, step=12, broken={8})
    p, d = b.run(r, r.ids[0], r.ids[16])
    check(p.returncode == 1 and d and d["culprit"] == r.ids[12],
          "the culprit is still found", d and d["culprit"])
    skipped = d["skipped"] if d else []
    check(len(skipped) == 1 and skipped[0]["commit"] == r.ids[8] and
          skipped[0]["subject"] == "commit 8" and
          "does not build" in skipped[0]["reason"],
          "commit 8 is skipped and named", skipped)
    check(any(q["outcome"] == "skipped" and q["commit"] == r.ids[8]
              for q in d["probes"]), "the trail shows it skipped")
    # Three builds at once (the start's two and the first midpoint, then
    # the next probes' ahead), in a cache of its own.
    cache = os.path.join(work, "cache-jobs")
    p2, d2 = b.run(r, r.ids[0], r.ids[16], "--jobs", "3", "--cache", cache)
    check(p2.returncode == 1 and d2["culprit"] == r.ids[12] and
          [k["commit"] for k in d2["skipped"]] == [r.ids[8]],
          "--jobs 3: the same culprit, commit 8 skipped", d2 and d2["skipped"])
    check(d2["builds_made"] >= 5 and d2["builds_reused"] == 0 and
          d2["cache"] == os.path.realpath(cache) and
          len([n for n in os.listdir(cache) if n.endswith(".ok")]) ==
          d2["builds_made"],
          "--cache: every build in the cache given, none reused from the "
          "repository's", (d2["builds_made"], d2["builds_reused"]))
    check(no_worktrees_left(r) and cache_consistent(r),
          "no worktree left, the cache consistent")
    check(not os.path.exists(os.path.join(r.cache(), r.ids[8])),
          "its tree is not kept")
    log = os.path.join(r.cache(), "logs", r.ids[8] + ".log")
    check(os.path.exists(log) and "error" in open(log).read(),
          "its build's output is kept")


def test_undecided(b, work):
    print("undecided: commits 9 to 14 noisy, the step at 12 of 16")
    r = Repo(os.path.join(work, "noisy"), 16, step=12,
             noisy=set(range(9, 15)))
    p, d = b.run(r, r.ids[0], r.ids[16], "--max-runs", "2")
    # The noise can fall so that every probe is decided and the search
    # ends on the step itself (side by side, the probes are precise enough
    # for that now and then): honest too. Never another commit.
    if p.returncode == 1 and d and d["outcome"] == "found":
        print("    (the noise let every probe be decided)")
        check(d["culprit"] == r.ids[12], "found: the step commit, no other",
              d["culprit"] in r.ids and r.ids.index(d["culprit"]))
        return
    check(p.returncode == 4, "exit status 4 (undecided range)", p.returncode)
    check(d and d["outcome"] == "undecided-range" and d["culprit"] is None,
          "outcome undecided-range, no culprit", d and d["outcome"])
    rng = d["range"] if d else None
    ok = bool(rng) and rng[0] in r.ids and rng[1] in r.ids
    check(ok and r.ids.index(rng[0]) <= 12 <= r.ids.index(rng[1]),
          "the range holds the step", rng and [r.ids.index(x) for x in rng
                                               if x in r.ids])
    # Two honest ends, as the noise falls: a probe that stays undecided
    # after more runs, or a culprit whose confirmation against its parent
    # fails (a noisy probe misled the search); either way the range is
    # the one the other verdicts leave, and it holds the step.
    probes = d["probes"] if d else []
    und = [q for q in probes if q["outcome"] == "undecided"]
    if probes and probes[-1]["role"] == "confirm":
        print("    (the search ended on a confirmation that failed)")
        check("did not confirm the step, which is at one of the commits"
              in p.stdout, "stdout says the confirmation failed, and the "
              "range", p.stdout[:200])
    else:
        check(len(und) == 1 and und[0]["runs"] == 2 and und[0]["looks"] == 2,
              "the undecided probe took more runs, up to --max-runs",
              und and (und[0]["runs"], und[0]["looks"]))
        check("could not split" in p.stdout, "stdout says the range could "
              "not be split", p.stdout[:160])


def test_hostile(b, work):
    print("hostile input")
    r = Repo(os.path.join(work, "hostile"), 12, step=9, delete={6},
             subjects={9: "\x1b[31mred\x1b[0m\n::error::owned"})
    before = os.listdir(os.path.join(r.root, ".git"))
    for good, bad, what in (("-x", r.ids[12], "--good=-x"),
                            (r.ids[0], "--output=/tmp/x", "--bad=--output=")):
        p = subprocess.run(b.argv(r, "", "")[:4] + [
            "--good=" + good, "--bad=" + bad] + b.argv(r, "", "")[8:],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 2 and "looks like an option" in p.stderr,
              f"{what}: refused as an option (exit 2)",
              (p.returncode, p.stderr))
    check(sorted(os.listdir(os.path.join(r.root, ".git"))) == sorted(before),
          "the git directory untouched by refused refs")
    p = subprocess.run(b.argv(r, "no-such-ref", r.ids[12]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(p.returncode == 2 and "is not a commit" in p.stderr,
          "a ref that does not exist: exit 2", (p.returncode, p.stderr))
    p = subprocess.run(b.argv(r, r.ids[12], r.ids[0]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(p.returncode == 2 and "not an ancestor" in p.stderr,
          "good after bad: exit 2", (p.returncode, p.stderr))
    # A good commit that came in through a merge is on B's history, but
    # not on its first-parent path.
    side = os.path.join(work, "side")
    shutil.rmtree(side, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", r.root, side], check=True)
    git(side, "config", "user.email", "test@example.com")
    git(side, "config", "user.name", "test")
    main_branch = git(side, "rev-parse", "--abbrev-ref", "HEAD")
    git(side, "checkout", "--quiet", "-b", "topic", r.ids[3])
    with open(os.path.join(side, "topic.txt"), "w") as f:
        f.write("topic\n")
    git(side, "add", "topic.txt")
    git(side, "commit", "--quiet", "-m", "topic")
    topic = git(side, "rev-parse", "HEAD")
    git(side, "checkout", "--quiet", main_branch)
    git(side, "merge", "--quiet", "--no-ff", "-m", "merge topic", "topic")
    merge = git(side, "rev-parse", "HEAD")
    argv = b.argv(r, topic, merge)
    argv[argv.index("--repo") + 1] = side
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(p.returncode == 2 and "first-parent history" in p.stderr,
          "a good commit off the first-parent path: exit 2",
          (p.returncode, p.stderr))
    argv = b.argv(r, r.ids[0], r.ids[12])
    argv[argv.index("--lib") + 1] = os.path.join(r.root, "bench.so")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(p.returncode == 2 and "absolute" in p.stderr,
          "an absolute --lib: exit 2", (p.returncode, p.stderr))

    # Uncommitted changes, staged and not, and an untracked file.
    with open(os.path.join(r.root, "cost.h"), "a") as f:
        f.write("/* uncommitted */\n")
    with open(os.path.join(r.root, "new.txt"), "w") as f:
        f.write("untracked\n")
    with open(os.path.join(r.root, "bench.c"), "a") as f:
        f.write("/* staged */\n")
    git(r.root, "add", "bench.c")
    status = git(r.root, "status", "--porcelain")
    head = git(r.root, "rev-parse", "HEAD")
    files = {n: open(os.path.join(r.root, n)).read()
             for n in ("cost.h", "new.txt", "bench.c")}

    p, d = b.run(r, r.ids[0], r.ids[12])
    check(p.returncode == 1 and d and d["culprit"] == r.ids[9],
          "with a build that deletes its tree at commit 6: culprit found",
          d and d["culprit"])
    sk = d["skipped"] if d else []
    check(len(sk) == 1 and sk[0]["commit"] == r.ids[6] and
          "removed its tree" in sk[0]["reason"],
          "the commit whose build deletes its tree is skipped and named", sk)
    check(no_worktrees_left(r), "git worktree list: only the checkout")
    check(cache_consistent(r) and
          not os.path.exists(os.path.join(r.cache(), r.ids[6])),
          "the cache is consistent and holds nothing of commit 6")
    check(git(r.root, "status", "--porcelain") == status and
          git(r.root, "rev-parse", "HEAD") == head and
          all(open(os.path.join(r.root, n)).read() == t
              for n, t in files.items()) and
          git(r.root, "stash", "list") == "",
          "the uncommitted changes are untouched")
    # The subject is untrusted text.
    p = subprocess.run(b.argv(r, r.ids[0], r.ids[12], "--quiet"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode()
    check(p.returncode == 1 and "\x1b" not in out and
          not any(l.lstrip().startswith("::") for l in out.splitlines()) and
          "\\x1b[31mred" in out,
          "the culprit's subject is escaped in the text", out[:300])
    p = subprocess.run(b.argv(r, r.ids[0], r.ids[12], "--filter", "nope"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    check(p.returncode == 2 and "cannot be measured" in p.stderr and
          "--filter" in p.stderr,
          "a --filter that matches no case: exit 2, saying so",
          (p.returncode, p.stderr))
    # A cache another bisection holds.
    lock = os.path.join(r.cache(), "lock")
    with open(lock, "a") as f:
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        p = subprocess.run(b.argv(r, r.ids[0], r.ids[12]),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    check(p.returncode == 2 and "another benchsite bisect" in p.stderr,
          "a cache in use by another bisection: exit 2",
          (p.returncode, p.stderr))


def interrupt(b, r, argv, wait_for, env=None):
    """Starts argv, waits until wait_for(stderr so far) says so, sends
    SIGINT, and returns the process's exit status and stderr."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    err = ""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if wait_for(err):
            break
        line = p.stderr.readline()
        err += line
    p.send_signal(signal.SIGINT)
    try:
        out, rest = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, rest = p.communicate()
        return "hung", err + rest
    return p.returncode, err + rest


def test_interrupt(b, work):
    print("Ctrl-C while building and while measuring")
    r = Repo(os.path.join(work, "sigint"), 16, step=11, hold={8})
    flag = os.path.join(work, "held")
    if os.path.exists(flag):
        os.remove(flag)
    env = dict(os.environ, BISECT_TEST_HOLD=flag)
    rc, err = interrupt(b, r, b.argv(r, r.ids[0], r.ids[16]),
                        lambda e: os.path.exists(flag), env=env)
    check(os.path.exists(flag), "the build of commit 8 was under way")
    check(rc == -signal.SIGINT, "the bisection dies of SIGINT", (rc, err[-300:]))
    check("interrupted" in err, "and says so")
    check(no_worktrees_left(r), "no worktree left after Ctrl-C in a build",
          r.worktrees())
    check(cache_consistent(r) and
          not os.path.exists(os.path.join(r.cache(), r.ids[8])),
          "the cache is consistent, the tree being built removed")
    kept = [n for n in os.listdir(r.cache()) if n.endswith(".ok")]
    check(len(kept) >= 2, "the builds made before stay", kept)

    argv = b.argv(r, r.ids[0], r.ids[16])
    argv[argv.index("--blocks") + 1] = "100000"
    rc, err = interrupt(b, r, argv, lambda e: "measuring" in e)
    check(rc == -signal.SIGINT, "Ctrl-C while measuring: dies of SIGINT",
          (rc, err[-300:]))
    check(no_worktrees_left(r) and cache_consistent(r),
          "no worktree left, the cache consistent")
    # The next bisection completes with what is left.
    p, d = b.run(r, r.ids[0], r.ids[16])
    check(p.returncode == 1 and d and d["culprit"] == r.ids[11] and
          d["builds_reused"] >= 2,
          "the next bisection completes and reuses the builds",
          d and (d["culprit"], d["builds_reused"]))
    check(no_worktrees_left(r) and cache_consistent(r),
          "no worktree left, the cache consistent")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, src, work = (os.path.abspath(a) for a in sys.argv[1:])
    if not shutil.which("git") or not shutil.which("cc"):
        print("skipped: git or cc missing")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ.update(GIT_CONFIG_NOSYSTEM="1", HOME=work, LC_ALL="C.UTF-8")
    b = Bisect(binary, src, work)
    only = os.environ.get("BISECT_TEST_ONLY")
    for t in (test_found, test_no_step, test_google_benchmark_cpu,
              test_broken, test_undecided, test_hostile, test_interrupt):
        if not only or only in t.__name__:
            t(b, work)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
