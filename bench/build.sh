# Sourced by the benchmark scripts (which set $here to the source tree).
#
#   bench_build BUILD_DIR TARGET...
#
# configures BUILD_DIR as an optimised Release build when it has no build
# yet, then brings the targets up to date, so a benchmark never times a
# stale binary.
bench_build() {
  bench_dir=$1
  shift
  if [ ! -f "$bench_dir/build.ninja" ]; then
    cmake -S "$here" -B "$bench_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBENCHSITE_TESTS=OFF >/dev/null
  fi
  cmake --build "$bench_dir" --target "$@" >/dev/null
}
