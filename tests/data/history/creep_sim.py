#!/usr/bin/env python3
"""Re-derives SPEC §2.12's simulation figures for the creep scan,
independently of benchsite (its own scan, the standard library only):
the share of unchanged chains of 40 to 300 links that are flagged, and
the share of chains ending in ten +0.8 % links that are found, each link's
noise 0.45 % and stated by its interval. Prints both (ctest's log keeps
them) and fails (exit 1) outside loose bounds. tests/test_history_signals.c
measures the same on the model, on synth.py's histories.

Each link: Δ% ~ N(true, σ) with σ = 0.45; its 95 % interval Δ ± 1.96·σ·u,
u ~ U(0.8, 1.2) (a bootstrap interval's width varies run to run);
s_j = (ln(1 + U/100) − ln(1 + L/100)) / (2·1.96). Over the trailing
stretches of w links, 2 ≤ w ≤ min(links, 50): ℓ_w = Σ ln(1 + Δ/100),
s_w = √Σ s_j², z_w = ℓ_w / s_w; w* maximises |z_w|; flagged when
|z_w*| ≥ 3.3 and |e^ℓ_w* − 1|·100 ≥ 3 (no link is a significant change:
none comes near 3 %).
"""
import math
import random
import sys

SIGMA = 0.45
Z95 = 1.959963984540054


def flagged(deltas, sds):
    el = 0.0
    var = 0.0
    best = None
    for w in range(1, min(len(deltas), 50) + 1):
        d, s = deltas[-w], sds[-w]
        el += math.log1p(d / 100)
        var += s * s
        if w < 2:
            continue
        z = el / math.sqrt(var)
        if best is None or abs(z) > abs(best[0]):
            best = (z, el)
    z, el = best
    return abs(z) >= 3.3 and abs(math.expm1(el)) * 100 >= 3.0


def chain(rng, n, creep):
    deltas, sds = [], []
    for k in range(n):
        true = 0.8 if creep and k >= n - 10 else 0.0
        d = rng.gauss(true, SIGMA)
        half = Z95 * SIGMA * rng.uniform(0.8, 1.2)
        lo, hi = d - half, d + half
        deltas.append(d)
        sds.append((math.log1p(hi / 100) - math.log1p(lo / 100)) / (2 * Z95))
    return deltas, sds


def main():
    rng = random.Random(212)
    n = 10000
    null = sum(flagged(*chain(rng, rng.randint(40, 300), False))
               for _ in range(n)) / n
    found = sum(flagged(*chain(rng, rng.randint(40, 300), True))
                for _ in range(n)) / n
    print("creep scan (independent simulation, %d chains each): unchanged "
          "chains of 40-300 links flagged %.2f%%; ten +0.8 %% links of "
          "0.45 %% noise found %.2f%%" % (n, 100 * null, 100 * found))
    ok = 0.002 <= null <= 0.04 and found >= 0.85
    if not ok:
        print("outside the loose bounds (flagged 0.2-4 %, found >= 85 %)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
