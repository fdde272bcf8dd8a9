#!/usr/bin/python3
"""One archive, many machines: concurrent pushes of runs all land.

Runs the action's archive step (`benchsite-action.sh archive-run`, the code
the action's "Add the run to the archive" step runs) from several
processes at once against one local bare repository, as parallel jobs on
different machines would push to one archive branch:

1. two runs onto a repository with no archive branch yet (both start the
   branch; one must rebase its first commit onto the other's);
2. eight more runs onto the branch;
3. one run onto another repository whose only branches end in the archive
   branch's name (`feature/benchsite-archive`): the archive branch is
   created beside them, which are left as they were (refs are compared by
   full name, `refs/heads/benchsite-archive`).

The runs are logs this script writes (a paired benchmark with rotated
blocks) with manifests of two machines, so the archive holds two
comparability groups. A `git` shim holds every process's first `git push`
until all of them have got there, so the pushes really collide: in each
round one wins and the others are rejected, must fetch, rebase and push
again (after a random wait), within the retry bound.

Checked: every process exits 0; the branch holds every run, one commit a
run, no merge, nothing but FORMAT, ID (the archive's identity: one of the
first two runs, the same ever after) and runs/; at least N - 1 pushes were
rejected in each round (the race happened); `benchsite archive verify`
passes on a clone; `benchsite site` lists every run and both comparability
groups; and the same race with a bound of one attempt fails for all but
one process, naming the run, with nothing half-pushed.

Usage: archive_race.py BENCHSITE_BINARY SOURCE_DIR WORK_DIR
Exit status: 0 pass, 1 fail, 77 skip (git or gnuplot missing).
"""

import os
import random
import re
import shutil
import subprocess
import sys
import time


class Failure(Exception):
    pass


def check(cond, what, got=None):
    if not cond:
        raise Failure(what if got is None else f"{what} (got {got!r})")
    print(f"  ok: {what}", flush=True)


def git(*args, cwd=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, text=True,
                          stdout=subprocess.PIPE).stdout.strip()


BRANCH = "benchsite-archive"


class Race:
    def __init__(self, binary, src, work):
        self.binary = os.path.abspath(binary)
        self.script = os.path.join(os.path.abspath(src), ".github", "actions",
                                   "benchsite", "benchsite-action.sh")
        self.work = os.path.abspath(work)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.remote = os.path.join(self.work, "archive.git")
        git("init", "--quiet", "--bare", self.remote)
        self.shims = os.path.join(self.work, "shims")
        os.makedirs(self.shims)
        home = os.path.join(self.work, "home")
        os.makedirs(home)
        self.env = {"PATH": self.shims + os.pathsep + os.environ["PATH"],
                    "HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                    "GIT_CONFIG_NOSYSTEM": "1", "GIT_ALLOW_PROTOCOL": "file",
                    "TZ": "UTC"}
        real = shutil.which("git")
        # git: a process's first push waits at the barrier until N processes
        # have arrived there; every push's exit status is logged.
        with open(os.path.join(self.shims, "git"), "w") as f:
            f.write(f"""#!/bin/sh
case " $* " in
*" push "*) ;;
*) exec {real} "$@" ;;
esac
if [ -n "$CI_TEST_BARRIER" ] && [ ! -e "$CI_TEST_MARK" ]; then
  : >"$CI_TEST_MARK"
  : >"$CI_TEST_BARRIER/$$"
  i=0
  while [ "$(ls "$CI_TEST_BARRIER" | wc -l)" -lt "$CI_TEST_N" ]; do
    i=$((i + 1))
    [ "$i" -lt 3000 ] || {{ echo "barrier: timed out" >&2; exit 99; }}
    sleep 0.02
  done
fi
rc=0
{real} "$@" || rc=$?
echo "$rc $(date +%s.%N) $CI_TEST_MARK" >>"$CI_TEST_PUSHLOG"
exit "$rc"
""")
        os.chmod(os.path.join(self.shims, "git"), 0o755)
        self.nruns = 0
        self.ids = []
        self.identity = None

    def make_run(self, machine):
        """A log and manifest of one run: a paired benchmark, 10 rotated
        blocks, on `machine`; its own date and commit."""
        n = self.nruns = self.nruns + 1
        d = os.path.join(self.work, "runs", f"r{n}")
        os.makedirs(d)
        rng = random.Random(n)
        rows = ["benchmark,dataset,impl,block,iterations,per_call_us"]
        for b in range(10):
            order = ("base", "head") if b % 2 == 0 else ("head", "base")
            for impl in order:
                rows.append(f"sum,n=1024,{impl},{b},1000,"
                            f"{1.0 + rng.random() * 0.01:.6f}")
        with open(os.path.join(d, "log.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        commit = f"{n:04x}" + "c0ffee" * 6
        with open(os.path.join(d, "env.csv"), "w") as f:
            f.write("key,value\n"
                    '"target","native"\n"profile","release"\n'
                    f'"machine","{machine}"\n'
                    '"frequency_policy","performance"\n'
                    '"protocol","Development"\n'
                    f'"date","2026-11-{n:02d}T10:00:00Z"\n'
                    f'"commit","{commit}"\n'
                    '"baseline","base"\n"candidate","head"\n')
        return d

    def race(self, n, label, retries=10):
        """n processes archive one run each at once; returns their
        (exit status, stderr) and the push log."""
        barrier = os.path.join(self.work, label, "barrier")
        os.makedirs(barrier)
        pushlog = os.path.join(self.work, label, "pushes")
        open(pushlog, "w").close()
        procs = []
        t0 = time.monotonic()
        t0w = time.time()
        for i in range(n):
            d = self.make_run("x86_64 lab machine A" if i % 2 == 0
                              else "x86_64 lab machine B \u00d72")
            env = dict(self.env, BS_ARCHIVE_REMOTE="file://" + self.remote,
                       BS_ARCHIVE_BRANCH=BRANCH,
                       BS_ARCHIVE_RETRIES=str(retries),
                       CI_TEST_BARRIER=barrier, CI_TEST_N=str(n),
                       CI_TEST_MARK=os.path.join(d, "pushed-once"),
                       CI_TEST_PUSHLOG=pushlog)
            err = open(os.path.join(d, "stderr"), "w+")
            out = open(os.path.join(d, "stdout"), "w+")
            p = subprocess.Popen(
                ["timeout", "300", "bash", self.script, "archive-run",
                 self.binary, os.path.join(d, "log.csv"),
                 os.path.join(d, "env.csv"), os.path.join(d, "archive")],
                env=env, stdout=out, stderr=err)
            procs.append((p, out, err, d))
        results = []
        for p, out, err, d in procs:
            rc = p.wait()
            out.seek(0)
            err.seek(0)
            results.append((rc, out.read(), err.read(), d))
        with open(pushlog) as f:
            log = [line.split() for line in f if line.strip()]
        pushes = [int(x[0]) for x in log]
        if log:
            print("  pushes (s after start, exit status): " + ", ".join(
                f"{float(x[1]) - t0w:.1f}:{x[0]}" for x in log))
        print(f"  {n} processes in {time.monotonic() - t0:.1f} s; "
              f"pushes: {len(pushes)}, rejected: "
              f"{sum(1 for x in pushes if x != 0)}", flush=True)
        return results, pushes

    def branch(self):
        tip = git("rev-parse", f"refs/heads/{BRANCH}", cwd=self.remote)
        runs = git("ls-tree", "--name-only", f"{tip}:runs",
                   cwd=self.remote).split("\n")
        files = git("ls-tree", "-r", "--name-only", tip,
                    cwd=self.remote).split("\n")
        commits = int(git("rev-list", "--count", tip, cwd=self.remote))
        merges = int(git("rev-list", "--merges", "--count", tip,
                         cwd=self.remote))
        return tip, runs, files, commits, merges

    def check_round(self, results, pushes, n, total):
        for rc, out, err, d in results:
            if rc != 0:
                sys.stderr.write(err)
            check(rc == 0, f"{os.path.basename(d)}: archive-run exits 0", rc)
            m = re.search(r"run (\S+) archived on", out)
            check(m is not None, f"{os.path.basename(d)}: says its run is "
                  "archived", out)
            self.ids.append(m.group(1))
        check(sum(1 for x in pushes if x != 0) >= n - 1,
              f"the pushes collided: at least {n - 1} rejected", pushes)
        tip, runs, files, commits, merges = self.branch()
        check(sorted(runs) == sorted(self.ids) and len(runs) == total,
              f"the branch holds all {total} runs", runs)
        check(commits == total and merges == 0,
              f"{total} commits, one a run, no merge", (commits, merges))
        stray = [f for f in files if f not in ("FORMAT", "ID")
                 and not re.fullmatch(r"runs/[^/]+/[^/]+", f)]
        check(not stray, "nothing but FORMAT, ID and runs/ on the branch",
              stray)
        ident = git("show", f"{tip}:ID", cwd=self.remote)
        if self.identity is None:
            self.identity = ident
        check(ident == self.identity and ident in self.ids,
              "ID names one of the runs, the same in every round",
              (ident, self.identity))
        clone = os.path.join(self.work, f"verify{total}")
        git("clone", "--quiet", "--branch", BRANCH, "file://" + self.remote,
            clone)
        r = subprocess.run([self.binary, "archive", "verify", "--archive",
                            clone], capture_output=True, text=True)
        check(r.returncode == 0, "benchsite archive verify passes", r.stderr)
        return clone

    def lookalike(self):
        """Branches whose names end in the archive branch's name are not
        the archive branch: the run creates it and leaves them alone."""
        remote = os.path.join(self.work, "lookalike.git")
        git("init", "--quiet", "--bare", remote)
        seed = os.path.join(self.work, "lookalike-seed")
        git("init", "--quiet", seed)
        with open(os.path.join(seed, "README"), "w") as f:
            f.write("not an archive\n")
        git("add", "README", cwd=seed)
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
            "--quiet", "-m", "not an archive", cwd=seed)
        others = [f"feature/{BRANCH}", f"x/refs/heads/{BRANCH}"]
        for b in others:
            git("push", "--quiet", "file://" + remote, f"HEAD:refs/heads/{b}",
                cwd=seed)
        before = {b: git("rev-parse", f"refs/heads/{b}", cwd=remote)
                  for b in others}
        d = self.make_run("x86_64 lab machine A")
        env = dict(self.env, BS_ARCHIVE_REMOTE="file://" + remote,
                   BS_ARCHIVE_BRANCH=BRANCH)
        r = subprocess.run(
            ["timeout", "300", "bash", self.script, "archive-run",
             self.binary, os.path.join(d, "log.csv"),
             os.path.join(d, "env.csv"), os.path.join(d, "archive")],
            env=env, capture_output=True, text=True)
        check(r.returncode == 0, "archive-run exits 0 beside "
              + " and ".join(others), r.stderr)
        runs = git("ls-tree", "--name-only", f"refs/heads/{BRANCH}:runs",
                   cwd=remote).split("\n")
        check(len(runs) == 1, f"{BRANCH} was created with the run", runs)
        check(all(git("rev-parse", f"refs/heads/{b}", cwd=remote) == c
                  for b, c in before.items()),
              "the look-alike branches are unchanged")

    def main(self):
        print("== a branch named like the archive branch is not it",
              flush=True)
        self.lookalike()

        print("\n== two runs race to create the archive branch", flush=True)
        results, pushes = self.race(2, "two")
        self.check_round(results, pushes, 2, 2)

        print("\n== eight runs race onto the branch", flush=True)
        results, pushes = self.race(8, "eight")
        clone = self.check_round(results, pushes, 8, 10)

        print("\n== the site of the ten runs", flush=True)
        site = os.path.join(self.work, "site")
        r = subprocess.run([self.binary, "site", "--archive", clone, "--out",
                            site], capture_output=True, text=True)
        print("  " + r.stdout.strip())
        check(r.returncode == 0, "benchsite site succeeds", r.stderr)
        check(re.search(r": 10 runs, 1 case, 2 comparability groups;",
                        r.stdout), "the site: 10 runs in 2 comparability "
              "groups (the two machines kept apart)", r.stdout)
        with open(os.path.join(site, "index.html"), encoding="utf-8") as f:
            index = f.read()
        check(all(i in index for i in self.ids),
              "the site's index lists every run")

        print("\n== one attempt only: the losers fail and say so",
              flush=True)
        before = self.branch()
        results, pushes = self.race(3, "bounded", retries=1)
        ok = [r for r in results if r[0] == 0]
        bad = [r for r in results if r[0] != 0]
        check(len(ok) == 1 and len(bad) == 2,
              "one push lands, two fail", [r[0] for r in results])
        check(all("is not archived" in r[2] and
                  r[2].strip().split("\n")[-1].startswith("::error")
                  for r in bad),
              "each failure is an ::error naming its run", [r[2] for r in bad])
        after = self.branch()
        check(after[3] == before[3] + 1 and len(after[1]) == 11,
              "the branch grew by exactly the one run", after[3])
        print("\nPASS: concurrent runs all land in one archive")


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[-2], file=sys.stderr)
        return 2
    for tool in ("git", "gnuplot", "timeout"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed")
            return 77
    try:
        Race(*argv[1:]).main()
    except (Failure, subprocess.CalledProcessError) as e:
        print(f"\nFAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
