#!/usr/bin/python3
"""Reference values of Student's t upper tail (tests/test_student_t.c).

    cd tests/data/student_t && /usr/bin/python3 make_fixtures.py

writes fixtures.txt: lines "t df P(T > t)" from scipy.stats.t.sf, over
degrees of freedom from 1 (a Cauchy) to 100000 and t from -3.5 to 40
(tails down to 1e-210, and 0 where scipy underflows).
"""
from scipy.stats import t

with open("fixtures.txt", "w") as f:
    for df in [1, 2, 3, 4, 5, 9, 19, 30, 99, 101, 1000, 100000]:
        for x in [-3.5, -1.0, 0.0, 0.3, 1.0, 2.0, 2.999, 5.0, 12.0, 40.0]:
            f.write(f"{x!r} {df} {t.sf(x, df)!r}\n")
