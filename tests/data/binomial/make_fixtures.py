#!/usr/bin/python3
"""Reference values for tests/test_binomial.c, from scipy (Debian's
python3-scipy), which shares no code with benchsite:

    /usr/bin/python3 tests/data/binomial/make_fixtures.py \
        > tests/data/binomial/fixtures.txt

- tail N K P: P(X >= K) for X ~ Binomial(N, P), scipy.stats.binom.sf(K - 1,
  N, P).
- upper K N CONF: the one-sided Clopper-Pearson upper bound of a rate seen
  as K of N, scipy.stats.beta.ppf(CONF, K + 1, N - K) (1 when K == N).
- lower K N CONF: the lower bound, scipy.stats.beta.ppf(1 - CONF, K,
  N - K + 1) (0 when K == 0).
Numbers are printed with repr(), the shortest text that reads back to
the same double.
"""
from scipy import stats

TAILS = [
    (20, 0, 0.05), (20, 1, 0.05), (20, 3, 0.05), (20, 5, 0.1),
    (20, 20, 0.5), (40, 7, 0.0975), (100, 10, 0.05), (100, 60, 0.5),
    (1000, 70, 0.05), (1000, 30, 0.05), (5000, 400, 0.05), (7, 7, 0.999),
]
BOUNDS = [
    (0, 1), (1, 1), (0, 5), (1, 20), (3, 20), (10, 20), (19, 20),
    (0, 40), (2, 40), (0, 100), (5, 100), (50, 100), (99, 100),
    (7, 1000), (123, 1000), (0, 3000), (30, 3000),
]
CONFS = [0.95, 0.99, 0.8]

print("# tail N K P -> P(X >= K), X ~ Binomial(N, P): binom.sf(K - 1, N, P)")
for n, k, p in TAILS:
    v = 1.0 if k == 0 else float(stats.binom.sf(k - 1, n, p))
    print(f"tail {n} {k} {p!r} {v!r}")
print("# upper K N CONF -> beta.ppf(CONF, K + 1, N - K); 1 when K == N")
print("# lower K N CONF -> beta.ppf(1 - CONF, K, N - K + 1); 0 when K == 0")
for conf in CONFS:
    for k, n in BOUNDS:
        up = 1.0 if k == n else float(stats.beta.ppf(conf, k + 1, n - k))
        lo = 0.0 if k == 0 else float(stats.beta.ppf(1 - conf, k, n - k + 1))
        print(f"upper {k} {n} {conf!r} {up!r}")
        print(f"lower {k} {n} {conf!r} {lo!r}")
