#!/bin/sh
# What the gate can see (SPEC §2.15): the minimum detectable change of
# every case, max(δ, Δ% − L%), recomputed from compare's JSON by Python
# (tests/mde_recompute.py, numpy) for every compare log of examples/ and a
# seeded 200-case run, and held to the JSON's figure bit for bit. Prints
# "mde recomputed independently: N of N exact" for the examples, for the
# 200-case run and in all (target: N of N). Exits 1 when a case differs.
# Usage: bench/bench_mde.sh [BUILD_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
. "$here/bench/build.sh"
bench_build "$build" benchsite_cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 "$here/tests/mde_recompute.py" "$build/benchsite" "$here" \
  "$out"
