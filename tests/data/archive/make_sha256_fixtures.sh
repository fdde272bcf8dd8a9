#!/bin/sh
# Inputs for tests/test_sha256.c: files whose lengths straddle SHA-256's
# padding boundaries (55/56/63/64/65 bytes), binary bytes and a larger file.
# The expected digests come from coreutils `sha256sum`, computed apart from
# benchsite's own code. Re-run from this directory to regenerate.
set -eu
cd "$(dirname "$0")/sha256"
rm -f ./*.bin SHA256SUMS.expected
python3 - <<'PY'
import struct
def xs(seed):
    s = seed or 0x9E3779B97F4A7C15
    while True:
        s ^= s >> 12; s ^= (s << 25) & (2**64 - 1); s ^= s >> 27
        yield (s * 0x2545F4914F6CDD1D) & (2**64 - 1)
g = xs(42)
def data(n):
    return bytes(next(g) >> 56 for _ in range(n))
for n in (0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 20003):
    open(f"len{n:06d}.bin", "wb").write(data(n))
open("text.bin", "wb").write("benchsite: sum,n=65536 — µs\r\n".encode() * 100)
PY
sha256sum ./*.bin | sed 's|  \./|  |' > SHA256SUMS.expected
