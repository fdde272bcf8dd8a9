#!/usr/bin/env python3
"""Writes shortest.txt: doubles (as their 64-bit patterns in hex) and
Python's repr of each, the shortest decimal that reads back to the same
double (David Gay's algorithm, CPython's float_repr_style 'short').
tests/test_num.c checks bs__num_shortest against it: the same significant
digits, and both read back to the double. Deterministic: run it again to
get the same file.

Kinds: edge values (zeros, subnormals, DBL_MIN/MAX, 1e+-300, decimal
fractions), every power of two (where the gap below a double is half the
gap above), random bit patterns, and values shaped like the site's
numbers (medians of 17-digit per-call times, percentages)."""
import random
import struct
import sys


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


rng = random.Random(20261201)
vals = [0.0, -0.0, 5e-324, -5e-324, 1e-323, 2.2250738585072014e-308,
        2.225073858507201e-308, 1.7976931348623157e308, 1e300, 1e-300,
        -1e300, -1e-300, 1e308, 1e-308, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1.0,
        -1.0, 0.5, 100.0, 123456.0, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
        9007199254740992.0, 9007199254740993.0, 0.001, 1e-5, 1e-7,
        123.456, 4.35, 0.07, 299792458.0, 1.5e-7, 12300.0, 99999.99999]
for k in range(-1074, 1024):
    vals.append(2.0 ** k)
    if k % 3 == 0 and k > -1074:
        vals.append(from_bits(bits(2.0 ** k) - 1))
while len(vals) < 4300:
    b = rng.getrandbits(64)
    x = from_bits(b)
    if x == x and abs(x) != float("inf"):
        vals.append(x)
for _ in range(400):
    # A median of two 17-digit times, a percentage, a chained index.
    a = float("%.17g" % rng.uniform(0.01, 5000))
    b = float("%.17g" % rng.uniform(0.01, 5000))
    vals.append((a + b) / 2)
    vals.append(100 * (a - b) / b)
    vals.append(1 + rng.uniform(-0.2, 0.2))
    vals.append(round(rng.uniform(0, 1000), rng.randrange(0, 6)))
out = sys.argv[1] if len(sys.argv) > 1 else "shortest.txt"
with open(out, "w") as f:
    for x in vals:
        f.write("%016x %r\n" % (bits(x), x))
