"""The verdict lab's pytest-benchmark suite (bench/verdict_lab.sh
--harness): six cases, copied twice as an A/A pair (PLANT_PCT 0) and once
as a candidate whose lookup does PLANT_PCT percent more of its own work:
the dependent chain of table loads and multiplies of
bench/verdict/cases.c's lookup, walked round(2000 * p / 100) steps
further after the result is taken (real work, not a sleep; the result is
the base's). plant.py, the one file that differs, says 0; the lab writes
the candidate's."""
from plant import PLANT_PCT

LOOKUP_STEPS = 2000
PLANT_STEPS = (LOOKUP_STEPS * PLANT_PCT + 50) // 100
MASK = (1 << 64) - 1


def xorshift_bytes(n, seed):
    """n pseudo-random bytes from seed."""
    out = bytearray(n)
    s = seed
    for i in range(n):
        s ^= s >> 12
        s = (s ^ (s << 25)) & MASK
        s ^= s >> 27
        out[i] = ((s * 0x2545F4914F6CDD1D) & MASK) >> 56
    return bytes(out)


def fnv(b):
    """FNV-1a of b."""
    h = 0xCBF29CE484222325
    for c in b:
        h = ((h ^ c) * 0x100000001B3) & MASK
    return h


def sort_keys(keys):
    """A sorted copy of keys."""
    return sorted(keys)


def branch(b):
    """A walk of b with a branch per byte."""
    c = 0
    for x in b:
        if x & 1:
            c += x
        else:
            c ^= x
    return c


def join(n):
    """n words joined by blanks."""
    return " ".join("w%d" % i for i in range(n))


def table():
    """lookup's table of 4096 entries."""
    t = xorshift_bytes(4 * 4096, 5)
    return [int.from_bytes(t[4 * i:4 * i + 4], "little") for i in range(4096)]


def lookup(t):
    """The planted case: the chain walked LOOKUP_STEPS steps (and, in the
    candidate, PLANT_STEPS further)."""
    x = 1
    for k in range(LOOKUP_STEPS):
        x = (((x ^ t[x & 4095]) * 0x9E3779B97F4A7C15) + k) & MASK
    y = x
    for k in range(PLANT_STEPS):
        y = (((y ^ t[y & 4095]) * 0x9E3779B97F4A7C15) + k) & MASK
    return x
