#!/usr/bin/env python3
"""Writes hostile.csv and hostile-env.csv: a run whose benchmark, dataset,
impl and manifest values are hostile (markup, quotes, backquotes, command
substitution, gnuplot's system(), newlines, path climbing, non-ASCII).
The numbers are deterministic. Run from this directory."""
import csv

B = 'base"<b>\'`touch CANARY`'
C = '$(touch CANARY); system("touch CANARY")\n../../evil'
T = 'x\ty & <i>'
A1 = 'A<script>alert(1)</script>'
A2 = 'B../x @mac !ls'

benches = [
    ('<script>alert(\'x\')</script>', '../../etc/passwd', None, 1.00, 1.20),
    ('naïve 日本語 `id`', 'n=1\nrm -rf /', None, 1.00, 0.80),
    ('sort; system("touch CANARY")', 'n=10', 10, 1.00, 1.01),
    ('sort; system("touch CANARY")', 'n=100', 100, 1.00, 0.99),
    ('sort; system("touch CANARY")', 'n=1000', 1000, 1.00, 1.00),
]

def val(i, k, base):
    # a deterministic wobble of about +-2 %
    return base * (1.0 + ((i * 7919 + k * 104729) % 97 - 48) / 2400.0)

rows = []
for bi, (b, d, s, fb, fc) in enumerate(benches):
    base = 10.0 * (s if s else 1) ** 0.5
    for blk in range(12):
        rows.append([b, d, s or '', B, 0, blk, 'confirm', 100, '%.6f' % val(blk, bi, base * fb)])
        rows.append([b, d, s or '', C, 0, blk, 'confirm', 100, '%.6f' % val(blk, bi + 1, base * fc)])
        if s:
            rows.append([b, d, s, T, 0, blk, 'confirm', 100, '%.6f' % val(blk, bi + 2, base * (2.0 if s < 100 else 0.5))])
# A/A: three runs of eight blocks of the same code under two ids
for run in range(3):
    for blk in range(8):
        rows.append(['aa "case" <u>', 'ü\n\'x\'', '', A1, run, blk, 'confirm', 50, '%.6f' % val(blk, run, 5.0)])
        rows.append(['aa "case" <u>', 'ü\n\'x\'', '', A2, run, blk, 'confirm', 50, '%.6f' % val(blk, run + 3, 5.0)])

with open('hostile.csv', 'w', newline='') as f:
    w = csv.writer(f, lineterminator='\n')
    w.writerow(['benchmark', 'dataset', 'scale', 'impl', 'run', 'block', 'phase', 'iterations', 'per_call_us'])
    w.writerows(rows)

env = [
    ('target', 'native'), ('profile', 'release'), ('dtype', 'f64'),
    ('machine', '<script>alert("m")</script>'),
    ('frequency_policy', '$(touch CANARY)'),
    ('commit', '`touch CANARY`; system("touch CANARY")'),
    ('date', '2026-01-01T00:00:00Z\n<b>bold</b>'),
    ('protocol', 'Development'),
    ('baseline', B), ('candidate', C), ('aa_a', A1), ('aa_b', A2),
    ('x"y\'<z>', '../../../../tmp/evil & \u00e9\u00e8 \U0001F600'),
]
with open('hostile-env.csv', 'w', newline='') as f:
    w = csv.writer(f, lineterminator='\n')
    w.writerow(['key', 'value'])
    w.writerows(env)
