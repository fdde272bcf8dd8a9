#!/bin/sh
# A real project's known regression, found by `benchsite bisect`: jq 1.8.0
# made `reduce` (and `foreach`) copy their state on every iteration
# (jqlang/jq#3345: "a serious performance regression"), so building an
# array with `reduce range(N) as $i ([]; . + [$i])` went from linear to
# quadratic. The change is commit 96e8d893 ("fix: reduce/foreach state
# variable should not be reset each iteration", #3205); jq 1.8.1 reverted
# it (#3349). This script asks bisect for it between the releases, as a
# user who only knows "1.7.1 was fast, 1.8.0 is slow" would: 155 commits
# on jq-1.8.0's first-parent history, each probed commit built in its own
# worktree. A benchmark: it prints the trail and never fails because of
# what bisect finds.
#
#   bench/real_bisect_jq.sh --jq-repo DIR [options]
#
# Options:
#   --jq-repo DIR    a clone of jqlang/jq with its history (bare or not);
#                    it is cloned again under WORK, never touched
#   --good REV       (default jq-1.7.1)
#   --bad REV        (default jq-1.8.0)
#   --n N            the array's length (default 5000)
#   --load none|half nothing added, or one busy process on the machine
#                    (bounded by --cap, stopped here; default half)
#   --build DIR      benchsite build (default build/release)
#   --work DIR       where the clone, builds and results go (default
#                    BUILD/real-bisect-jq)
#   --cap SECONDS    bound of the load generator and of bisect (default
#                    3600)
#   --bisect-args A  more words for benchsite bisect (split at blanks)
#
# Needs autoconf, automake, libtool, make and cc (the builds run
# autoreconf and configure --with-oniguruma=no).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build/release
jq_repo=
good=jq-1.7.1
bad=jq-1.8.0
n=5000
load=half
work=
cap=3600
extra=
while [ $# -gt 0 ]; do
  case $1 in
    --jq-repo) jq_repo=$2; shift 2 ;;
    --good) good=$2; shift 2 ;;
    --bad) bad=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --cap) cap=$2; shift 2 ;;
    --bisect-args) extra=$2; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "real_bisect_jq.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$jq_repo" ] || { echo "real_bisect_jq.sh: --jq-repo DIR is required" >&2; exit 2; }
case $n in ''|*[!0-9]*) echo "real_bisect_jq.sh: --n wants a number" >&2; exit 2 ;; esac
case $load in none|half) ;; *) echo "real_bisect_jq.sh: --load none or half" >&2; exit 2 ;; esac
for t in autoreconf libtoolize make cc git timeout; do
  command -v $t >/dev/null || { echo "real_bisect_jq.sh: $t is missing" >&2; exit 2; }
done
bs=$build/benchsite
[ -x "$bs" ] || { echo "real_bisect_jq.sh: no $bs (build first)" >&2; exit 2; }
work=${work:-$build/real-bisect-jq}
mkdir -p "$work"
work=$(cd "$work" && pwd)
out=$work/run-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$out"

# The clone keeps its build cache (under its git dir) between
# invocations: a second run reuses every build.
if [ ! -d "$work/jq/.git" ]; then
  git clone -q --no-checkout "$jq_repo" "$work/jq"
  git -C "$work/jq" checkout -q --detach "$bad"
fi
cat > "$work/build-jq.sh" <<'EOF'
#!/bin/sh
# Builds jq in the tree given (a worktree benchsite bisect made); what it
# prints goes to bisect's build log. `make` whole: `make jq` alone skips
# the generated src/builtin.inc.
set -e
cd "$1"
autoreconf -fi
./configure -q --with-oniguruma=no --disable-docs --disable-valgrind \
  --disable-maintainer-mode
make -s -j2
test -x jq
EOF

pids=
stop() {
  for p in $pids; do kill "$p" 2>/dev/null || :; done
  for p in $pids; do wait "$p" 2>/dev/null || :; done
  pids=
}
trap 'stop' EXIT
trap 'stop; exit 130' INT TERM
if [ "$load" = half ]; then
  timeout "$cap" sh -c 'while :; do :; done' &
  pids=$!
fi

echo "machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
echo "jq: $good .. $bad ($(git -C "$work/jq" rev-list --first-parent --count "$good..$bad") first-parent commits), n $n, load $load"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
t0=$(date +%s)
set +e
# shellcheck disable=SC2086
timeout "$cap" "$bs" bisect --repo "$work/jq" --good "$good" --bad "$bad" \
  --build "sh $work/build-jq.sh {tree}" \
  --cmd "{tree}/jq -n 'reduce range($n) as \$i ([]; . + [\$i]) | length'" \
  --json "$out/bisect.json" --markdown "$out/bisect.md" $extra \
  > "$out/bisect.txt" 2> "$out/progress.txt"
rc=$?
set -e
stop
echo "exit $rc after $(( $(date +%s) - t0 )) s"
cat "$out/bisect.txt"
echo "results: $out"
