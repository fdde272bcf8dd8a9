#!/bin/sh
# Makes docs/screenshot.png, the picture at the top of the README: the
# report of the example comparison (examples/pr.csv), as headless Chromium
# shows it 1000 pixels wide. Run it from anywhere after a build whenever
# the pages change, and commit the PNG.
# Usage: sh docs/screenshot.sh [BENCHSITE]   (default build/release/benchsite)
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/release/benchsite}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$bin" report examples/pr.csv --manifest examples/env.csv --out "$tmp/report"
# --user-data-dir keeps Chromium's profile out of $HOME; timeout bounds a
# browser that hangs.
timeout 120 chromium --headless --no-sandbox --disable-gpu \
  --hide-scrollbars --force-device-scale-factor=1 \
  --user-data-dir="$tmp/profile" --window-size=1000,860 \
  --screenshot="$tmp/shot.png" "file://$tmp/report/index.html" \
  >"$tmp/chromium.log" 2>&1 || { cat "$tmp/chromium.log" >&2; exit 1; }
mv "$tmp/shot.png" docs/screenshot.png
echo "docs/screenshot.png: $(wc -c <docs/screenshot.png) bytes"
