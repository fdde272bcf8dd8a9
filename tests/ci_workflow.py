#!/usr/bin/python3
"""Runs the shell steps of examples/ci/benchmarks.yml locally, end to end.

The GitHub Actions workflow in examples/ci/benchmarks.yml is copied by
users and cannot run here (no GitHub, no network). This test loads the
YAML itself and runs the `run:` blocks of its steps, in workflow order,
with the real benchsite binary, so an edit that breaks the workflow's
logic breaks the test.

Usage: ci_workflow.py BENCHSITE_BINARY SOURCE_DIR WORK_DIR [--workflow YML]

WORK_DIR is wiped and kept afterwards for inspection. --workflow runs a
(scratch) copy of the workflow instead of SOURCE_DIR's. Exit status: 0
pass, 1 fail, 77 skip (python3-yaml, git or gnuplot missing).

What is simulated: four pushes to `main` (github.event_name=push), each a
fresh `measure` job, then its `archive` job, then its `pages` job, as on
GitHub, against one archive branch in a local bare repository:

1. push 1 alone: its archive job creates the branch (one push, accepted).
2. pushes 2 and 3 race. Archive 2 runs up to its first `git push` and
   waits there; archive 3 and pages 3 run to the end (archive 3 pushes
   first); then archive 2's push goes on. It must be rejected, and the
   step's next attempt (a fresh checkout of the new tip, the add again)
   accepted: one commit on top of archive 3's, no merge. Pages 2 then
   builds the site from all three runs.
3. a re-run of archive 3: the run is on the branch already, so the step
   succeeds and pushes nothing.
4. after a run on the branch is damaged, push 4's archive job must stop at
   `benchsite archive verify` and push nothing, and pages' if: is false.

On a second, empty bare repository, archive 1 and 2 race the same way
while neither has a branch yet (both start an orphan branch; the loser
re-adds on the winner's). Then that repository refuses every push (a
pre-receive hook): the step must give up after a bounded number of
attempts (2 to 10), wait briefly (sleep, at most 60 s) before each retry,
and fail.

- `${{ ... }}` expressions are substituted as GitHub would for a push
  (github.sha = the pushed commit of a local project repository,
  github.token = x, github.repository = owner/repo, steps.*.outputs.* from
  the steps' GITHUB_OUTPUT files, needs.measure.outputs.* from the measure
  job's `outputs:`, needs.archive.result = success). Every expression in
  the whole file is checked first: one this script does not know fails the
  test, so new ones get noticed. `if:` conditions (steps and jobs) are
  evaluated, not assumed; a job's success() is false when any job up its
  `needs` chain failed, as on GitHub (measure fails on the regression).
- Each `run:` block runs as GitHub runs it: the shell from `shell:` (none
  given: `bash -e {0}`; `shell: bash`: `bash --noprofile --norc -eo
  pipefail {0}`), in `working-directory`, with the workflow's, job's and
  step's `env:`, the GITHUB_OUTPUT / GITHUB_ENV / GITHUB_PATH files and
  GITHUB_WORKSPACE; PATH holds the directory of the benchsite under test.
- Each push gets its own fixed date: SOURCE_DATE_EPOCH for `benchsite
  manifest`, and `date` is a PATH shim. (Hostile manifest values -- quotes,
  commas, newlines -- are tests/test_run.c's.) `git` is a
  shim around the real git that logs each `git push`'s exit status and can
  hold a step's first push until the test lets it go (the race). `sleep`
  is a shim that logs its argument and returns at once.

What is not run, and what stands in for it:

- actions/checkout: a local clone of a throwaway project repository
  (five commits; the pushes are its 2nd to 5th), checked out as `main`.
  "Find the baseline commit" then runs for real (github.event.before,
  git worktree add).
- apt-get installs and "Build benchsite": not run; the directory of the
  benchsite binary given on the command line goes into GITHUB_PATH, and
  the workspace's `benchsite` is the source tree (for its
  include/benchsite/harness.h), which is the effect of the build step.
- "Build the baseline and the head" (ADAPT), "Write the environment
  manifest" and "Measure both builds, interleaved": run for real, under
  the workflow's PROTOCOL. The project is a benchmark library (CMake, one
  case) whose every commit makes its `sum` about four times slower than
  the commit before, so every push's gate must give 1.
- upload-artifact / download-artifact: copies into and out of a local
  artifact directory, with v4's layout (the paths' least common ancestor
  is the artifact root); the uploaded paths must exist.
- "Add the run to the archive" (archive) and "Check out the archive
  branch" (pages): run, with their https://x-access-token:...@github.com/...
  remote replaced by a local bare repository (file://), so ls-remote,
  fetch and push really happen.
- "Comment on the pull request": its `if:` must be false on a push.
- configure-pages / upload-pages-artifact / deploy-pages: not run; the
  Pages artifact path must exist.

Checked: the jobs are measure, archive (needs measure) and pages (needs
archive); archive has no concurrency group (or one per commit), pages has
one with cancel-in-progress false and none per commit; permissions:
contents: read for the workflow, contents: write only for archive, pages
and id-token write (contents read at most) only for pages. archive's if:
is true on a push whose gate gave 0 or 1 although measure failed, false
when the gate gave nothing or 2 and on a pull request; pages' if: is true
after a successful archive although measure failed, false after a failed
or skipped one. Every step's exit status; Gate writes status=1 and
succeeds; "Fail on a significant regression" runs and exits 1;
out/env.csv parses as RFC 4180 with the exact machine string and
benchsite accepts it; out/comment.md, out/compare.json (valid JSON, the
same machine string, no manifest warning) and report/index.html exist.
After each archive job: the pushes it made (as listed above), the branch
tip's parent is the tip it pushed to, the tip holds its run and every run
before, and no lock or temporary file. After the race: 3 runs in 3
commits without a merge, `benchsite archive verify` passes on a clone,
and every pages job's public/index.html lists every run on the branch
when it ran (pages 2: all 3). On the damaged branch the add fails and
pushes nothing.

Also simulated (issue 13): the measure job's concurrency (a group per
pull request that cancels the older measurement; on main a group per
commit, never cancelled); the job summary ($GITHUB_STEP_SUMMARY holds the
comment, marker first); the baseline of a push is github.event.before
(push 4 brings two commits: the baseline is the tip before them, not
HEAD^) and the manifest records it as baseline_commit; the actions/cache
steps are not run (the installed benchsite is the one under test, its
include/ the source tree's), but the previous site is restored as
actions/cache would (each pages job starts from the site the previous one
left, state file included); the on-demand noise job (workflow_dispatch)
runs for real -- `benchsite run --runs 40` of the project's library under
two ids, `benchsite noise` -- and publishes noise.json on its branch of the
project repository, and the next gate fetches it and passes --noise (the
comment then holds the noise-floor table). The comment upsert runs for a
pull request against a `gh` shim (a python stand-in for the REST API,
its --jq through the real jq): the first run creates the comment, the
second edits that one, and another bot comment without the marker and a
human's comment that quotes it are left alone.

Not covered: GitHub itself (triggers, permissions, the token, concurrency
groups in action, artifact retention, Pages), the pull_request path
(merge base, the `gh` comment), the apt-get and benchsite build steps,
and gate status 0 in a run (every commit of the project is a regression). The races are interleaved at one point, the first
push; the jobs share nothing but the remote branch, so that is the point
where they can collide. GitHub's string comparison is case-insensitive;
this evaluator's is not.
"""

import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time

try:
    import yaml
except ImportError:
    print("SKIP: the python3 yaml module is missing (Debian: apt-get install "
          "python3-yaml)")
    sys.exit(77)


class Failure(Exception):
    pass


def check(cond, what, got=None):
    if not cond:
        raise Failure(what if got is None else f"{what} (got {got!r})")
    print(f"  ok: {what}")


# ---- GitHub expressions ------------------------------------------------------

# The contexts this script knows. steps.<id>.outputs.<name> and
# needs.<job>.outputs.<name> are checked against the workflow's step ids
# and job outputs; anything else fails the test.
KNOWN_GITHUB = {"github.event_name", "github.sha", "github.token",
                "github.repository", "github.base_ref", "github.ref",
                "github.event.pull_request.number", "github.event.before",
                "runner.os", "env.BENCHSITE_PREFIX", "env.BENCHSITE_COMMIT"}
KNOWN_FUNCTIONS = {"always", "success", "failure", "cancelled"}

TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^']|'')*')
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<op>==|!=|&&|\|\||!|\(|\))
  | (?P<call>[A-Za-z_][\w-]*)\(\s*\)
  | (?P<ref>[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)
  )""", re.X)
PY_OP = {"==": "==", "!=": "!=", "&&": " and ", "||": " or ", "!": " not ",
         "(": "(", ")": ")"}


def evaluate(expr, lookup, status):
    """Evaluates a GitHub expression (the subset this workflow uses:
    context references, string and number literals, == != && || !,
    parentheses and the status functions). lookup(name) gives a context
    value or raises Failure; status is the job's status so far."""
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
            out.append(repr(m["num"]))  # GitHub compares '1' == 1 as equal
        elif m["op"] is not None:
            out.append(PY_OP[m["op"]])
        elif m["call"] is not None:
            fn = m["call"]
            if fn not in KNOWN_FUNCTIONS:
                raise Failure(f"unknown function {fn}() in {expr!r}")
            out.append(repr({"always": True, "success": status == "success",
                             "failure": status == "failure",
                             "cancelled": False}[fn]))
        else:
            out.append(repr(str(lookup(m["ref"]))))
    return eval("".join(out), {"__builtins__": {}}, {})


def substitute(text, lookup, status="success"):
    """Replaces every ${{ expr }} in text, as GitHub does before a step."""
    if not isinstance(text, str):
        return text
    return re.sub(r"\$\{\{(.*?)\}\}",
                  lambda m: str(evaluate(m.group(1), lookup, status)), text,
                  flags=re.S)


def expressions(node):
    """Every (key, expression) in a YAML subtree: ${{ }} in strings, and
    the bare expressions of `if:`."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "if" and isinstance(v, str):
                yield k, re.sub(r"^\s*\$\{\{(.*)\}\}\s*$", r"\1", v, flags=re.S)
            else:
                yield from expressions(v)
    elif isinstance(node, list):
        for v in node:
            yield from expressions(v)
    elif isinstance(node, str):
        for m in re.finditer(r"\$\{\{(.*?)\}\}", node, flags=re.S):
            yield "${{ }}", m.group(1)


def check_expressions(wf):
    """Fails on any expression in the workflow this script cannot
    substitute: an unknown context, a step id that does not exist, a job
    output that is not declared."""
    jobs = wf["jobs"]

    def validator(job):
        ids = {s["id"] for s in (job or {}).get("steps", []) if "id" in s}

        def lookup(name):
            parts = name.split(".")
            if name in KNOWN_GITHUB:
                return ""
            if (job and len(parts) == 4 and parts[0] == "steps"
                    and parts[2] == "outputs" and parts[1] in ids):
                return ""
            if (job and len(parts) == 4 and parts[0] == "needs"
                    and parts[2] == "outputs" and parts[1] in jobs
                    and parts[1] in _as_list(job.get("needs"))
                    and parts[3] in (jobs[parts[1]].get("outputs") or {})):
                return ""
            if (job and len(parts) == 3 and parts[0] == "needs"
                    and parts[2] == "result"
                    and parts[1] in _as_list(job.get("needs"))):
                return ""
            raise Failure(f"unknown expression context {name!r}: teach "
                          f"tests/ci_workflow.py what it means on a push")
        return lookup

    n = 0
    top = {k: v for k, v in wf.items() if k != "jobs"}
    for _, e in expressions(top):
        evaluate(e, validator(None), "success")
        n += 1
    for job in jobs.values():
        for _, e in expressions(job):
            evaluate(e, validator(job), "success")
            n += 1
    print(f"  ok: all {n} expressions in the workflow are known")


def condition_holds(cond, lookup, status):
    """An `if:` as GitHub reads it: none means success(), and one without
    a status function means success() && (...)."""
    if cond is None:
        return status == "success"
    cond = re.sub(r"^\s*\$\{\{(.*)\}\}\s*$", r"\1", str(cond), flags=re.S)
    ok = bool(evaluate(cond, lookup, status))
    if not re.search(r"\b(always|failure|cancelled|success)\(", cond):
        ok = ok and status == "success"
    return ok


def _as_list(v):
    return [] if v is None else [v] if isinstance(v, str) else list(v)


# ---- the simulated runner ----------------------------------------------------

class Job:
    """One job of one simulated push: a fresh workspace, its steps'
    outputs, GITHUB_PATH entries and status."""

    def __init__(self, sim, push, name, ctx, label=None):
        """label names the job's directories (default: the job's name), so
        one push can run a job twice (a re-run)."""
        self.sim, self.push, self.name, self.ctx = sim, push, name, ctx
        self.label = label or name
        self.spec = sim.wf["jobs"][name]
        self.workspace = os.path.join(sim.work, f"push{push}", self.label)
        self.runner = os.path.join(sim.work, f"push{push}",
                                   f"runner-{self.label}")
        os.makedirs(self.workspace)
        os.makedirs(self.runner)
        self.outputs = {}    # step id -> {name: value}
        self.path = []       # GITHUB_PATH entries, in order
        self.env_file = {}   # GITHUB_ENV assignments
        self.status = "success"
        self.nrun = 0        # run: blocks so far, to name their files
        self.pushes = []     # exit status of each `git push` of the last run
        self.sleeps = []     # arguments of each `sleep` of the last run
        self.steps = {}
        for s in self.spec["steps"]:
            key = s.get("name") or s.get("uses")
            if key in self.steps:
                raise Failure(f"job {name}: two steps named {key!r}")
            self.steps[key] = s

    def lookup(self, name):
        parts = name.split(".")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            step_outputs = self.outputs.get(parts[1])
            if step_outputs is None or parts[3] not in step_outputs:
                raise Failure(f"{name} is used but step {parts[1]!r} did not "
                              f"set it")
            return step_outputs[parts[3]]
        if name not in self.ctx:
            raise Failure(f"expression {name!r} has no value in this "
                          f"simulation")
        return self.ctx[name]

    def step(self, key):
        if key not in self.steps:
            raise Failure(f"job {self.name}: no step {key!r} in the workflow")
        return self.steps[key]

    def condition(self, key):
        """The step's `if:` (default success()), evaluated now."""
        return condition_holds(self.step(key).get("if"), self.lookup,
                               self.status)

    def default(self, step, key):
        """A step's shell or working-directory: its own, else the job's
        defaults.run, else the workflow's."""
        for scope in (step, (self.spec.get("defaults") or {}).get("run"),
                      (self.sim.wf.get("defaults") or {}).get("run")):
            if scope and scope.get(key) is not None:
                return scope[key]
        return None

    def shell(self, step):
        shell = self.default(step, "shell")
        if shell is None:
            return ["bash", "-e", "{0}"]
        if shell == "bash":
            return ["bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"]
        if shell == "sh":
            return ["sh", "-e", "{0}"]
        raise Failure(f"step {step.get('name')!r}: shell {shell!r} is not "
                      f"simulated")

    def run(self, key, expect=0, script_filter=None, at_push=None,
            timeout=None):
        """Runs the step's `run:` block as the runner would; returns its
        exit status after checking it is `expect`. Afterwards self.pushes
        holds the exit status of each `git push` the block ran and
        self.sleeps the arguments of each `sleep` (the shims log them).
        at_push: the block's first `git push` waits until at_push() has
        returned (the block must get to a push). timeout: seconds the block
        may take."""
        step = self.step(key)
        if "run" not in step:
            raise Failure(f"step {key!r} has no run: block")
        print(f"\n== {self.name}: {key}", flush=True)
        script = substitute(step["run"], self.lookup, self.status)
        if script_filter:
            script = script_filter(script)
        self.nrun += 1
        base = os.path.join(self.runner, f"step{self.nrun}")
        files = {k: f"{base}.{k}"
                 for k in ("sh", "output", "env", "path", "pushes", "sleeps",
                           "gate")}
        self.summary = os.path.join(self.runner, "step_summary.md")
        with open(files["sh"], "w") as f:
            f.write(script)
        for k in ("output", "env", "path", "pushes", "sleeps"):
            open(files[k], "w").close()

        env = dict(self.sim.base_env)
        env.update(self.sim.workflow_env())
        env.update(env_block(self.spec.get("env"), self.lookup))
        env.update(self.env_file)
        env.update(env_block(step.get("env"), self.lookup))
        env.update({
            "GITHUB_WORKSPACE": self.workspace,
            "GITHUB_OUTPUT": files["output"], "GITHUB_ENV": files["env"],
            "GITHUB_PATH": files["path"], "RUNNER_TEMP": self.runner,
            "GITHUB_STEP_SUMMARY": self.summary,
            "GITHUB_SHA": self.ctx["github.sha"],
            "GITHUB_REPOSITORY": self.ctx["github.repository"],
            "GITHUB_EVENT_NAME": self.ctx["github.event_name"],
            "GITHUB_REF": self.ctx["github.ref"], "GITHUB_ACTIONS": "true",
            "CI": "true", "CI_TEST_GIT_PUSHES": files["pushes"],
            "CI_TEST_SLEEPS": files["sleeps"],
        })
        if at_push:
            os.makedirs(files["gate"])
            env["CI_TEST_PUSH_GATE"] = files["gate"]
        env["PATH"] = os.pathsep.join(
            [self.sim.shims] + self.path[::-1] + [self.sim.base_env["PATH"]])
        cwd = os.path.join(self.workspace,
                           self.default(step, "working-directory") or ".")
        cmd = [a.replace("{0}", files["sh"]) for a in self.shell(step)]
        if at_push:
            rc = run_paused_at_push(cmd, cwd, env, files["gate"], at_push,
                                    f"{self.label}: {key!r}")
        else:
            try:
                rc = subprocess.run(cmd, cwd=cwd, env=env,
                                    timeout=timeout).returncode
            except subprocess.TimeoutExpired as e:
                raise Failure(f"{self.label}: {key!r} did not end in "
                              f"{timeout} s") from e
        print(f"-- {self.label}: {key!r}: exit status {rc}", flush=True)
        with open(files["pushes"]) as f:
            self.pushes = [int(line) for line in f if line.strip()]
        with open(files["sleeps"]) as f:
            self.sleeps = [line.strip() for line in f if line.strip()]

        outputs = parse_kv_file(files["output"])
        if "id" in step:
            self.outputs[step["id"]] = outputs
        self.env_file.update(parse_kv_file(files["env"]))
        with open(files["path"]) as f:
            self.path += [p.strip() for p in f if p.strip()]
        if expect is not None:
            check(rc == expect, f"{self.label}: {key!r} exits {expect}", rc)
        if rc != 0 and not step.get("continue-on-error"):
            self.status = "failure"
        return rc

    def header(self, key, note):
        self.step(key)
        print(f"\n== {self.name}: {key}\n-- {note}", flush=True)

    def skip(self, key, why):
        self.header(key, f"not run: {why}")

    def ws(self, *p):
        return os.path.join(self.workspace, *p)


def run_paused_at_push(cmd, cwd, env, gate, at_push, what):
    """Runs cmd until its first `git push` waits at the gate directory (the
    git shim creates gate/waiting), calls at_push(), then lets the push go
    (gate/go) and waits for cmd. Fails if cmd ends without pushing."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env)
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(os.path.join(gate, "waiting")):
            if proc.poll() is not None:
                raise Failure(f"{what} ended (exit status {proc.returncode}) "
                              f"without getting to `git push`")
            if time.monotonic() > deadline:
                raise Failure(f"{what} did not get to `git push` in 120 s")
            time.sleep(0.02)
        print(f"-- {what} waits at its first `git push`", flush=True)
        at_push()
        print(f"\n-- {what}: its first `git push` goes on", flush=True)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        open(os.path.join(gate, "go"), "w").close()
    return proc.wait()


def env_block(env, lookup):
    """An env: mapping with its expressions substituted."""
    return {k: substitute("" if v is None else str(v), lookup)
            for k, v in (env or {}).items()}


def parse_kv_file(path):
    """GITHUB_OUTPUT / GITHUB_ENV: name=value lines and name<<EOF blocks."""
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


def git(*args, cwd=None, capture=False):
    r = subprocess.run(["git", *args], cwd=cwd, check=True, text=True,
                       stdout=subprocess.PIPE if capture else None)
    return r.stdout.strip() if capture else None


class Simulation:
    REPOSITORY = "owner/repo"
    TOKEN = "x"

    def __init__(self, binary, src, work, workflow):
        self.binary = os.path.abspath(binary)
        self.src = os.path.abspath(src)
        self.work = os.path.abspath(work)
        with open(workflow) as f:
            self.wf = yaml.safe_load(f)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.home = self.mkdir("home")
        self.shims = self.mkdir("shims")
        self.artifacts = {}  # push -> its artifact directory
        self.site_cache = {}  # archive remote -> the newest saved site
        self.site_cache_all = []
        # No network: only file:// remotes, and nothing from the caller's
        # git configuration.
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
        if "PROTOCOL" not in (self.wf.get("env") or {}):
            raise Failure("the workflow's env: has no PROTOCOL any more")
        self.protocol = str(self.wf["env"]["PROTOCOL"])
        self.write_shims()

    def mkdir(self, *p):
        d = os.path.join(self.work, *p)
        os.makedirs(d, exist_ok=True)
        return d

    def workflow_env(self):
        """The workflow's top-level env:."""
        return env_block(self.wf.get("env"), _unknown)

    def write_shims(self):
        real_date = shutil.which("date")
        with open(os.path.join(self.shims, "date"), "w") as f:
            # The date of the simulated push, whatever the clock says.
            f.write("#!/bin/sh\n"
                    f'exec {real_date} -d "$CI_TEST_DATE" "$@"\n')
        # git: logs the exit status of every `git push` to
        # $CI_TEST_GIT_PUSHES; with $CI_TEST_PUSH_GATE set, the first push
        # waits until the test lets it go (see run_paused_at_push).
        with open(os.path.join(self.shims, "git"), "w") as f:
            f.write(f"""#!/bin/sh
real={shutil.which("git")}
sub= skip=
for a in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case $a in
    -C|-c|--git-dir|--work-tree|--namespace|--exec-path) skip=1 ;;
    -*) ;;
    *) sub=$a; break ;;
  esac
done
[ "$sub" = push ] || exec "$real" "$@"
g=$CI_TEST_PUSH_GATE
if [ -n "$g" ] && [ ! -e "$g/waiting" ]; then
  : >"$g/waiting"
  while [ ! -e "$g/go" ]; do {shutil.which("sleep")} 0.02; done
fi
rc=0
"$real" "$@" || rc=$?
[ -z "$CI_TEST_GIT_PUSHES" ] || echo "$rc" >>"$CI_TEST_GIT_PUSHES"
exit "$rc"
""")
        # sleep: logs its arguments to $CI_TEST_SLEEPS and returns at once
        # (the simulation checks the waits between push attempts, without
        # waiting).
        with open(os.path.join(self.shims, "sleep"), "w") as f:
            f.write('#!/bin/sh\n'
                    '[ -z "$CI_TEST_SLEEPS" ] ||'
                    ' echo "$*" >>"$CI_TEST_SLEEPS"\n')
        # gh: a stand-in for `gh api` on one pull request's comments, kept
        # in $CI_TEST_GH_STORE (a JSON list); --jq goes through the real jq.
        with open(os.path.join(self.shims, "gh"), "w") as f:
            f.write(f"""#!{sys.executable}
import json, os, re, subprocess, sys
a = sys.argv[1:]
assert a[0] == "api", a
a = a[1:]
method, jq, fields, path = "GET", None, {{}}, None
while a:
    x = a.pop(0)
    if x == "--paginate":
        continue
    if x == "--method":
        method = a.pop(0)
    elif x == "--jq":
        jq = a.pop(0)
    elif x == "-F":
        k, v = a.pop(0).split("=", 1)
        fields[k] = open(v[1:]).read() if v.startswith("@") else v
    else:
        path = x
store = os.environ["CI_TEST_GH_STORE"]
comments = json.load(open(store))
m = re.fullmatch(r"repos/[^/]+/[^/]+/issues/(\\d+)/comments", path or "")
e = re.fullmatch(r"repos/[^/]+/[^/]+/issues/comments/(\\d+)", path or "")
if method == "GET" and m:
    out = json.dumps(comments)
elif method == "POST" and m:
    c = {{"id": 100 + len(comments), "body": fields["body"],
         "user": {{"login": "github-actions[bot]", "type": "Bot"}}}}
    comments.append(c)
    out = json.dumps(c)
elif method == "PATCH" and e:
    c = [c for c in comments if c["id"] == int(e.group(1))][0]
    c["body"], c["edited"] = fields["body"], True
    out = json.dumps(c)
else:
    sys.exit("gh shim: unexpected call %r" % sys.argv)
json.dump(comments, open(store, "w"))
if jq:
    out = subprocess.run(["jq", "-r", jq], input=out, text=True,
                         capture_output=True, check=True).stdout
sys.stdout.write(out + ("" if out.endswith("\\n") else "\\n"))
""")
        for s in ("date", "git", "sleep", "gh"):
            os.chmod(os.path.join(self.shims, s), 0o755)

    # -- the local stand-ins for GitHub --------------------------------------

    def make_project(self):
        """The repository the workflow lives in: six commits on main of a
        benchmark library, each about four times slower than the last."""
        proj = self.mkdir("project")
        git("init", "--quiet", cwd=proj)
        with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
            f.write(PROJECT_CMAKE)
        shas = []
        for i in range(6):
            with open(os.path.join(proj, "bench.c"), "w") as f:
                f.write(f"#define EXTRA_PASSES {4 ** i - 1}\n" + PROJECT_BENCH)
            git("add", "CMakeLists.txt", "bench.c", cwd=proj)
            git("commit", "--quiet", "-m", f"change {i}", cwd=proj)
            shas.append(git("rev-parse", "HEAD", cwd=proj, capture=True))
        return proj, shas

    def upload(self, job, key):
        """actions/upload-artifact@v4: the paths' least common ancestor is
        the artifact's root."""
        w = job.step(key)["with"]
        job.header(key, f"simulated: copied to the artifact {w['name']}")
        paths = [p for p in str(w["path"]).split("\n") if p.strip()]
        full = [job.ws(p.strip()) for p in paths]
        for p in full:
            check(os.path.exists(p), f"{key}: {os.path.relpath(p, job.workspace)}"
                  " exists")
        root = os.path.commonpath([p if os.path.isdir(p) else os.path.dirname(p)
                                   for p in full])
        dest = os.path.join(self.artifacts[job.push], w["name"])
        for p in full:
            target = os.path.join(dest, os.path.relpath(p, root))
            if os.path.isdir(p):
                shutil.copytree(p, target, dirs_exist_ok=True)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(p, target)

    def download(self, job, key):
        w = job.step(key)["with"]
        job.header(key, f"simulated: the artifact {w['name']} copied to "
                   f"{w.get('path', '.')}")
        src = os.path.join(self.artifacts[job.push], w["name"])
        check(os.path.isdir(src), f"{key}: artifact {w['name']} was uploaded")
        shutil.copytree(src, job.ws(w.get("path", ".")), dirs_exist_ok=True)

    def cache_skip(self, job, key):
        """actions/cache of the benchsite build: not run (the build step is
        simulated too); its key must name the pinned commit."""
        w = job.step(key)["with"]
        job.skip(key, "actions/cache")
        check("BENCHSITE_COMMIT" in str(w.get("key")),
              f"{key!r}: the cache key is the benchsite commit", w.get("key"))

    def build_benchsite(self, job, key):
        """The effect of "Build benchsite": the binary's directory on PATH,
        and the installed headers (benchsite/harness.h) in the prefix."""
        job.skip(key, "the benchsite under test goes on GITHUB_PATH instead")
        check("GITHUB_PATH" in job.step(key)["run"],
              f"{key!r} puts benchsite on GITHUB_PATH")
        commit = (self.wf.get("env") or {}).get("BENCHSITE_COMMIT", "")
        check(re.fullmatch(r"[0-9a-f]{40}", str(commit)) is not None,
              "benchsite is pinned by a full commit id", commit)
        check('checkout --quiet --detach "$BENCHSITE_COMMIT"'
              in job.step(key)["run"], f"{key!r} builds that commit")
        job.path.append(os.path.dirname(self.binary))
        prefix = job.ws(str(self.wf["env"]["BENCHSITE_PREFIX"]))
        if not os.path.exists(os.path.join(prefix, "include")):
            os.makedirs(prefix, exist_ok=True)
            os.symlink(os.path.join(self.src, "include"),
                       os.path.join(prefix, "include"))

    # -- the measure job -------------------------------------------------------

    def push_context(self, sha, before=""):
        """The github context of a push of sha to main; before is the tip
        the push replaced."""
        env = self.wf.get("env") or {}
        return {"github.event_name": "push", "github.sha": sha,
                "github.token": self.TOKEN,
                "github.repository": self.REPOSITORY,
                "github.base_ref": "", "github.ref": "refs/heads/main",
                "github.event.pull_request.number": "",
                "github.event.before": before, "runner.os": "Linux",
                "env.BENCHSITE_PREFIX": env.get("BENCHSITE_PREFIX", ""),
                "env.BENCHSITE_COMMIT": env.get("BENCHSITE_COMMIT", "")}

    def measure(self, push, proj, sha, date, before, noise=False):
        """noise: the noise branch exists, so the gate must use it."""
        ctx = self.push_context(sha, before)
        job = Job(self, push, "measure", ctx)
        self.base_env["CI_TEST_DATE"] = date
        self.base_env["SOURCE_DATE_EPOCH"] = str(int(
            datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()))
        handled = set()

        def do(key, fn):
            handled.add(key)
            fn()

        def checkout():
            key = "Check out the head, with history for the merge base"
            job.header(key, f"simulated: a local clone at {sha[:12]}")
            head = job.ws(job.step(key)["with"]["path"])
            git("clone", "--quiet", proj, head)
            git("checkout", "--quiet", "-B", "main", sha, cwd=head)

        def build_trees():
            job.run("Build the baseline and the head")
            for tree in ("base", "head"):
                check(os.path.isfile(job.ws(f"build-{tree}", "libbench.so")),
                      f"build-{tree}/libbench.so built")

        def measure_log():
            job.run("Measure both builds, interleaved")
            with open(job.ws("out", "log.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            check({r["impl"] for r in rows} == {"base", "head"},
                  "the log holds impls base and head")
            blocks = {r["block"] for r in rows if r["phase"] == "confirm"}
            want = 20 if self.protocol == "RegressionGate" else 10
            check(len(blocks) == want, f"the log has {want} blocks",
                  len(blocks))

        def lint():
            # benchsite's own reading of the manifest comes first; then an
            # independent RFC 4180 reader must see the exact values.
            job.run("Lint the log")
            m = read_manifest(job.ws("out", "env.csv"))
            machine = machine_string()
            check(m.get("machine") == machine,
                  f"manifest machine is {machine!r}", m.get("machine"))
            check(m.get("commit") == sha, "manifest commit is the pushed sha")
            check(m.get("date") == date, f"manifest date is {date}")
            check(m.get("protocol") == self.protocol, "manifest protocol")
            for k in ("target", "profile", "dtype", "frequency_policy",
                      "baseline", "candidate", "baseline_commit", "kernel"):
                check(m.get(k), f"manifest has {k}")
            check(m.get("baseline_commit") == before,
                  "manifest baseline_commit is the tip before the push",
                  m.get("baseline_commit"))

        def base():
            job.run("Find the baseline commit")
            out = job.outputs["base"]
            check(out.get("head") == sha, "base: head output is the pushed sha")
            parent = git("rev-parse", f"{sha}^", cwd=proj, capture=True)
            what = ("the parent" if parent == before else
                    "github.event.before (a push of several commits), not "
                    "the parent")
            check(out.get("sha") == before, f"base: sha output is {what}",
                  out.get("sha"))
            check(git("rev-parse", "HEAD", cwd=job.ws("base"), capture=True)
                  == before, f"base: the baseline worktree is {what}")

        def fetch_noise():
            job.run("Fetch the noise floor")
            have = os.path.exists(job.ws("out", "noise.json"))
            check(have == noise, "the noise file is fetched" if noise else
                  "no noise file yet", have)

        def gate():
            job.run("Gate")
            with open(job.summary, encoding="utf-8") as f:
                summary = f.read()
            check(summary.startswith("<!-- benchsite:compare -->\n")
                  and "significant regression" in summary,
                  "Gate: the comment is the job summary")
            with open(job.ws("out", "comment.md"), encoding="utf-8") as f:
                comment = f.read()
            check(("**Noise floor**" in comment) == noise,
                  "Gate: the comment shows the noise floor" if noise else
                  "Gate: no noise floor without a noise file")

            check(job.outputs["gate"].get("status") == "1",
                  "Gate: status=1 in GITHUB_OUTPUT (a significant regression)")
            for f in ("comment.md", "compare.json"):
                check(os.path.getsize(job.ws("out", f)) > 0, f"out/{f} written")
            with open(job.ws("out", "compare.json")) as f:
                cmp = json.load(f)
            check(cmp["schema"].startswith("benchsite.compare"),
                  "compare.json parses and is a benchsite.compare document")
            check(cmp["regressions"] == 1, "compare.json: 1 regression")
            machine = machine_string()
            check(cmp["environment"].get("machine") == machine,
                  "compare.json: the machine string survived intact")
            check(not [w for w in cmp.get("warnings", []) if "manifest" in w],
                  "compare.json: no manifest warnings")

        def report():
            job.run("Report")
            check(os.path.isfile(job.ws("report", "index.html")),
                  "report/index.html exists")

        def comment():
            key = "Comment on the pull request"
            job.skip(key, "if: is false on a push")
            check(not job.condition(key), "its if: is false on a push")

        def fail_step():
            key = "Fail on a significant regression"
            check(job.condition(key), f"{key!r}: its if: is true for status 1")
            job.run(key, expect=1)

        plan = [
            ("Check out the head, with history for the merge base", checkout),
            ("Find the baseline commit", base),
            ("Install build dependencies",
             lambda: job.skip("Install build dependencies", "apt-get")),
            ("Restore the benchsite build",
             lambda: self.cache_skip(job, "Restore the benchsite build")),
            ("Build benchsite",
             lambda: self.build_benchsite(job, "Build benchsite")),
            ("Build the baseline and the head", build_trees),
            ("Write the environment manifest",
             lambda: job.run("Write the environment manifest")),
            ("Measure both builds, interleaved", measure_log),
            ("Lint the log", lint),
            ("Fetch the noise floor", fetch_noise),
            ("Gate", gate),
            ("Report", report),
            ("Upload the report",
             lambda: self.upload(job, "Upload the report")),
            ("Upload the run", lambda: self.upload(job, "Upload the run")),
            ("Comment on the pull request", comment),
            ("Fail on a significant regression", fail_step),
        ]
        self.run_plan(job, plan, handled, do)
        check(job.status == "failure", "measure fails (the regression)")
        self.last_measure = job
        # The job's outputs: mapping, evaluated at its end.
        return {name: substitute(v, job.lookup)
                for name, v in (job.spec.get("outputs") or {}).items()}

    # -- the archive branch in the local bare repository ----------------------

    BRANCH = "benchsite-archive"

    def tip(self, remote):
        """The archive branch's commit, or None before the first push."""
        r = subprocess.run(["git", "rev-parse", "--verify", "--quiet",
                            f"refs/heads/{self.BRANCH}"], cwd=remote,
                           text=True, stdout=subprocess.PIPE)
        return r.stdout.strip() if r.returncode == 0 else None

    def runs_at(self, remote, commit):
        """The run directories in runs/ at commit (none before the first)."""
        if commit is None:
            return []
        return git("ls-tree", "--name-only", f"{commit}:runs", cwd=remote,
                   capture=True).split("\n")

    def check_branch(self, remote, nruns):
        """The branch as a whole: nruns runs, one commit each and no merge,
        no lock or temporary file, and `benchsite archive verify` passes on
        a clone. Returns the runs."""
        tip = self.tip(remote)
        runs = self.runs_at(remote, tip)
        check(len(runs) == nruns, f"the archive branch holds {nruns} runs",
              runs)
        commits = int(git("rev-list", "--count", tip, cwd=remote,
                          capture=True))
        merges = int(git("rev-list", "--merges", "--count", tip, cwd=remote,
                         capture=True))
        check(commits == nruns and merges == 0,
              f"the branch is {nruns} commits, one per run, no merge",
              (commits, merges))
        files = git("ls-tree", "-r", "--name-only", tip, cwd=remote,
                    capture=True).split("\n")
        stray = [f for f in files if f.split("/")[-1].startswith(".")]
        check(not stray, "no lock or temporary file on the branch", stray)
        self.nchecks = getattr(self, "nchecks", 0) + 1
        clone = os.path.join(self.work, f"check{self.nchecks}")
        git("clone", "--quiet", "--branch", self.BRANCH, "file://" + remote,
            clone)
        rc = subprocess.run([self.binary, "archive", "verify", "--archive",
                             clone]).returncode
        check(rc == 0,
              f"benchsite archive verify passes with the {nruns} runs")
        return runs

    def local_remote(self, key):
        """A script filter: the step's GitHub remote becomes the bare
        repository."""
        url = (f"https://x-access-token:{self.TOKEN}@github.com/"
               f"{self.REPOSITORY}")

        def filt(script, remote):
            if url not in script:
                raise Failure(f"{key!r} no longer uses {url}: update "
                              f"tests/ci_workflow.py")
            return script.replace(url, "file://" + remote)
        return filt

    # -- the archive and pages jobs -------------------------------------------

    def archive(self, push, remote, expect, label=None, during_push=None):
        """The archive job of push (its measure job ran). expect is what
        "Add the run to the archive" must do:
        push     push once, accepted: the branch grows by this run;
        retry    during_push() runs while the step waits at its first
                 push, and must push to the branch itself (another archive
                 job winning the race); that first push is then rejected
                 and the next attempt, on the new tip, is accepted;
        noop     the run is on the branch already: succeed, push nothing;
        refused  the remote refuses every push: a bounded number of
                 attempts, a short wait between two, then fail;
        damaged  the branch holds a damaged run: fail, push nothing."""
        sha, outputs = self.measured[push]
        spec = self.wf["jobs"]["archive"]
        ctx = self.push_context(sha)
        ctx.update({f"needs.measure.outputs.{k}": v
                    for k, v in outputs.items()})
        check(condition_holds(spec.get("if"),
                              lambda n: ctx[n] if n in ctx else _unknown(n),
                              "failure"),
              "archive: the job's if: is true after a failed gate (status 1)")
        job = Job(self, push, "archive", ctx, label)
        handled = set()

        def do(key, fn):
            handled.add(key)
            fn()

        def add():
            key = "Add the run to the archive"
            before = self.tip(remote)
            raced = []

            def race():
                during_push()
                raced.append(self.tip(remote))
            fails = expect in ("damaged", "refused")
            rc = job.run(key, expect=None if fails else 0,
                         script_filter=lambda s: self.local_remote(key)(
                             s, remote),
                         at_push=race if expect == "retry" else None,
                         timeout=120)
            after = self.tip(remote)
            if expect in ("retry", "refused"):
                waits = [float(w) if re.fullmatch(r"\d+(\.\d+)?", w) else -1
                         for w in job.sleeps]
                check(len(waits) >= len(job.pushes) - 1
                      and all(0 < w <= 60 for w in waits),
                      "a short wait (sleep, at most 60 s) before each retry",
                      job.sleeps)
            if expect == "refused":
                check(rc != 0, f"{key!r} fails", rc)
                check(2 <= len(job.pushes) <= 10
                      and all(p != 0 for p in job.pushes),
                      "after a bounded number of attempts, all refused",
                      job.pushes)
                check(after == before, "the archive branch did not change")
                return
            if expect == "damaged":
                check(rc != 0, f"{key!r} stops on the damaged archive", rc)
                check(job.pushes == [], "it tried no push", job.pushes)
                check(after == before, "the archive branch did not change")
                return
            if expect == "noop":
                check(job.pushes == [], "nothing to push: the run is there "
                      "already", job.pushes)
                check(after == before, "the archive branch did not change")
                base = before
            elif expect == "push":
                check(job.pushes == [0], "one push, accepted", job.pushes)
                base = before
            else:
                check(raced[0] != before, "the other archive job pushed "
                      "while this one waited")
                check(len(job.pushes) == 2 and job.pushes[0] != 0
                      and job.pushes[1] == 0, "the first push was rejected, "
                      "the retry's accepted", job.pushes)
                base = raced[0]
            if expect != "noop":
                parent = git("rev-parse", f"{after}^", cwd=remote,
                             capture=True) if base else None
                check(after != before and parent == base,
                      "one new commit, on top of the tip it was pushed to"
                      + (" (the other job's)" if expect == "retry" else ""))
            runs = self.runs_at(remote, after)
            mine = [r for r in runs if f"-{sha[:12]}-" in r]
            check(len(mine) == 1, f"the branch holds the run of {sha[:12]}",
                  runs)
            check(set(runs) == set(self.runs_at(remote, base)) | set(mine),
                  "and every run it held before", runs)
            files = git("ls-tree", "-r", "--name-only", after, cwd=remote,
                        capture=True).split("\n")
            stray = [f for f in files if f.split("/")[-1].startswith(".")]
            check(not stray, "no lock or temporary files committed", stray)

        plan = [
            ("Download the run", lambda: self.download(job, "Download the run")),
            ("Install dependencies",
             lambda: job.skip("Install dependencies", "apt-get")),
            ("Restore the benchsite build",
             lambda: self.cache_skip(job, "Restore the benchsite build")),
            ("Build benchsite",
             lambda: self.build_benchsite(job, "Build benchsite")),
            ("Add the run to the archive", add),
        ]
        self.run_plan(job, plan, handled, do)
        want = "failure" if expect in ("damaged", "refused") else "success"
        check(job.status == want, f"{job.label} of push {push}: {want}")
        return job

    def pages(self, push, remote):
        """The pages job of push, after its archive job succeeded: the site
        must list every run on the branch tip."""
        sha, _ = self.measured[push]
        ctx = self.push_context(sha)
        ctx["needs.archive.result"] = "success"
        job = Job(self, push, "pages", ctx)
        handled = set()

        def do(key, fn):
            handled.add(key)
            fn()

        def restore_site():
            key = "Restore the previous site"
            w = job.step(key)["with"]
            check("github.sha" in str(w.get("key")) and w.get("restore-keys"),
                  f"{key!r}: saved per commit, restored from the newest")
            prev = self.site_cache.get(remote)
            job.header(key, "simulated: the previous pages job's site"
                       if prev else "simulated: no previous site (a miss)")
            if prev:
                shutil.copytree(prev, job.ws(w["path"]), symlinks=True)
                check(os.path.exists(job.ws(w["path"], ".benchsite-site")),
                      "the restored site holds its state file")

        def checkout():
            key = "Check out the archive branch"
            job.run(key, script_filter=lambda s: self.local_remote(key)(
                s, remote))

        def site():
            job.run("Build the site")
            runs = self.runs_at(remote, self.tip(remote))
            with open(job.ws("public", "index.html")) as f:
                index = f.read()
            for run in runs:
                check(run in index, f"public/index.html lists {run}")

        def pages_artifact():
            key = "actions/upload-pages-artifact@v3"
            w = job.step(key)["with"]
            job.skip(key, "GitHub Pages")
            check(os.path.isdir(job.ws(w["path"])),
                  f"Pages artifact path {w['path']} exists")

        plan = [
            ("Restore the previous site", restore_site),
            ("Check out the archive branch", checkout),
            ("Install dependencies",
             lambda: job.skip("Install dependencies", "apt-get")),
            ("Restore the benchsite build",
             lambda: self.cache_skip(job, "Restore the benchsite build")),
            ("Build benchsite",
             lambda: self.build_benchsite(job, "Build benchsite")),
            ("Build the site", site),
            ("actions/configure-pages@v5",
             lambda: job.skip("actions/configure-pages@v5", "GitHub Pages")),
            ("actions/upload-pages-artifact@v3", pages_artifact),
            ("actions/deploy-pages@v4",
             lambda: job.skip("actions/deploy-pages@v4", "GitHub Pages")),
        ]
        self.run_plan(job, plan, handled, do)
        check(job.status == "success", f"pages of push {push} succeeds")
        # actions/cache's post step: this site is what the next restores.
        saved = os.path.join(self.work, f"site-cache-{len(self.site_cache_all)}")
        shutil.copytree(job.ws("public"), saved, symlinks=True)
        self.site_cache_all.append(saved)
        self.site_cache[remote] = saved
        return job

    # -- the on-demand A/A job ---------------------------------------------------

    def noise(self, proj, sha):
        """The noise job of a workflow_dispatch at sha, for real: builds
        the project's library, measures it under two ids (40 runs) and
        publishes noise.json on the noise branch of the project
        repository."""
        ctx = self.push_context(sha)
        ctx["github.event_name"] = "workflow_dispatch"
        check(condition_holds(self.wf["jobs"]["noise"].get("if"),
                              lambda n: ctx[n], "success"),
              "noise: its if: is true on workflow_dispatch")
        job = Job(self, 0, "noise", ctx)
        handled = set()

        def do(key, fn):
            handled.add(key)
            fn()

        def checkout():
            key = "Check out the head"
            job.header(key, f"simulated: a local clone at {sha[:12]}")
            head = job.ws(job.step(key)["with"]["path"])
            git("clone", "--quiet", proj, head)
            git("checkout", "--quiet", "-B", "main", sha, cwd=head)

        def measure():
            key = "Measure A against A, 40 runs"
            check("--runs 40" in job.step(key)["run"],
                  f"{key!r}: benchsite run --runs 40")
            job.run(key)
            with open(job.ws("out", "aa.csv"), newline="") as f:
                runs = {r["run"] for r in csv.DictReader(f)}
            check(len(runs) == 40, "the A/A log holds 40 runs", len(runs))
            m = read_manifest(job.ws("out", "aa-env.csv"))
            check(m.get("aa_a") == "A" and m.get("aa_b") == "B",
                  "the A/A manifest names the pair", m)

        def floor():
            job.run("The noise floor")
            with open(job.ws("out", "noise.json")) as f:
                check(json.load(f)["schema"].startswith("benchsite.noise"),
                      "out/noise.json is a benchsite.noise document")
            with open(job.summary, encoding="utf-8") as f:
                check(f.read().startswith("<!-- benchsite:noise -->"),
                      "the noise report is the job summary")

        def publish():
            key = "Publish the noise file"
            job.run(key, script_filter=lambda s: self.local_remote(key)(
                s, proj))
            shown = git("show", "benchsite-noise:noise.json", cwd=proj,
                        capture=True)
            check(json.loads(shown)["schema"].startswith("benchsite.noise"),
                  "the noise branch holds noise.json")

        plan = [
            ("Check out the head", checkout),
            ("Install build dependencies",
             lambda: job.skip("Install build dependencies", "apt-get")),
            ("Restore the benchsite build",
             lambda: self.cache_skip(job, "Restore the benchsite build")),
            ("Build benchsite",
             lambda: self.build_benchsite(job, "Build benchsite")),
            ("Build the benchmarks",
             lambda: job.run("Build the benchmarks")),
            ("Measure A against A, 40 runs", measure),
            ("The noise floor", floor),
            ("Publish the noise file", publish),
        ]
        self.run_plan(job, plan, handled, do)
        check(job.status == "success", "the noise job succeeds")

    # -- the pull-request comment ------------------------------------------------

    def comment(self, measured_job):
        """The comment step of a pull request, twice, against a gh shim
        holding the pull request's comments: the first run creates
        benchsite's comment, the second edits it; the others stay."""
        key = "Comment on the pull request"
        job = measured_job
        store = os.path.join(self.work, "pr-comments.json")
        human = {"id": 1, "user": {"login": "someone", "type": "User"},
                 "body": "<!-- benchsite:compare --> quoted by a human"}
        other = {"id": 2, "user": {"login": "github-actions[bot]",
                                   "type": "Bot"},
                 "body": "<!-- other-tool -->\ncoverage 90 %"}
        with open(store, "w") as f:
            json.dump([human, other], f)
        saved = dict(job.ctx)
        job.ctx.update({"github.event_name": "pull_request",
                        "github.event.pull_request.number": "7"})
        status = job.status
        job.status = "success"  # the step comes before the failing one
        check(job.condition(key), f"{key!r}: its if: holds on a pull request")
        self.base_env["CI_TEST_GH_STORE"] = store
        try:
            for n in (1, 2):
                job.status = "success"
                job.run(key)
                with open(store) as f:
                    comments = json.load(f)
                mine = [c for c in comments
                        if c["body"].startswith("<!-- benchsite:compare -->\n")]
                check(len(comments) == 3 and len(mine) == 1,
                      f"comment run {n}: one benchsite comment beside the "
                      "other two", [c["id"] for c in comments])
                check(comments[0] == human and comments[1] == other,
                      f"comment run {n}: the other comments are untouched")
                if n == 1:
                    first = mine[0]["id"]
                else:
                    check(mine[0]["id"] == first and mine[0].get("edited"),
                          "comment run 2 edits the comment run 1 made")
        finally:
            job.ctx.clear()
            job.ctx.update(saved)
            job.status = status
            del self.base_env["CI_TEST_GH_STORE"]

    # -- what the workflow declares -------------------------------------------

    def check_structure(self):
        """Jobs, needs, concurrency, permissions and the jobs' if:s."""
        jobs = self.wf["jobs"]
        check(set(jobs) == {"measure", "archive", "pages", "noise"},
              "the jobs are measure, archive, pages and noise", sorted(jobs))
        check(_as_list(jobs["archive"].get("needs")) == ["measure"],
              "archive needs measure")
        check(_as_list(jobs["pages"].get("needs")) == ["archive"],
              "pages needs archive")

        # archive: no group (or one per commit), so no run ever waits in a
        # group and gets replaced. pages: one group, never cut off.
        conc = jobs["archive"].get("concurrency")
        group = conc.get("group") if isinstance(conc, dict) else conc
        check(conc is None or "github.sha" in str(group),
              "archive: no concurrency group (or one per commit)", conc)
        # measure: a group per pull request whose newer push cancels the
        # older measurement; on main a group per commit, never cancelled.
        conc = jobs["measure"].get("concurrency") or {}
        check(isinstance(conc, dict), "measure: a concurrency mapping", conc)
        pr = self.push_context("a" * 40)
        pr.update({"github.event_name": "pull_request",
                   "github.event.pull_request.number": "42"})
        push = self.push_context("b" * 40)
        push2 = self.push_context("c" * 40)

        def conc_of(ctx):
            lk = lambda n: ctx[n] if n in ctx else _unknown(n)
            return (substitute(str(conc.get("group")), lk),
                    substitute(str(conc.get("cancel-in-progress")), lk))
        g_pr, c_pr = conc_of(pr)
        g_push, c_push = conc_of(push)
        check("42" in g_pr and "a" * 40 not in g_pr and c_pr == "True",
              "measure: a pull request's group is its number, "
              "cancel-in-progress", (g_pr, c_pr))
        check(g_push != conc_of(push2)[0] and c_push == "False",
              "measure: on main a group per commit, never cancelled",
              (g_push, c_push))
        dispatch = self.push_context("d" * 40)
        dispatch["github.event_name"] = "workflow_dispatch"
        check(not condition_holds(jobs["measure"].get("if"),
                                  lambda n: dispatch[n], "success"),
              "measure does not run on workflow_dispatch")
        check(condition_holds(jobs["measure"].get("if"),
                              lambda n: push[n], "success")
              and condition_holds(jobs["measure"].get("if"),
                                  lambda n: pr[n], "success"),
              "measure runs on pushes and pull requests")
        check(condition_holds(jobs["noise"].get("if"),
                              lambda n: dispatch[n], "success")
              and not condition_holds(jobs["noise"].get("if"),
                                      lambda n: push[n], "success")
              and not condition_holds(jobs["noise"].get("if"),
                                      lambda n: pr[n], "success"),
              "noise runs on workflow_dispatch only")
        on = self.wf.get("on", self.wf.get(True)) or {}
        check("workflow_dispatch" in on, "the workflow can be run by hand")
        check(self.wf.get("concurrency") is None,
              "no workflow-level concurrency group")
        conc = jobs["pages"].get("concurrency")
        group = conc.get("group") if isinstance(conc, dict) else conc
        check(isinstance(group, str) and group.strip()
              and "github.sha" not in group,
              "pages: one concurrency group (one deployment at a time)", conc)
        check(not isinstance(conc, dict)
              or conc.get("cancel-in-progress") in (None, False),
              "pages: cancel-in-progress is false", conc)

        # Permissions: the least each job needs.
        check(self.wf.get("permissions") == {"contents": "read"},
              "workflow permissions: contents: read",
              self.wf.get("permissions"))
        perms = jobs["archive"].get("permissions")
        check(perms == {"contents": "write"},
              "archive permissions: contents: write only", perms)
        perms = dict(jobs["pages"].get("permissions") or {})
        check(perms.pop("pages", None) == "write"
              and perms.pop("id-token", None) == "write"
              and perms.pop("contents", "none") in ("read", "none")
              and not perms,
              "pages permissions: pages and id-token write, contents read "
              "at most", jobs["pages"].get("permissions"))
        perms = jobs["noise"].get("permissions")
        check(perms == {"contents": "write"},
              "noise permissions: contents: write only (its branch)", perms)
        perms = jobs["measure"].get("permissions") or {}
        check(not {"pages", "id-token"} & set(perms)
              and perms.get("contents") != "write",
              "measure permissions: no contents, pages or id-token write",
              perms)

        # The jobs' if:s, as GitHub evaluates them. A failed gate fails
        # measure, and a failed job anywhere up the chain makes success()
        # false: both if:s must hold nonetheless.
        def cond(job, ctx, status):
            return condition_holds(
                jobs[job].get("if"),
                lambda n: ctx[n] if n in ctx else _unknown(n), status)

        def archive_ctx(event, gate):
            ctx = self.push_context("0" * 40)
            ctx["github.event_name"] = event
            ctx["needs.measure.outputs.gate"] = gate
            return ctx
        check(cond("archive", archive_ctx("push", "1"), "failure"),
              "archive runs on a push whose gate failed (status 1)")
        check(cond("archive", archive_ctx("push", "0"), "success"),
              "archive runs on a push whose gate passed (status 0)")
        check(not cond("archive", archive_ctx("push", ""), "failure"),
              "archive does not run when measure never got to the gate")
        check(not cond("archive", archive_ctx("push", "2"), "failure"),
              "archive does not run when the gate could not decide (2)")
        check(not cond("archive", archive_ctx("pull_request", "1"),
                       "failure"),
              "archive does not run on a pull request")
        for result, status, want in (("success", "failure", True),
                                     ("success", "success", True),
                                     ("failure", "failure", False),
                                     ("skipped", "failure", False)):
            ctx = self.push_context("0" * 40)
            ctx["needs.archive.result"] = result
            check(cond("pages", ctx, status) == want,
                  f"pages {'runs' if want else 'does not run'} when archive "
                  f"is {result} (up the chain: {status})")

    def run_plan(self, job, plan, handled, do):
        """Runs the plan in the workflow's step order; a step the plan
        does not know (a new or renamed step) fails the test."""
        known = dict(plan)
        for key in job.steps:
            if key not in known:
                raise Failure(f"job {job.name}: step {key!r} is not simulated:"
                              f" teach tests/ci_workflow.py about it")
            if job.status != "success" and "if" not in job.step(key):
                handled.add(key)
                job.skip(key, "an earlier step failed")
                continue
            do(key, known[key])
        missing = [k for k, _ in plan if k not in handled]
        if missing:
            raise Failure(f"job {job.name}: steps gone from the workflow: "
                          f"{missing}")

    def main(self):
        print("== expressions")
        check_expressions(self.wf)
        on = self.wf.get("on", self.wf.get(True))  # YAML 1.1 reads on: as true
        check("main" in ((on or {}).get("push") or {}).get("branches", []),
              "the workflow runs on pushes to main")
        print("\n== jobs, concurrency, permissions, conditions")
        self.check_structure()
        proj, shas = self.make_project()
        remote = self.mkdir("archive-remote.git")
        git("init", "--quiet", "--bare", cwd=remote)
        dates = ["2026-11-30T10:00:00Z", "2026-12-01T09:30:00Z",
                 "2026-12-02T08:15:00Z", "2026-12-03T07:45:00Z"]
        self.measured = {}  # push -> (sha, measure's outputs)

        def measure(n, noise=False):
            # Pushes 1 to 3 bring one commit each (shas 1 to 3); push 4
            # brings two (shas 4 and 5): its baseline is sha 3.
            sha, date = shas[n if n < 4 else 5], dates[n - 1]
            before = shas[n - 1]
            print(f"\n######## push {n} to main: {sha[:12]} at {date} "
                  f"(before: {before[:12]})")
            self.artifacts[n] = self.mkdir(f"push{n}", "artifacts")
            outputs = self.measure(n, proj, sha, date, before, noise)
            check(outputs.get("gate") == "1", "measure's output gate is 1")
            self.measured[n] = (sha, outputs)

        measure(1)
        print("\n######## the pull-request comment, as push 1's gate wrote "
              "it: created, then edited")
        self.comment(self.last_measure)
        print("\n######## push 1: archive (creates the branch), pages")
        self.archive(1, remote, "push")
        self.pages(1, remote)

        measure(2)
        measure(3)
        print("\n######## pushes 2 and 3 race: archive 2 gets to its push, "
              "then archive 3 and pages 3 run to the end, then archive 2 "
              "pushes")

        def push3_overtakes():
            print("\n######## archive 3 and pages 3, while archive 2 waits")
            self.archive(3, remote, "push")
            self.pages(3, remote)
        self.archive(2, remote, "retry", during_push=push3_overtakes)
        print("\n######## pages 2, after archive 2: the whole archive")
        pages = self.pages(2, remote)
        print("\n######## re-run of archive 3: already archived")
        self.archive(3, remote, "noop", label="archive-rerun")

        print("\n######## the archive branch and the site after 3 pushes")
        runs = self.check_branch(remote, 3)
        for sha in shas[1:4]:
            check(any(f"-{sha[:12]}-" in r for r in runs),
                  f"a run of commit {sha[:12]} is archived")
        with open(pages.ws("public", "index.html")) as f:
            index = f.read()
        check(all(r in index for r in runs),
              "the last site (pages 2) lists all 3 runs")

        print("\n######## the first two runs race on a new archive branch")
        fresh = self.mkdir("archive-remote-fresh.git")
        git("init", "--quiet", "--bare", cwd=fresh)
        self.archive(1, fresh, "retry", label="archive-fresh",
                     during_push=lambda: self.archive(
                         2, fresh, "push", label="archive-fresh"))
        self.check_branch(fresh, 2)

        print("\n######## a remote that refuses every push: bounded retries")
        hook = os.path.join(fresh, "hooks", "pre-receive")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\necho 'refused (a test hook)' >&2\nexit 1\n")
        os.chmod(hook, 0o755)
        self.archive(3, fresh, "refused", label="archive-refused")
        os.remove(hook)
        self.check_branch(fresh, 2)

        print("\n######## damage a run on the archive branch")
        clone = os.path.join(self.work, "archive-damage")
        git("clone", "--quiet", "--branch", self.BRANCH, "file://" + remote,
            clone)
        with open(os.path.join(clone, "runs", runs[0], "log-1.csv"), "a") as f:
            f.write("sum,n=65536,65536,base,0,99,confirm,360,1.0\n")
        git("commit", "--quiet", "-am", "damage", cwd=clone)
        git("push", "--quiet", "origin", self.BRANCH, cwd=clone)
        print("\n######## the A/A job, run by hand: the noise branch")
        self.noise(proj, shas[3])
        measure(4, noise=True)
        self.archive(4, remote, "damaged")
        check(not condition_holds(
            self.wf["jobs"]["pages"].get("if"),
            lambda n: ("failure" if n == "needs.archive.result"
                       else _unknown(n)),
            "failure"), "pages does not run after the failed archive job")
        print("\nPASS: the workflow's steps work with benchsite")


def _unknown(name):
    raise Failure(f"unknown expression context {name!r}")


def read_manifest(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f, strict=True))
    except csv.Error as e:
        raise Failure(f"{path}: not RFC 4180 CSV: {e}") from e
    if not rows or rows[0] != ["key", "value"]:
        raise Failure(f"{path}: header is not key,value: {rows[:1]}")
    for r in rows[1:]:
        if len(r) != 2:
            raise Failure(f"{path}: row with {len(r)} fields: {r}")
    return dict(rows[1:])


def machine_string():
    """The manifest's machine as this script reads uname and /proc/cpuinfo:
    "<arch> <CPU model> x<logical CPUs>"."""
    model, cpus = "unknown CPU", 0
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "processor":
                cpus += 1
            elif key.strip() == "model name" and model == "unknown CPU":
                model = value.strip()
    return f"{os.uname().machine} {model} \u00d7{cpus}"


# The project the simulated pushes measure: a benchmark library (see
# include/benchsite/harness.h) with one case; EXTRA_PASSES, set per
# commit, makes each commit's sum about four times slower than the last.
PROJECT_CMAKE = """cmake_minimum_required(VERSION 3.20)
project(demo C)
add_library(bench MODULE bench.c)
target_include_directories(bench PRIVATE ${BENCHSITE_INCLUDE})
target_compile_options(bench PRIVATE -O2)
"""

PROJECT_BENCH = r"""#include "benchsite/harness.h"
#include <stdlib.h>

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
    uint64_t t = 0;
    for (size_t i = 0; i < 1024; i++)
      t += d[i];
    for (int p = 0; p < EXTRA_PASSES; p++) {
      volatile uint64_t u = 0;
      for (size_t i = 0; i < 1024; i++)
        u += d[i];
    }
    __asm__ volatile("" : "+r"(t));
    last = t;
  }
}

static uint64_t digest(void *state) { (void)state; return last; }

static const bs_bench_case cases[] = {
    {"sum", "n=1024", 1024, setup, run, digest, NULL}};
BS_HARNESS_DEFINE_CASES(cases)
"""


def main(argv):
    args = argv[1:]
    workflow = None
    if "--workflow" in args[:-1]:
        i = args.index("--workflow")
        workflow = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary, src, work = args
    for tool in ("git", "gnuplot"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (the workflow's steps need it)")
            return 77
    workflow = workflow or os.path.join(src, "examples", "ci", "benchmarks.yml")
    try:
        Simulation(binary, src, work, workflow).main()
    except Failure as e:
        print(f"\nFAIL: {e}", file=sys.stderr)
        return 1
    except (subprocess.CalledProcessError, yaml.YAMLError) as e:
        print(f"\nFAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
