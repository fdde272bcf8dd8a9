#!/usr/bin/env bash
# The steps of the benchsite GitHub Action (action.yml beside this file),
# one subcommand each, so that they run, and are tested, outside GitHub:
#
#   prepare          validate the inputs, keep them in a state directory
#   deps             install the missing Debian packages
#   build-benchsite  build and install benchsite from the action's checkout
#   trees            the baseline commit, checked out beside the head
#   build            the user's build command, in the baseline and the head
#   measure          benchsite run: both builds, interleaved, and the manifest
#   gate             benchsite check, compare (the gate) and report
#   comment          create or update the one pull-request comment
#   archive          add the run to the archive branch and push it
#   fetch-archive    check out the archive branch's tip (publish)
#   site             benchsite site over the previous site (publish)
#   finish           fail the job on a significant regression
#   bisect           benchsite bisect between good and bad (bisect)
#   calibrate        benchsite calibrate on the head, stored on the archive
#                    branch (calibrations/DATE-HASH.json) (calibrate)
#   fetch-calibrations  the archive branch's calibrations/, for compare
#
# Every value from the workflow arrives in the environment (never in the
# script's text), and every value that came from a benchmark, a manifest
# or a pull request reaches a command only as one argument: nothing here
# is evaluated by a shell except the user's own build command. What goes
# to GITHUB_OUTPUT is a number, a word this script chose or a path it made.
#
# Usage: benchsite-action.sh SUBCOMMAND (inputs in BS_* variables; the
# state directory, made by prepare, in BS_STATE).
set -euo pipefail

# ---- messages and small helpers -------------------------------------------

die() {
  # A workflow-command error: one line, no control characters.
  local msg
  msg=$(printf '%s' "$*" | tr -d '\000-\037')
  printf '::error title=benchsite::%s\n' "$msg" >&2
  exit "${BS_DIE_STATUS:-2}"
}

warn() {
  local msg
  msg=$(printf '%s' "$*" | tr -d '\000-\037')
  printf '::warning title=benchsite::%s\n' "$msg"
}

note() {
  local msg
  msg=$(printf '%s' "$*" | tr -d '\000-\037')
  printf '::notice title=benchsite::%s\n' "$msg"
}

# One line of output for a later step or the workflow; the value must be
# something this script made (a number, a word, a path), never user text.
output() {
  case $2 in
  *$'\n'* | *$'\r'*) die "internal: output $1 holds a line break" ;;
  esac
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

summary() {
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat >>"$GITHUB_STEP_SUMMARY"
  else
    cat >/dev/null
  fi
}

# Text shown inside <pre> in the job summary.
html_escape() {
  sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
}

is_true() {
  case $1 in
  true | True | TRUE | yes | 1 | on) return 0 ;;
  false | False | FALSE | no | 0 | off | '') return 1 ;;
  *) die "\"$1\" is not true or false" ;;
  esac
}

# "true" or "false" for a boolean input (dies on anything else).
bool() {
  if is_true "$1"; then echo true; else echo false; fi
}

# The state directory: one file per value, written by prepare.
state_set() { printf '%s' "$2" >"$BS_STATE/v.$1"; }
state_get() {
  [ -f "$BS_STATE/v.$1" ] || die "internal: no state $1 (run prepare first)"
  cat "$BS_STATE/v.$1"
}

need_state() {
  if [ -z "${BS_STATE:-}" ] || [ ! -d "$BS_STATE" ]; then
    die "internal: BS_STATE is not a directory (run prepare first)"
  fi
}

# Splits a string of arguments the way xargs reads them -- blanks separate,
# '...' and "..." group, \ escapes -- into the array named by $1. Nothing
# is expanded: no $, no globs, no command substitution.
split_args() {
  local -n into=$1
  local tmp
  tmp=$(mktemp)
  if ! printf '%s' "$2" | xargs -r printf '%s\0' >"$tmp" 2>"$tmp.err"; then
    local why
    why=$(head -n 1 "$tmp.err")
    rm -f "$tmp" "$tmp.err"
    die "$3: cannot split into arguments ($why)"
  fi
  # shellcheck disable=SC2034 # into names the caller's array
  mapfile -d '' into <"$tmp"
  rm -f "$tmp" "$tmp.err"
}

# Writes the arguments NUL-terminated to FILE (nothing at all for none), for
# mapfile -d '' to read back.
save_args() {
  local file=$1
  shift
  : >"$file"
  [ "$#" = 0 ] || printf '%s\0' "$@" >"$file"
}

# A path benchsite may meet inside a command it splits at blanks: only
# characters that need no quoting.
plain_path() {
  [[ $1 =~ ^[A-Za-z0-9_./+@%:=,-]+$ ]]
}

# ---- the harness table ------------------------------------------------------
# One row per kind of benchmark `benchsite run` measures: the option that
# names an impl, and how the `bench` input becomes each build's impl:
#   path     a file in the tree (bench is a path relative to it)
#   command  a command line (its first word is a path in the tree, or
#            {tree} marks where the tree goes)
#   dir      a command line run inside the tree (benchsite run --dir), as
#            it is ({tree} still marks where the tree goes)
# A new harness of `benchsite run` (an adapter) is a new row.
harness_row() {
  case $1 in
  lib) echo "--lib path" ;;
  command) echo "--cmd command" ;;
  google-benchmark) echo "--google-benchmark command" ;;
  pytest-benchmark) echo "--pytest-benchmark dir" ;;
  go-bench) echo "--go-bench dir" ;;
  *) return 1 ;;
  esac
}
HARNESSES="lib, command, google-benchmark, pytest-benchmark, go-bench"

# The impl value of one build: bench resolved against the tree directory.
resolve_bench() { # KIND TREE BENCH
  local kind=$1 tree=$2 bench=$3
  if [[ $bench == *'{tree}'* ]]; then
    printf '%s' "${bench//\{tree\}/$tree}"
    return
  fi
  case $kind in
  path)
    printf '%s/%s' "$tree" "$bench"
    ;;
  dir)
    printf '%s' "$bench"
    ;;
  command)
    # The first word is the program, a path inside the tree.
    local rest=${bench#"${bench%%[![:blank:]]*}"}
    local first=${rest%%[[:blank:]]*}
    printf '%s/%s%s' "$tree" "$first" "${rest#"$first"}"
    ;;
  esac
}

# ---- prepare ---------------------------------------------------------------

# The system a build of benchsite runs on: distribution, release, machine.
system_id() {
  local os=unknown
  if [ -r /etc/os-release ]; then
    # shellcheck source=/dev/null # the system's, read for two names
    os=$(. /etc/os-release && printf '%s%s' "${ID:-}" "${VERSION_ID:-}")
  fi
  printf '%s-%s' "$os" "$(uname -m)" | tr -c 'A-Za-z0-9._-' '_'
}

cmd_prepare() {
  local task=${BS_TASK:-measure}
  case $task in
  measure | publish | bisect | calibrate) ;;
  *) die "task: \"$task\" is not measure, publish, bisect or calibrate" ;;
  esac
  local temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  mkdir -p "$temp"
  BS_STATE=$(mktemp -d "$temp/benchsite.XXXXXX")
  plain_path "$BS_STATE" ||
    die "the runner's temporary directory \"$temp\" holds characters benchsite cannot pass in a command"
  state_set task "$task"
  output state "$BS_STATE"
  output task "$task"

  local packages=()
  split_args packages "${BS_PACKAGES:-}" packages
  local p
  for p in "${packages[@]}"; do
    [[ $p =~ ^[A-Za-z0-9][A-Za-z0-9+.:=~_-]*$ ]] ||
      die "packages: \"$p\" is not a Debian package name"
  done
  printf '%s\n' "${packages[@]}" >"$BS_STATE/packages"

  local branch=${BS_ARCHIVE_BRANCH:-benchsite-archive}
  git check-ref-format --branch "$branch" >/dev/null 2>&1 ||
    die "archive-branch: \"$branch\" is not a valid branch name"
  state_set archive_branch "$branch"
  local remote=${BS_ARCHIVE_REMOTE:-}
  if [ -z "$remote" ]; then
    remote=${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}.git
  elif [[ $remote =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
    remote=${GITHUB_SERVER_URL:-https://github.com}/$remote.git
  fi
  case $remote in
  https://* | file://* | /*) ;;
  *) die "archive-repository: \"$remote\" is neither owner/name nor an https:// or file:// URL" ;;
  esac
  state_set archive_remote "$remote"
  local retries=${BS_ARCHIVE_RETRIES:-10}
  if ! [[ $retries =~ ^[0-9]+$ ]] || [ "$retries" -lt 1 ] || [ "$retries" -gt 50 ]; then
    die "archive-retries: \"$retries\" is not a number from 1 to 50"
  fi
  state_set archive_retries "$retries"

  if [ "$task" = publish ]; then
    local site=$temp/benchsite-site
    state_set site "$site"
    output site "$site"
    local os
    os=$(system_id)
    output site-key "benchsite-site-$os-$branch-${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
    output site-restore "benchsite-site-$os-$branch-"
    local site_args=()
    split_args site_args "${BS_SITE_ARGS:-}" site-args
    save_args "$BS_STATE/site_args" "${site_args[@]}"
    local pages
    pages=$(bool "${BS_PAGES:-true}")
    output pages "$pages"
    prepare_build
    return
  fi

  local harness=${BS_HARNESS:-lib} row
  row=$(harness_row "$harness") ||
    die "harness: \"$harness\" is not one of $HARNESSES"
  state_set harness "$harness"
  local bench=${BS_BENCH:-}
  [ -n "$bench" ] || die "bench: name the benchmark (for harness $harness: $(
    [ "${row#* }" = path ] && echo 'a path in the tree' || echo 'a command')"
  case $bench in *$'\n'* | *$'\r'*) die "bench: one line, please" ;; esac
  if [[ $bench != *'{tree}'* && ${row#* } != dir ]]; then
    local rest=${bench#"${bench%%[![:blank:]]*}"}
    case $rest in
    /*) die "bench: \"$bench\" starts with an absolute path, which is the same file for both builds: give a path inside the tree, or write {tree} where the tree goes" ;;
    \'* | \"*) die "bench: start with the program's path inside the tree, or write {tree} where the tree goes" ;;
    esac
  fi
  state_set bench "$bench"
  printf '%s' "${BS_BUILD:-}" >"$BS_STATE/build"

  local path=${BS_PATH:-.}
  case /$path/ in
  */../*) die "path: \"$path\" must stay inside the workspace" ;;
  esac
  local head
  head=$(cd "${GITHUB_WORKSPACE:-$PWD}" && cd "$path" 2>/dev/null && pwd -P) ||
    die "path: \"$path\" is not a directory of the workspace (check out the repository first: actions/checkout)"
  plain_path "$head" || die "path: the head checkout \"$head\" holds characters benchsite cannot pass in a command"
  git -C "$head" rev-parse --git-dir >/dev/null 2>&1 ||
    die "path: \"$path\" is not a git checkout (run actions/checkout first)"
  state_set head_dir "$head"
  state_set base_dir "$BS_STATE/base"
  state_set out "$BS_STATE/out"
  mkdir -p "$BS_STATE/out"
  output out "$BS_STATE/out"

  state_set baseline_ref "${BS_BASELINE_REF:-}"
  local proto=${BS_PROTOCOL:-}
  [[ -z $proto || $proto =~ ^[A-Za-z]+$ ]] || die "protocol: \"$proto\" is not a protocol name"
  state_set protocol "$proto"
  if [ "$task" = bisect ]; then
    local good=${BS_GOOD:-} bad=${BS_BAD:-HEAD}
    [ -n "$good" ] || die "good: name the commit where the cases are fast (task bisect)"
    case $good$bad in *$'\n'* | *$'\r'*) die "good, bad: one line each, please" ;; esac
    state_set good "$good"
    state_set bad "$bad"
    local bisect_args=()
    split_args bisect_args "${BS_BISECT_ARGS:-}" bisect-args
    save_args "$BS_STATE/bisect_args" "${bisect_args[@]}"
    output comment false
    output archive false
    prepare_build
    echo "benchsite: bisect with harness $harness"
    return
  fi
  local duet=${BS_DUET:-auto}
  if [ "$duet" = auto ]; then
    # Both builds at once, each on its own CPU: the verdict lab's best
    # setup on a shared machine; needs two CPUs and a lib, a command or a
    # Google Benchmark program (gated on its CPU time); go test and
    # pytest programs, which report no CPU time, run one after the other.
    duet=false
    case ${BS_HARNESS:-lib} in
    lib | command | google-benchmark)
      [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ] || duet=true ;;
    esac
  fi
  state_set duet "$(bool "$duet")"
  state_set profile "${BS_PROFILE:-release}"
  state_set dtype "${BS_DTYPE:-}"
  printf '%s' "${BS_MANIFEST_SET:-}" >"$BS_STATE/manifest_set"
  local run_args=() compare_args=()
  split_args run_args "${BS_RUN_ARGS:-}" run-args
  split_args compare_args "${BS_COMPARE_ARGS:-}" compare-args
  save_args "$BS_STATE/run_args" "${run_args[@]}"
  save_args "$BS_STATE/compare_args" "${compare_args[@]}"
  local calibrate_args=()
  split_args calibrate_args "${BS_CALIBRATE_ARGS:-}" calibrate-args
  save_args "$BS_STATE/calibrate_args" "${calibrate_args[@]}"
  local flag
  flag=$(bool "${BS_FAMILY_WISE:-true}")
  state_set family_wise "$flag"
  flag=$(bool "${BS_FAIL_ON_REGRESSION:-true}")
  state_set fail "$flag"

  # Comment on pull requests; archive pushes to the default branch.
  local event=${GITHUB_EVENT_NAME:-} comment=${BS_COMMENT:-auto}
  local archive=${BS_ARCHIVE:-auto} default=${BS_DEFAULT_BRANCH:-}
  case $comment in
  auto) [ "$event" = pull_request ] && comment=true || comment=false ;;
  *) comment=$(bool "$comment") ;;
  esac
  [[ ${BS_PR_NUMBER:-} =~ ^[0-9]+$ ]] || comment=false
  [ "$task" != calibrate ] || comment=false
  case $archive in
  auto)
    if [ "$task" = calibrate ]; then
      archive=true
    elif [ "$event" = push ] && [ -n "$default" ] &&
      [ "${GITHUB_REF:-}" = "refs/heads/$default" ]; then
      archive=true
    else
      archive=false
    fi
    ;;
  *) archive=$(bool "$archive") ;;
  esac
  state_set pr "${BS_PR_NUMBER:-}"
  state_set comment "$comment"
  state_set archive "$archive"
  output comment "$comment"
  output archive "$archive"
  prepare_build
  echo "benchsite: harness $harness; comment on the pull request: $comment; archive the run: $archive"
}

# Where benchsite is built and cached (after the inputs are checked).
prepare_build() {
  # benchsite's own source: the repository this action is part of.
  local src
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd -P)
  if [ ! -f "$src/CMakeLists.txt" ] || [ ! -d "$src/src" ]; then
    die "the action's checkout has no benchsite source at $src"
  fi
  state_set source "$src"
  # The build is cached by the content of what it is built from (so by
  # commit, whatever ref named it) and by the system it was built on.
  local hash os
  hash=$(cd "$src" && find CMakeLists.txt src include templates site \
    -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
  hash=${hash:0:16}
  os=$(system_id)
  local temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  local tools=${RUNNER_TOOL_CACHE:-$temp/tools}
  local prefix=$tools/benchsite/$hash-$os
  plain_path "$prefix" || die "the tool cache path \"$prefix\" holds characters benchsite cannot pass in a command"
  state_set prefix "$prefix"
  output prefix "$prefix"
  output cache-key "benchsite-build-$os-$hash"
}

# ---- deps ------------------------------------------------------------------

# What benchsite needs to build and run (gnuplot draws the charts; git,
# curl and jq are the action's own tools).
BENCHSITE_PACKAGES="gcc libc6-dev cmake ninja-build pkg-config libcsv-dev
nettle-dev libxml2-dev gnuplot-nox git curl jq ca-certificates"

cmd_deps() {
  need_state
  local want missing=() p
  # shellcheck disable=SC2206 # a fixed list of words
  want=($BENCHSITE_PACKAGES)
  mapfile -t extra <"$BS_STATE/packages"
  for p in "${extra[@]}"; do
    [ -n "$p" ] && want+=("$p")
  done
  # One dpkg-query for all (it says nothing of a package it does not know).
  local names=() status
  for p in "${want[@]}"; do names+=("${p%%[=:]*}"); done
  status=$(dpkg-query -W -f='${Package} ${Status}\n' "${names[@]}" 2>/dev/null || true)
  for p in "${want[@]}"; do
    grep -qx "${p%%[=:]*} .* ok installed" <<<"$status" || missing+=("$p")
  done
  if [ "${#missing[@]}" = 0 ]; then
    echo "benchsite: every package is installed"
    return
  fi
  echo "benchsite: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo -n)
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# ---- build-benchsite ------------------------------------------------------

cmd_build_benchsite() {
  need_state
  local prefix src
  prefix=$(state_get prefix)
  src=$(state_get source)
  if [ -x "$prefix/bin/benchsite" ]; then
    echo "benchsite: using the build in $prefix"
  else
    local build=$BS_STATE/benchsite-build
    echo "::group::benchsite: building from $src"
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBENCHSITE_TESTS=OFF -DBENCHSITE_GBENCH_EXAMPLE=OFF \
      -DCMAKE_INSTALL_PREFIX="$prefix"
    cmake --build "$build" --target benchsite_cli
    cmake --install "$build"
    echo "::endgroup::"
    [ -x "$prefix/bin/benchsite" ] || die "the build installed no $prefix/bin/benchsite"
  fi
  "$prefix/bin/benchsite" --version
  state_set benchsite "$prefix/bin/benchsite"
  # Later steps of the job may call benchsite too.
  if [ -n "${GITHUB_PATH:-}" ]; then
    printf '%s\n' "$prefix/bin" >>"$GITHUB_PATH"
  fi
}

# ---- trees -----------------------------------------------------------------

cmd_trees() {
  need_state
  local head base_dir ref event base
  head=$(state_get head_dir)
  base_dir=$(state_get base_dir)
  ref=$(state_get baseline_ref)
  event=${GITHUB_EVENT_NAME:-}
  # The baseline needs history: actions/checkout fetches one commit.
  if [ "$(git -C "$head" rev-parse --is-shallow-repository)" = true ]; then
    echo "benchsite: fetching the history of the shallow checkout"
    git -C "$head" fetch --quiet --no-tags --unshallow origin
  fi
  if [ -n "$ref" ]; then
    base=$(git -C "$head" rev-parse --verify --quiet "$ref^{commit}") ||
      die "baseline-ref: \"$ref\" is not a commit of the checkout"
  elif [ "$event" = pull_request ] || [ "$event" = pull_request_target ]; then
    local target=${BS_BASE_REF:-}
    git check-ref-format --branch "$target" >/dev/null 2>&1 ||
      die "the pull request's base branch \"$target\" is not a branch name"
    git -C "$head" fetch --quiet --no-tags origin \
      "+refs/heads/$target:refs/remotes/origin/$target"
    base=$(git -C "$head" merge-base "refs/remotes/origin/$target" HEAD) ||
      die "no merge base of $target and the pull request"
  else
    # A push may bring several commits: the baseline is the tip before it,
    # so the whole range is measured. The parent when there is none (a new
    # branch) or it is gone (a force push).
    local before=${BS_BEFORE:-}
    base=
    if [[ $before =~ ^[0-9a-f]{40}$ ]] && [[ $before != 0000000000000000000000000000000000000000 ]]; then
      git -C "$head" cat-file -e "$before^{commit}" 2>/dev/null ||
        git -C "$head" fetch --quiet --no-tags origin "$before" 2>/dev/null || true
      git -C "$head" cat-file -e "$before^{commit}" 2>/dev/null && base=$before
    fi
    if [ -z "$base" ]; then
      base=$(git -C "$head" rev-parse --verify --quiet 'HEAD^{commit}^') ||
        die "the head has no parent to measure against: set baseline-ref"
    fi
  fi
  local head_sha
  head_sha=$(git -C "$head" rev-parse HEAD)
  rm -rf "$base_dir"
  git -C "$head" worktree add --quiet --detach "$base_dir" "$base"
  state_set base_sha "$base"
  state_set head_sha "$head_sha"
  output baseline "$base"
  output head "$head_sha"
  echo "benchsite: baseline $base, head $head_sha"
}

# ---- build -----------------------------------------------------------------

cmd_build() {
  need_state
  local script prefix tree dir
  script=$(cat "$BS_STATE/build")
  prefix=$(state_get prefix)
  if [ -z "$script" ]; then
    echo "benchsite: no build command: measuring the trees as they are"
    return
  fi
  local trees=(base head)
  [ "$(state_get task)" != calibrate ] || trees=(head)
  for tree in "${trees[@]}"; do
    dir=$(state_get "${tree}_dir")
    echo "::group::benchsite: build of the $tree ($dir)"
    # The user's own build command, run as a run: step would run it, in
    # each tree; benchsite/harness.h is on the compilers' include path.
    (cd "$dir" && BENCHSITE_TREE=$tree BENCHSITE_INCLUDE=$prefix/include \
      CPATH=$prefix/include${CPATH:+:$CPATH} \
      bash --noprofile --norc -eo pipefail -c "$script") ||
      BS_DIE_STATUS=1 die "the build command failed in the $tree tree"
    echo "::endgroup::"
  done
}

# ---- measure ---------------------------------------------------------------

# Appends to the array named by $1 the options of the setup that measure
# and calibrate share (protocol, duet, profile, dtype, manifest-set), so a
# calibration is of the same setup as the runs it is shown beside.
setup_args() {
  local -n to=$1
  local v line
  v=$(state_get protocol)
  [ -z "$v" ] || to+=(--protocol "$v")
  # Said either way: run's own default is side by side where it can be.
  if [ "$(state_get duet)" = true ]; then
    to+=(--duet)
  else
    to+=(--sequential)
  fi
  v=$(state_get profile)
  [ -z "$v" ] || to+=(--profile "$v")
  v=$(state_get dtype)
  [ -z "$v" ] || to+=(--dtype "$v")
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    [ -n "${line//[[:blank:]]/}" ] || continue
    to+=(--set "$line")
  done <"$BS_STATE/manifest_set"
}

cmd_measure() {
  need_state
  local bs out harness row flag kind bench head base
  bs=$(state_get benchsite)
  out=$(state_get out)
  harness=$(state_get harness)
  row=$(harness_row "$harness")
  flag=${row% *}
  kind=${row#* }
  bench=$(state_get bench)
  head=$(state_get head_dir)
  base=$(state_get base_dir)
  local args=(run --out "$out/log.csv" --manifest-out "$out/env.csv"
    --commit "$(state_get head_sha)" --baseline-commit "$(state_get base_sha)")
  setup_args args
  args+=("$flag" "base=$(resolve_bench "$kind" "$base" "$bench")"
    "$flag" "head=$(resolve_bench "$kind" "$head" "$bench")")
  # A harness that runs inside a tree runs inside each build's.
  [ "$kind" != dir ] || args+=(--dir "base=$base" --dir "head=$head")
  local extra=()
  mapfile -d '' extra <"$BS_STATE/run_args"
  args+=("${extra[@]}")
  # benchsite runs in the head's tree (relative paths in a command are
  # the head's; write {tree} for the baseline's).
  (cd "$head" && "$bs" "${args[@]}") || {
    local rc=$?
    BS_DIE_STATUS=$rc die "benchsite run failed (exit status $rc): see the log above"
  }
}

# ---- gate ------------------------------------------------------------------

cmd_gate() {
  need_state
  local bs out status
  bs=$(state_get benchsite)
  out=$(state_get out)
  local log=$out/log.csv env=$out/env.csv
  rm -f "$out/comment.md" "$out/compare.json"
  local args=(compare "$log" --manifest "$env"
    --json "$out/compare.json" --markdown "$out/comment.md")
  [ "$(state_get family_wise)" = false ] || args+=(--family-wise)
  # The runner's calibrations (fetch-calibrations): compare takes the
  # newest of this run's setup, or says there is none.
  if [ -d "$BS_STATE/calibrations" ]; then
    args+=(--calibration "$BS_STATE/calibrations")
  fi
  local extra=()
  mapfile -d '' extra <"$BS_STATE/compare_args"
  args+=("${extra[@]}")
  # A log benchsite check finds fault with gets no verdict (status 2, as
  # for bad input): the archive would refuse it too.
  status=0
  "$bs" check "$log" --manifest "$env" >"$out/gate.err" 2>&1 || status=$?
  if [ "$status" = 0 ]; then
    "$bs" "${args[@]}" 2>"$out/gate.err" || status=$?
  else
    [ "$status" -gt 1 ] || status=2
  fi
  cat "$out/gate.err" >&2
  # A verdict: 0 none, 1 a significant regression, 4 inconclusive cases
  # under --fail-inconclusive (compare-args). Anything else is none.
  local verdict=false
  case $status in 0 | 1 | 4) verdict=true ;; esac
  if [ "$verdict" = true ] && { [ ! -s "$out/comment.md" ] || [ ! -s "$out/compare.json" ]; }; then
    status=3
    verdict=false
  fi
  output status "$status"
  state_set status "$status"
  if [ "$verdict" = false ]; then
    {
      echo "### benchsite: no verdict (exit status $status)"
      echo
      echo "<pre>"
      html_escape <"$out/gate.err"
      echo "</pre>"
    } | summary
    BS_DIE_STATUS=$status die "no verdict: benchsite check or compare failed (exit status $status)"
  fi
  # The counts, as the comment's headline gives them: the JSON's
  # top-level counts. Older builds wrote no improvements or equivalent
  # (counted here from the cases as the headline counts them: equivalent
  # and neither significant nor inconclusive) and no inconclusive (0).
  local counts
  counts=$(jq -r '[(.regressions // 0), (.family_regressions // 0),
      (.improvements // ([.cases[] | select(.significant_improvement == true)] | length)),
      (.inconclusive // 0),
      (.equivalent // ([.cases[] | select(.verdict == "equivalent"
          and .significant_regression != true
          and .significant_improvement != true
          and .inconclusive != true)] | length)),
      (.cases | length)] | map(tostring) | join(" ")' "$out/compare.json") ||
    die "cannot read the counts from compare.json"
  local names=(regressions family-regressions improvements inconclusive equivalent cases)
  local values i
  read -r -a values <<<"$counts"
  [ "${#values[@]}" = 6 ] || die "unexpected counts from compare.json: $counts"
  for i in "${!names[@]}"; do
    [[ ${values[$i]} =~ ^[0-9]+$ ]] || die "count ${names[$i]} is not a number"
    output "${names[$i]}" "${values[$i]}"
  done
  output comment-file "$out/comment.md"
  output compare-json "$out/compare.json"
  # The report shows the metric the gate read (the manifest's
  # gate_metric, or a --metric in compare-args), as compare.json says.
  local metric
  metric=$(jq -r '.metric // "wall"' "$out/compare.json") ||
    die "cannot read the metric from compare.json"
  [[ $metric =~ ^(wall|cpu|rss)$ ]] || die "unexpected metric in compare.json"
  "$bs" report "$log" --manifest "$env" --metric "$metric" \
    --out "$out/report" >/dev/null ||
    die "benchsite report failed"
  output report "$out/report"
  # Without a comment to post (not a pull request, or commenting off), the
  # verdict goes to the job summary; the comment step does it otherwise.
  [ "$(state_get comment)" = true ] || summary <"$out/comment.md"
}

# ---- comment ---------------------------------------------------------------

# One GitHub REST call: METHOD PATH_OR_URL [BODY_FILE]. Prints the HTTP
# status; the response body goes to $BS_STATE/api.json, its headers to
# $BS_STATE/api.headers. The token goes to curl on its standard input,
# never on a command line.
api() {
  local method=$1 url=$2 body=${3:-}
  case $url in
  http://* | https://*) ;;
  *) url=$API/$url ;;
  esac
  local args=(--silent --show-error --max-time 60 --request "$method"
    --header "Accept: application/vnd.github+json"
    --header "X-GitHub-Api-Version: 2022-11-28"
    --output "$BS_STATE/api.json" --dump-header "$BS_STATE/api.headers"
    --write-out '%{http_code}' --config -)
  [ -z "$body" ] || args+=(--header "Content-Type: application/json"
    --data-binary "@$body")
  local code
  code=$(printf 'header = "Authorization: Bearer %s"\n' "$TOKEN" |
    curl "${args[@]}" "$url") || code=000
  [[ $code =~ ^[0-9]{3}$ ]] || code=000
  echo "$code"
}

# The API's own message, made fit for one log line.
api_message() {
  jq -r '.message // empty' "$BS_STATE/api.json" 2>/dev/null |
    head -c 300 | tr -d '\000-\037' || true
}

cmd_comment() {
  need_state
  local out file pr repo
  out=$(state_get out)
  file=$out/comment.md
  pr=$(state_get pr)
  repo=${GITHUB_REPOSITORY:-}
  [ -s "$file" ] || die "no comment to post ($file is missing)"
  local marker
  marker=$(head -n 1 "$file")
  [[ $marker =~ ^'<!-- benchsite:'[a-z]+' -->'$ ]] ||
    die "the comment does not start with benchsite's marker"
  API=${GITHUB_API_URL:-https://api.github.com}
  API=${API%/}
  TOKEN=${BS_TOKEN:-}
  local why=
  if [ -z "$TOKEN" ]; then
    why="no token"
  elif ! [[ $TOKEN =~ ^[A-Za-z0-9_.-]+$ ]]; then
    why="the token is not a GitHub token"
  elif ! [[ $pr =~ ^[0-9]+$ ]] || ! [[ $repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
    why="no pull request number or repository"
  fi
  local id='' code url
  if [ -z "$why" ]; then
    # Our comment: a bot's (github-actions[bot] for the job's token) whose
    # first line is the marker. Other tools' comments, and people's, are
    # never touched.
    url="repos/$repo/issues/$pr/comments?per_page=100"
    local pages=0
    while [ -n "$url" ] && [ "$pages" -lt 100 ]; do
      pages=$((pages + 1))
      code=$(api GET "$url")
      if [ "$code" != 200 ]; then
        why="listing the comments gave HTTP $code $(api_message)"
        break
      fi
      id=$(jq -r --arg m "$marker" '[.[] | select(.user.type == "Bot"
          and ((.body // "") | split("\n")[0] | rtrimstr("\r")) == $m)
          | .id][0] // empty' "$BS_STATE/api.json") || id=
      [[ -z $id || $id =~ ^[0-9]+$ ]] || id=
      [ -z "$id" ] || break
      # The next page, from the Link header, only on the same API.
      url=$(tr -d '\r' <"$BS_STATE/api.headers" |
        sed -n 's/^[Ll]ink:.*<\([^>]*\)>; *rel="next".*/\1/p' | head -n 1)
      case $url in
      "$API"/*) ;;
      *) url= ;;
      esac
    done
  fi
  if [ -z "$why" ]; then
    jq -n --rawfile body "$file" '{body: $body}' >"$BS_STATE/comment.json"
    if [ -n "$id" ]; then
      code=$(api PATCH "repos/$repo/issues/comments/$id" "$BS_STATE/comment.json")
      [ "$code" = 200 ] || why="updating comment $id gave HTTP $code $(api_message)"
    else
      code=$(api POST "repos/$repo/issues/$pr/comments" "$BS_STATE/comment.json")
      [ "$code" = 201 ] || why="creating the comment gave HTTP $code $(api_message)"
    fi
  fi
  if [ -z "$why" ]; then
    local link
    link=$(jq -r '.html_url // empty' "$BS_STATE/api.json" | tr -d '\000-\037')
    [ -n "$id" ] && echo "benchsite: updated comment $id" ||
      echo "benchsite: created the comment"
    output commented true
    {
      sed -n 2p "$file"
      echo
      case $link in
      https://*) echo "The verdict and its table: [the pull request's comment]($link)." ;;
      *) echo "The verdict and its table are in the pull request's comment." ;;
      esac
    } | summary
    return 0
  fi
  # A token that cannot comment (a pull request from a fork has a read-only
  # token) is no failure of the gate: the comment goes to the job summary.
  case $why in
  *"HTTP 403"* | *"HTTP 401"* | *"HTTP 404"* | "no token")
    note "cannot comment on the pull request ($why): the verdict is in the job summary"
    ;;
  *) warn "cannot comment on the pull request ($why): the verdict is in the job summary" ;;
  esac
  output commented false
  summary <"$file"
}

# ---- archive ---------------------------------------------------------------

# git with the token as an HTTP header (from the environment, so it is on
# no command line and in no file), for https remotes.
agit() {
  if [ -n "${TOKEN:-}" ] && [[ $REMOTE == https://* ]]; then
    local basic
    basic=$(printf 'x-access-token:%s' "$TOKEN" | base64 -w 0)
    GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraheader \
      GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $basic" git "$@"
  else
    git "$@"
  fi
}

# A random wait before retry N (1, 2, ...): "full jitter" over a window
# that doubles from 1 s up to 30 s, so racing jobs spread out.
backoff() {
  local window=$((1000 << ($1 - 1)))
  [ "$window" -le 30000 ] || window=30000
  local ms=$(((RANDOM * 32768 + RANDOM) % window + 1))
  echo "benchsite: waiting $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}

# The tip of the archive branch into $dir (fetched, one commit deep), or
# an empty orphan branch when there is none yet. Sets TIP ("" for none).
# Refs by full name: ls-remote matches a pattern against the tail of every
# ref ("benchsite-archive" matches refs/heads/feature/benchsite-archive,
# and refs/heads/x/refs/heads/benchsite-archive matches even the full
# name), so its answer is read for exactly refs/heads/$BRANCH.
checkout_tip() {
  local dir=$1 refs found=0
  refs=$(agit -C "$dir" ls-remote origin "refs/heads/$BRANCH") || found=$?
  case $found in
  0)
    if printf '%s\n' "$refs" | cut -f2 | grep -Fqx "refs/heads/$BRANCH"; then
      agit -C "$dir" fetch --quiet --no-tags --depth 1 origin "+refs/heads/$BRANCH:refs/benchsite/tip"
      TIP=$(git -C "$dir" rev-parse --verify --quiet "refs/benchsite/tip^{commit}") ||
        BS_DIE_STATUS=3 die "cannot fetch $BRANCH from the archive repository"
    else
      TIP=
    fi
    ;;
  *) BS_DIE_STATUS=3 die "cannot read the archive repository (git ls-remote exit status $found)" ;;
  esac
}

# Adds one run (LOG MANIFEST) to the archive branch and pushes it. Each run
# is its own directory (runs/ID/), so when another job pushed first the
# commit is rebased onto the new tip (it never conflicts) and pushed
# again, after a random wait, a bounded number of times.
cmd_archive() {
  need_state
  local out
  out=$(state_get out)
  REMOTE=$(state_get archive_remote)
  BRANCH=$(state_get archive_branch)
  TRIES=$(state_get archive_retries)
  TOKEN=${BS_TOKEN:-}
  archive_push "$(state_get benchsite)" "$out/log.csv" "$out/env.csv" \
    "$BS_STATE/archive"
}

# The same outside the action (another CI, a machine of its own):
#   BS_ARCHIVE_REMOTE=URL [BS_ARCHIVE_BRANCH=B] [BS_ARCHIVE_RETRIES=N]
#   [BS_TOKEN=T] benchsite-action.sh archive-run BENCHSITE LOG MANIFEST WORKDIR
# WORKDIR is replaced by a checkout of the branch.
cmd_archive_run() {
  [ "$#" = 4 ] || die "usage: benchsite-action.sh archive-run BENCHSITE LOG MANIFEST WORKDIR"
  REMOTE=${BS_ARCHIVE_REMOTE:?BS_ARCHIVE_REMOTE names the archive repository}
  BRANCH=${BS_ARCHIVE_BRANCH:-benchsite-archive}
  git check-ref-format --branch "$BRANCH" >/dev/null 2>&1 ||
    die "\"$BRANCH\" is not a valid branch name"
  TRIES=${BS_ARCHIVE_RETRIES:-10}
  if ! [[ $TRIES =~ ^[0-9]+$ ]] || [ "$TRIES" -lt 1 ]; then
    die "BS_ARCHIVE_RETRIES: \"$TRIES\" is not a number of attempts"
  fi
  TOKEN=${BS_TOKEN:-}
  archive_push "$@"
}

archive_push() { # BENCHSITE LOG MANIFEST WORKDIR (REMOTE BRANCH TRIES TOKEN set)
  local bs=$1 log=$2 env=$3 dir=$4 tries=$TRIES
  export GIT_AUTHOR_NAME=benchsite GIT_COMMITTER_NAME=benchsite
  export GIT_AUTHOR_EMAIL=benchsite@users.noreply.github.com
  export GIT_COMMITTER_EMAIL=benchsite@users.noreply.github.com
  local id
  id=$("$bs" archive add --dry-run --archive "$dir.probe" "$log" --manifest "$env") ||
    die "benchsite refuses to archive this run (see above)"
  [[ $id =~ ^[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9]+-[0-9a-f]{12}$ ]] ||
    die "unexpected run id from benchsite archive add --dry-run"
  rm -rf "$dir"
  git init --quiet "$dir"
  git -C "$dir" remote add origin "$REMOTE"
  checkout_tip "$dir"
  if [ -n "$TIP" ]; then
    git -C "$dir" checkout --quiet -B "$BRANCH" "$TIP"
    # Never build on a damaged archive (a branch that holds only the
    # runner's calibrations so far is no archive yet).
    [ ! -e "$dir/FORMAT" ] || "$bs" archive verify --archive "$dir" ||
      BS_DIE_STATUS=1 die "benchsite archive verify fails on the tip of $BRANCH: nothing was pushed"
  else
    git -C "$dir" checkout --quiet --orphan "$BRANCH"
  fi
  "$bs" archive add --archive "$dir" "$log" --manifest "$env" ||
    die "benchsite archive add failed: nothing was pushed"
  rm -f "$dir/.lock" # left by benchsite before 2026-12: not archive content
  git -C "$dir" add -A
  if git -C "$dir" diff --cached --quiet; then
    echo "benchsite: run $id is already in the archive"
    output archived true
    output run-id "$id"
    return 0
  fi
  # The commit holds this run and nothing else (and FORMAT and ID, the
  # archive's identity, for the run that creates the archive; ID alone for
  # the first run added to an archive made before it).
  local stray
  stray=$(git -C "$dir" diff --cached --name-only |
    grep -v -e "^runs/$id/" -e '^FORMAT$' -e '^ID$' || true)
  [ -z "$stray" ] || die "internal: archive add changed files outside its run"
  git -C "$dir" commit --quiet -m "benchsite: run $id"
  local attempt=1 err=$dir.push.err
  while :; do
    if agit -C "$dir" push --quiet origin "HEAD:refs/heads/$BRANCH" 2>"$err"; then
      echo "benchsite: run $id archived on $BRANCH (attempt $attempt)"
      output archived true
      output run-id "$id"
      return 0
    fi
    tr -d '\000-\010\013-\037' <"$err" >&2
    if [ "$attempt" -ge "$tries" ]; then
      BS_DIE_STATUS=3 die "no push of $BRANCH accepted in $tries attempts: run $id is not archived (it is in the report artifact; re-run the job to archive it)"
    fi
    warn "push of run $id rejected (attempt $attempt of $tries): another run went first; rebasing onto it"
    backoff "$attempt"
    attempt=$((attempt + 1))
    local old=$TIP
    if [ -n "$old" ]; then
      # The branch exists: one fetch of its new tip.
      agit -C "$dir" fetch --quiet --no-tags --depth 1 origin "+refs/heads/$BRANCH:refs/benchsite/tip" ||
        BS_DIE_STATUS=3 die "cannot fetch $BRANCH from the archive repository"
      TIP=$(git -C "$dir" rev-parse --verify --quiet "refs/benchsite/tip^{commit}") ||
        BS_DIE_STATUS=3 die "cannot fetch $BRANCH from the archive repository"
    else
      checkout_tip "$dir"
      [ -n "$TIP" ] || continue # still no branch: push the same commit again
    fi
    if git -C "$dir" cat-file -e "$TIP:runs/$id" 2>/dev/null; then
      echo "benchsite: run $id reached the archive meanwhile (another attempt of this job)"
      output archived true
      output run-id "$id"
      return 0
    fi
    # FORMAT and ID are the same in every commit that adds them, except
    # the ID of two jobs that both created the archive (or both gave an
    # older one its ID): the tip's wins (-X ours: the branch rebased onto).
    if [ -n "$old" ]; then
      git -C "$dir" rebase --quiet -X ours --onto "$TIP" "$old" >/dev/null 2>"$err" || {
        cat "$err" >&2
        git -C "$dir" rebase --abort 2>/dev/null || true
        die "rebasing run $id onto the new tip of $BRANCH conflicts: nothing was pushed"
      }
    else
      git -C "$dir" rebase --quiet -X ours --root --onto "$TIP" >/dev/null 2>"$err" || {
        cat "$err" >&2
        git -C "$dir" rebase --abort 2>/dev/null || true
        die "rebasing run $id onto the new $BRANCH conflicts: nothing was pushed"
      }
    fi
    # The rebased commit still adds exactly this run (and ID, to a tip
    # without one).
    stray=$(git -C "$dir" diff --name-only "$TIP" HEAD | grep -v -e "^runs/$id/" -e '^ID$' -e '^FORMAT$' || true)
    [ -z "$stray" ] || die "internal: the rebased run $id changes files outside its directory"
  done
}

# ---- publish: fetch-archive, site -----------------------------------------

cmd_fetch_archive() {
  need_state
  REMOTE=$(state_get archive_remote)
  BRANCH=$(state_get archive_branch)
  TOKEN=${BS_TOKEN:-}
  local dir=$BS_STATE/archive
  rm -rf "$dir"
  git init --quiet "$dir"
  git -C "$dir" remote add origin "$REMOTE"
  checkout_tip "$dir"
  [ -n "$TIP" ] || die "the archive branch $BRANCH does not exist yet: nothing to publish"
  git -C "$dir" checkout --quiet --detach "$TIP"
  echo "benchsite: archive $BRANCH at $TIP"
  output archive-commit "$TIP"
}

cmd_site() {
  need_state
  local bs site
  bs=$(state_get benchsite)
  site=$(state_get site)
  mkdir -p "$(dirname "$site")"
  if [ -e "$site/.benchsite-site" ]; then
    echo "benchsite: rebuilding over the previous site (from the cache)"
  else
    echo "benchsite: no previous site: a full build"
  fi
  local extra=()
  mapfile -d '' extra <"$BS_STATE/site_args"
  "$bs" site --archive "$BS_STATE/archive" --out "$site" "${extra[@]}" ||
    die "benchsite site failed"
}

# ---- calibrate, fetch-calibrations -----------------------------------------

# benchsite calibrate on the head's build, with measure's setup (protocol,
# duet, profile, dtype, manifest-set) so that compare and the site take
# it for the runs of that setup; the calibration is stored on the archive
# branch as calibrations/DATE-HASH.json (DATE its date, HASH of its
# content): a file of its own that is never changed, so pushes from other
# jobs never conflict with it.
cmd_calibrate() {
  need_state
  local bs out harness row flag kind bench head
  bs=$(state_get benchsite)
  out=$(state_get out)
  harness=$(state_get harness)
  row=$(harness_row "$harness")
  flag=${row% *}
  kind=${row#* }
  bench=$(state_get bench)
  head=$(state_get head_dir)
  local sha
  sha=$(git -C "$head" rev-parse --verify HEAD) || die "cannot read the head commit"
  local args=(calibrate --json "$out/calibration.json"
    --html "$out/calibration" --commit "$sha")
  local setup=()
  setup_args setup
  # --duet or --sequential as measure has them: a library's calibration
  # measures its pairs side by side exactly when measure's runs are, and
  # records duet (a comparability key) as they do.
  args+=("${setup[@]}")
  args+=("$flag" "head=$(resolve_bench "$kind" "$head" "$bench")")
  [ "$kind" != dir ] || args+=(--dir "$head")
  local extra=()
  mapfile -d '' extra <"$BS_STATE/calibrate_args"
  args+=("${extra[@]}")
  rm -rf "$out/calibration.json" "$out/calibration"
  (cd "$head" && "$bs" "${args[@]}" >"$out/calibration.txt") || {
    local rc=$?
    BS_DIE_STATUS=$rc die "benchsite calibrate failed (exit status $rc): see the log above"
  }
  cat "$out/calibration.txt"
  [ -s "$out/calibration.json" ] || BS_DIE_STATUS=3 die "benchsite calibrate wrote no calibration"
  output calibration "$out/calibration.json"
  {
    echo "### benchsite calibrate: what the gate sees on this runner"
    echo
    echo "<pre>"
    html_escape <"$out/calibration.txt"
    echo "</pre>"
  } | summary
  if [ "$(state_get archive)" != true ]; then
    echo "benchsite: archive is false: the calibration is only in the artifact"
    return 0
  fi
  REMOTE=$(state_get archive_remote)
  BRANCH=$(state_get archive_branch)
  TRIES=$(state_get archive_retries)
  TOKEN=${BS_TOKEN:-}
  calibration_push "$out/calibration.json" "$BS_STATE/archive"
}

calibration_push() { # FILE WORKDIR (REMOTE BRANCH TRIES TOKEN set)
  local file=$1 dir=$2
  export GIT_AUTHOR_NAME=benchsite GIT_COMMITTER_NAME=benchsite
  export GIT_AUTHOR_EMAIL=benchsite@users.noreply.github.com
  export GIT_COMMITTER_EMAIL=benchsite@users.noreply.github.com
  local date hash name
  date=$(jq -r '.date' "$file") || die "cannot read the calibration's date"
  [[ $date =~ ^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2}) ]] ||
    die "unexpected date in the calibration"
  date=${BASH_REMATCH[1]}${BASH_REMATCH[2]}${BASH_REMATCH[3]}T${BASH_REMATCH[4]}${BASH_REMATCH[5]}${BASH_REMATCH[6]}Z
  hash=$(sha256sum <"$file")
  name=calibrations/$date-${hash:0:12}.json
  rm -rf "$dir"
  git init --quiet "$dir"
  git -C "$dir" remote add origin "$REMOTE"
  checkout_tip "$dir"
  if [ -n "$TIP" ]; then
    git -C "$dir" checkout --quiet -B "$BRANCH" "$TIP"
  else
    git -C "$dir" checkout --quiet --orphan "$BRANCH"
  fi
  mkdir -p "$dir/calibrations"
  cp "$file" "$dir/$name"
  git -C "$dir" add -- "$name"
  if git -C "$dir" diff --cached --quiet; then
    echo "benchsite: $name is already on $BRANCH"
    output calibration-file "$name"
    return 0
  fi
  git -C "$dir" commit --quiet -m "benchsite: calibration $name"
  local attempt=1 err=$dir.push.err
  while :; do
    if agit -C "$dir" push --quiet origin "HEAD:refs/heads/$BRANCH" 2>"$err"; then
      echo "benchsite: $name stored on $BRANCH (attempt $attempt)"
      output calibration-file "$name"
      return 0
    fi
    tr -d '\000-\010\013-\037' <"$err" >&2
    [ "$attempt" -lt "$TRIES" ] ||
      BS_DIE_STATUS=3 die "no push of $BRANCH accepted in $TRIES attempts: the calibration is not stored (it is in the artifact)"
    warn "push of $name rejected (attempt $attempt of $TRIES): another job went first; rebasing onto it"
    backoff "$attempt"
    attempt=$((attempt + 1))
    local old=$TIP
    checkout_tip "$dir"
    [ -n "$TIP" ] || continue # still no branch: push the same commit again
    if [ -n "$old" ]; then
      git -C "$dir" rebase --quiet --onto "$TIP" "$old" >/dev/null 2>"$err"
    else
      git -C "$dir" rebase --quiet --root --onto "$TIP" >/dev/null 2>"$err"
    fi || {
      cat "$err" >&2
      git -C "$dir" rebase --abort 2>/dev/null || true
      die "rebasing $name onto the new tip of $BRANCH conflicts: nothing was pushed"
    }
    local stray
    stray=$(git -C "$dir" diff --name-only "$TIP" HEAD | grep -vxF -- "$name" || true)
    [ -z "$stray" ] || die "internal: the rebased calibration changes other files"
  done
}

# The archive branch's calibrations/ into $BS_STATE/calibrations, for
# compare --calibration (the newest of the run's setup). No branch, or
# none there: nothing. A failure to read them costs the footer, never the
# gate: a warning.
cmd_fetch_calibrations() {
  need_state
  REMOTE=$(state_get archive_remote)
  BRANCH=$(state_get archive_branch)
  TOKEN=${BS_TOKEN:-}
  local dir=$BS_STATE/calibrations-repo
  rm -rf "$dir" "$BS_STATE/calibrations"
  output calibration ""
  if ! (
    # (errexit is off inside the condition: every step says so itself)
    git init --quiet "$dir" || exit 1
    git -C "$dir" remote add origin "$REMOTE" || exit 1
    checkout_tip "$dir"
    [ -n "$TIP" ] || exit 0
    git -C "$dir" cat-file -e "$TIP:calibrations" 2>/dev/null || exit 0
    agit -C "$dir" checkout --quiet "$TIP" -- calibrations || exit 1
    mv "$dir/calibrations" "$BS_STATE/calibrations" || exit 1
  ); then
    rm -rf "$BS_STATE/calibrations"
    warn "cannot read the runner's calibrations from $BRANCH: the verdict goes without them"
    return 0
  fi
  if [ -d "$BS_STATE/calibrations" ]; then
    echo "benchsite: $(find "$BS_STATE/calibrations" -maxdepth 1 -name '*.json' | wc -l) calibration(s) on $BRANCH"
    output calibration "$BS_STATE/calibrations"
  else
    echo "benchsite: no calibration on $BRANCH (task: calibrate stores one)"
  fi
}

# ---- bisect ----------------------------------------------------------------

# benchsite bisect in the checkout: each commit it measures is checked out
# into a clean worktree of its own and built there by the user's build
# commands (run by bash, as a run: step would run them, from a script this
# step writes: benchsite itself starts no shell); the Markdown result is
# the job summary.
cmd_bisect() {
  need_state
  local bs out harness row flag bench head
  bs=$(state_get benchsite)
  out=$(state_get out)
  harness=$(state_get harness)
  row=$(harness_row "$harness")
  flag=${row% *}
  bench=$(state_get bench)
  head=$(state_get head_dir)
  # The range needs history: actions/checkout fetches one commit.
  if [ "$(git -C "$head" rev-parse --is-shallow-repository)" = true ]; then
    echo "benchsite: fetching the history of the shallow checkout"
    git -C "$head" fetch --quiet --no-tags --unshallow origin
  fi
  local build=$BS_STATE/bisect-build.sh
  {
    # shellcheck disable=SC2016 # the script's own $1, not ours
    printf '%s\n' '# benchsite bisect: the build of one commit, in its tree ($1)' \
      'cd "$1" || exit 1' 'export BENCHSITE_TREE="$1"'
    cat "$BS_STATE/build"
    printf '\n'
  } >"$build"
  local prefix
  prefix=$(state_get prefix)
  local args=(bisect --repo "$head" --good "$(state_get good)"
    --bad "$(state_get bad)"
    --build "bash --noprofile --norc -eo pipefail $build {tree}"
    "$flag" "$bench" --json "$out/bisect.json" --markdown "$out/bisect.md")
  local v
  v=$(state_get protocol)
  [ -z "$v" ] || args+=(--protocol "$v")
  local extra=()
  mapfile -d '' extra <"$BS_STATE/bisect_args"
  args+=("${extra[@]}")
  rm -f "$out/bisect.json" "$out/bisect.md"
  local status=0
  BENCHSITE_INCLUDE=$prefix/include CPATH=$prefix/include${CPATH:+:$CPATH} \
    "$bs" "${args[@]}" >"$out/bisect.txt" || status=$?
  cat "$out/bisect.txt"
  case $status in
  0 | 1 | 4)
    if [ ! -s "$out/bisect.md" ] || [ ! -s "$out/bisect.json" ]; then
      BS_DIE_STATUS=3 die "benchsite bisect wrote no result"
    fi
    summary <"$out/bisect.md"
    local outcome culprit
    outcome=$(jq -r '.outcome' "$out/bisect.json")
    culprit=$(jq -r '.culprit // ""' "$out/bisect.json")
    case $outcome in found | no-step | undecided-range) ;; *) die "unexpected outcome from benchsite bisect" ;; esac
    [[ -z $culprit || $culprit =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] ||
      die "unexpected culprit from benchsite bisect"
    output outcome "$outcome"
    output culprit "$culprit"
    output bisect-json "$out/bisect.json"
    ;;
  *)
    {
      echo "### benchsite bisect: no result (exit status $status)"
      echo
      echo "See the job's log."
    } | summary
    BS_DIE_STATUS=$status die "benchsite bisect failed (exit status $status): see the log above"
    ;;
  esac
}

# ---- finish ----------------------------------------------------------------

cmd_finish() {
  need_state
  local status
  status=$(state_get status)
  if [ "$(state_get fail)" = true ]; then
    case $status in
    1) BS_DIE_STATUS=1 die "significant regression: see the pull-request comment or the job summary, and the report artifact" ;;
    4) BS_DIE_STATUS=4 die "inconclusive cases (--fail-inconclusive): see the pull-request comment or the job summary" ;;
    esac
  fi
  echo "benchsite: gate exit status $status"
}

case ${1:-} in
prepare) cmd_prepare ;;
deps) cmd_deps ;;
build-benchsite) cmd_build_benchsite ;;
trees) cmd_trees ;;
build) cmd_build ;;
measure) cmd_measure ;;
gate) cmd_gate ;;
comment) cmd_comment ;;
archive) cmd_archive ;;
archive-run)
  shift
  cmd_archive_run "$@"
  ;;
fetch-archive) cmd_fetch_archive ;;
site) cmd_site ;;
finish) cmd_finish ;;
bisect) cmd_bisect ;;
calibrate) cmd_calibrate ;;
fetch-calibrations) cmd_fetch_calibrations ;;
*)
  echo "usage: benchsite-action.sh prepare|deps|build-benchsite|trees|build|measure|gate|comment|archive|archive-run|fetch-archive|site|finish|bisect|calibrate|fetch-calibrations" >&2
  exit 2
  ;;
esac
