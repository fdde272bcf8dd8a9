#!/usr/bin/python3
"""Expected chained indices for tests/test_history.c, computed with numpy
independently of benchsite: I_k is the cumulative product of (1 + d/100)
along a chain, restarted after an acknowledged link."""
import numpy as np

np.set_printoptions(precision=17)

# Ten links of +0.8 %, each baseline the previous commit.
up = np.cumprod(np.full(10, 1.008))
print("rising", repr(up.tolist()), "creep_pct", repr(100 * (up[-1] - 1)))

# Ten links alternating +0.8 % and -0.8 %.
alt = np.cumprod(np.array([1.008, 0.992] * 5))
print("alternating", repr(alt.tolist()), "creep_pct", repr(100 * (alt[-1] - 1)))

# Acknowledged third link: links 0-2 multiply, link 3 restarts.
d = np.array([1.0, 2.0, 1.5, 1.2, 1.1, 0.9]) / 100 + 1
first = np.cumprod(d[:3])
second = np.cumprod(d[3:])
print("ack", repr(first.tolist() + second.tolist()),
      "creep_pct", repr(100 * (second[-1] - 1)))
