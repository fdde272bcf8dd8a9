#!/usr/bin/env python3
"""benchsite run on a real project's go benchmarks, as its users run them
(issue 36): klauspost/compress's s2 package from Debian's
golang-github-klauspost-compress-dev (GOPATH mode, offline), its test
binary run with the user's own -test.bench, -test.benchtime and
-testdataDir exactly as written. benchsite must add no -test.bench after
the user's (go keeps the last one: with `-test.bench=.` after it, every s2
benchmark runs, and the ones that need downloaded data fail or run for
minutes), and the cases must be exactly the user's, named with the
package's import path.

usage: run_real_go_project.py BENCHSITE WORK_DIR

Exit 77 (skipped) when go or the Debian package is not installed.
"""
import os
import shutil
import subprocess
import sys

PKG = "github.com/klauspost/compress/s2"
SRC = "/usr/share/gocode/src/" + PKG
WANT = sorted((PKG + ".BenchmarkTwainDecode1e4", d)
              for d in ("default", "better", "best", "snappy-input"))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    bs, work = sys.argv[1:3]
    go = shutil.which("go") or "/usr/bin/go"
    if not os.path.exists(go) or not os.path.isdir(SRC):
        print("skipped: needs go and Debian's "
              "golang-github-klauspost-compress-dev")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode",
               GOCACHE=os.path.join(work, "..", "gocache-real-project"),
               GOFLAGS="")
    binary = os.path.join(work, "s2.test")
    r = subprocess.run([go, "test", "-c", "-o", binary, PKG], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("skipped: go test -c " + PKG + " failed:\n" + r.stderr)
        return 77
    log = os.path.join(work, "log.csv")
    cmd = (binary + " -test.bench=TwainDecode1e4$ -test.benchtime=20ms "
           "-testdataDir testdata")
    r = subprocess.run(
        [bs, "run", "--quiet", "--out", log, "--blocks", "2",
         "--timeout", "60", "--go-bench", "A=" + cmd, "--dir", "A=" + SRC,
         "--go-bench", "B=" + cmd, "--dir", "B=" + SRC],
        env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"benchsite run: exit {r.returncode}\n{r.stderr}")
    cases = set()
    with open(log) as f:
        header = f.readline()
        for line in f:
            b, d = line.split(",")[0:2]
            cases.add((b.strip('"'), d.strip('"')))
    if sorted(cases) != WANT:
        fail(f"{len(cases)} cases ({sorted(cases)[:6]} ...), want the "
             f"user's {len(WANT)}: {WANT}")
    print(f"{PKG}: the user's -test.bench ran exactly {len(WANT)} cases:\n"
          + r.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
