#!/usr/bin/env python3
"""benchsite run with a harness adapter on its example project: the two
versions of examples/pytest-benchmark or examples/go-bench (head has one
planted slowdown) are measured interleaved with Debian's pytest-benchmark
or go, the manifest records the harness, `benchsite check` passes and
`benchsite compare` flags exactly the planted case.

usage: run_harness_examples.py BENCHSITE SOURCE_DIR WORK_DIR ADAPTER
  ADAPTER: pytest-benchmark | go-bench

Exit 77 (skipped) when the harness is not installed: Debian's
python3-pytest-benchmark or golang-go (.ci/deps installs both).
"""
import json
import os
import shutil
import subprocess
import sys

# The verdicts are statistics on a machine that may be busy: a load spike
# can flag unchanged code (or hide the slowdown) by chance. A wrong parse
# or pairing fails every try; chance fails all three only with its
# probability cubed.
TRIES = 3
BLOCKS = 10


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def setup(adapter, src, work):
    """The command of each tree, the planted case, the extra columns and
    the environment; or exits 77."""
    env = dict(os.environ)
    if adapter == "pytest-benchmark":
        py = "/usr/bin/python3"
        if not os.path.exists(py) or subprocess.run(
                [py, "-c", "import pytest_benchmark"],
                capture_output=True).returncode != 0:
            print("skipped: Debian's python3-pytest-benchmark is not "
                  "installed (.ci/deps installs it)")
            sys.exit(77)
        # No bytecode or cache written into the source tree.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cmd = (py + " -m pytest -q -p no:cacheprovider "
               "--benchmark-max-time=0.02 --benchmark-warmup=off")
        return (cmd, os.path.join(src, "examples", "pytest-benchmark"),
                ("test_textops.py::test_sum_squares", "2000"), [], env)
    go = shutil.which("go") or "/usr/bin/go"
    if not os.path.exists(go) or subprocess.run(
            [go, "version"], capture_output=True).returncode != 0:
        print("skipped: Debian's golang-go is not installed (.ci/deps "
              "installs it)")
        sys.exit(77)
    # go's caches in the build tree, not in $HOME.
    env["GOCACHE"] = os.path.join(work, "gocache")
    env["GOPATH"] = os.path.join(work, "gopath")
    env["GOFLAGS"] = "-mod=mod"
    return (go + " test -benchtime=20ms",
            os.path.join(src, "examples", "go-bench"),
            ("example.com/textops.BenchmarkSumSquares", "n=4096"),
            ["procs", "bytes_per_op", "allocs_per_op"], env)


def main():
    bs, src, work, adapter = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cmd, example, planted, extra, env = setup(adapter, src, work)
    log = os.path.join(work, "log.csv")
    man = os.path.join(work, "env.csv")
    out = os.path.join(work, "compare.json")
    flagged = None
    for attempt in range(1, TRIES + 1):
        for f in (log, man, out):
            if os.path.exists(f):
                os.unlink(f)
        r = subprocess.run(
            [bs, "run", "--quiet", "--out", log, "--manifest-out", man,
             # One run: a harness starts anew every block already, so
             # Shared's five runs would only multiply the time here.
             "--runs", "1", "--blocks", str(BLOCKS),
             "--profile", "release", "--dtype", "na",
             "--" + adapter, "base=" + cmd, "--dir",
             "base=" + os.path.join(example, "base"),
             "--" + adapter, "head=" + cmd, "--dir",
             "head=" + os.path.join(example, "head")],
            env=env, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"benchsite run: exit {r.returncode}\n{r.stderr}")
        with open(man) as f:
            text = f.read()
        for want in (f'"harness","{adapter}"', '"baseline","base"',
                     '"candidate","head"'):
            if want not in text:
                fail(f"manifest lacks {want}:\n{text}")
        with open(log) as f:
            header = f.readline().rstrip("\n").split(",")
            body = f.read()
        if header[:9] != ["benchmark", "dataset", "scale", "impl", "run",
                          "block", "phase", "iterations", "per_call_us"] \
                or header[9:] != extra:
            fail(f"log header {header}")
        if "calibration" in body:
            fail("a harness run wrote calibration rows")
        r = subprocess.run([bs, "check", log, "--manifest", man],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"benchsite check: exit {r.returncode}\n{r.stdout}{r.stderr}")
        r = subprocess.run([bs, "compare", log, "--manifest", man, "--json",
                            out], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            fail(f"benchsite compare: exit {r.returncode}\n{r.stderr}")
        with open(out) as f:
            cases = json.load(f)["cases"]
        if len(cases) != 3:
            fail(f"{len(cases)} cases, want 3: {cases}")
        flagged = sorted((c["benchmark"], c["dataset"]) for c in cases
                         if c["significant_regression"])
        if r.returncode == 1 and flagged == [planted]:
            print(f"{adapter}: compare flagged exactly {planted} "
                  f"(try {attempt})\n{r.stdout}")
            return 0
        print(f"try {attempt}: compare flagged {flagged}, want [{planted}]\n"
              f"{r.stdout}")
    fail(f"compare flagged {flagged} in each of {TRIES} tries, "
         f"want [{planted}]")


if __name__ == "__main__":
    sys.exit(main())
