#!/usr/bin/env python3
"""Synthetic histories whose truth this script knows, for the history
model's calibration tests (tests/test_history_signals.c) and for
end-to-end site builds. Standard library only, seeded: the same arguments
give the same files. Not benchsite: nothing here calls it.

  synth.py results OUT_DIR [--archives N] [--seed S]
      OUT_DIR/results.csv: per archive, run and case, what a run's
      analysis would give the model (a bs_history_result): the median and
      its interval, the paired Δ% and its interval L%, U%, the verdict
      flags, the commits, whether acks.csv covers it.
      OUT_DIR/truth.csv: per archive and case, its scenario and where its
      change is.

  synth.py archive OUT_DIR [--runs N] [--seed S] [--blocks M]
      OUT_DIR/runs/KKK/{log.csv,manifest.csv}: real logs and manifests
      for `benchsite archive add`, OUT_DIR/acks.csv and OUT_DIR/truth.csv
      (see tests/data/history/README.md).

Scenarios (case names; "A" archives have 60 runs, "B" archives 40-300):
  u_gauss    unchanged; run-to-run noise of the medians Gaussian, 1 %
  u_heavy    unchanged; Student's t (3 d.f.) noise, scale 1 %
  u_between  unchanged; within-run noise 0.3 % (the intervals) plus a
             between-run component of 2 % that moves a whole run
  step5      +5 % at a known run, 2 % run-to-run noise
  step10     +10 % at a known run, 2 % run-to-run noise
  step10_ack the same, the step's run acknowledged in acks.csv
  creep      ten +0.8 % links ending at the newest run (0.45 % noise each)
  alt        links alternating +0.8 % and -0.8 % (0.45 % noise each)
  drift      rises +0.4 % a run from the first run on, 1 % run-to-run
             noise (about +6 % between the halves of the newest 30 runs)
  chain_u    (B) an unchanged chain, links of 0.45 % noise
  chain_creep (B) the same ending in ten +0.8 % links
Every A archive mixes in A/A runs (every tenth run, at the commit of the
run before: no links, no medians) and runs without the candidate (for
u_gauss and u_heavy every thirteenth run: a median, no comparison).

Links (paired comparisons) carry the noise of their own interval: a paired
design cancels what moves a whole run, so the between-run component enters
the medians only.
"""
import argparse
import datetime
import math
import os
import random

DELTA = 3.0  # the gate's δ, percent
Z95 = 1.959963984540054


def t3(rng):
    """Student's t with 3 degrees of freedom, scaled to unit variance."""
    z = rng.gauss(0.0, 1.0)
    chi = rng.gammavariate(1.5, 2.0)  # chi-square, 3 d.f.
    return z / math.sqrt(chi / 3.0) / math.sqrt(3.0)


A_CASES = ["u_gauss", "u_heavy", "u_between", "step5", "step10",
           "step10_ack", "creep", "alt", "drift"]
B_CASES = ["chain_u", "chain_creep"]


def levels(case, nruns, rng, aa):
    """True level per run (relative, the first run at 1) and the truth: the
    run where the change begins (-1 for none). An A/A run measures the code
    of the run before, so its level is that run's."""
    lv = [1.0] * nruns
    step = -1
    if case in ("step5", "step10", "step10_ack"):
        step = rng.randint(nruns // 4, 3 * nruns // 4)
        while any(abs(step - k) <= 1 for k in aa):
            step += 3
        size = 1.05 if case == "step5" else 1.10
        for k in range(step, nruns):
            lv[k] = size
    elif case in ("creep", "chain_creep"):
        for k in range(nruns - 10, nruns):
            lv[k] = lv[k - 1] * 1.008
        step = nruns - 10
    elif case == "drift":
        for k in range(1, nruns):
            lv[k] = lv[k - 1] * (1.0 if k in aa else 1.004)
        step = 0
    elif case == "alt":
        up = True
        for k in range(1, nruns):
            if k in aa:
                lv[k] = lv[k - 1]
                continue
            lv[k] = lv[k - 1] * (1.008 if up else 1 / 1.008)
            up = not up
    return lv, step


def median_noise(case):
    """(within-run sd, between-run sd, heavy) of a case's medians."""
    if case == "u_heavy":
        return 0.01, 0.0, True
    if case == "u_between":
        return 0.003, 0.02, False
    if case.startswith("step"):
        return 0.02, 0.0, False
    if case in ("creep", "alt", "chain_u", "chain_creep"):
        return 0.005, 0.0, False
    return 0.01, 0.0, False


# Archived runs are dated from here, six hours apart (past dates: an
# archive refuses a run dated ahead).
START = datetime.datetime(2025, 1, 1)

LINK_SD = 0.45  # percent: each link's noise, and what its interval states


def verdict(delta, lo, hi):
    word = "slower" if delta >= DELTA else "faster" if delta <= -DELTA \
        else "equivalent"
    return word, int(delta >= DELTA and lo > 0), int(delta <= -DELTA and hi < 0)


def archive_rows(name, kind, nruns, rng):
    """Rows of one archive: dicts per (run, case), acks, truth."""
    cases = A_CASES if kind == "A" else B_CASES
    # A/A runs (A archives): every tenth run, none among the last twelve
    # (the creep's links stay paired).
    aa = set(range(7, nruns - 12, 10)) if kind == "A" else set()
    truth = {}
    lv = {}
    for c in cases:
        lv[c], truth[c] = levels(c, nruns, rng, aa)
    rows = []
    acks = []
    commits = []
    prev_commit = "%s-c000" % name
    for k in range(nruns):
        is_aa = k in aa
        commit = prev_commit if is_aa else "%s-c%03d" % (name, k + 1)
        base = "" if is_aa else prev_commit
        between = {}
        for c in cases:
            within, btw, heavy = median_noise(c)
            between[c] = rng.gauss(0.0, btw) if btw else 0.0
        for c in cases:
            within, btw, heavy = median_noise(c)
            r = {"archive": name, "run": k, "commit": commit,
                 "baseline_commit": base, "aa": int(is_aa), "case": c,
                 "has_median": 0, "median": 0.0, "lo": 0.0, "hi": 0.0,
                 "has_cmp": 0, "delta_pct": 0.0, "lo_pct": 0.0,
                 "hi_pct": 0.0, "verdict": "", "sig_reg": 0, "sig_imp": 0,
                 "ack": 0}
            if is_aa:
                rows.append(r)
                continue
            noise = (t3(rng) if heavy else rng.gauss(0.0, 1.0)) * within
            med = 10.0 * lv[c][k] * (1 + noise + between[c])
            r["has_median"] = 1
            r["median"] = med
            r["lo"] = med * (1 - Z95 * max(within, 0.001) / 2)
            r["hi"] = med * (1 + Z95 * max(within, 0.001) / 2)
            no_candidate = c in ("u_gauss", "u_heavy") and k % 13 == 5
            if k > 0 and not no_candidate:
                true = 100 * (lv[c][k] / lv[c][k - 1] - 1)
                # The paired interval states the link's noise, a little
                # wider or narrower run to run as a bootstrap's is.
                sd = LINK_SD * rng.uniform(0.8, 1.2)
                d = true + rng.gauss(0.0, LINK_SD)
                lo, hi = d - Z95 * sd, d + Z95 * sd
                r["has_cmp"] = 1
                r["delta_pct"], r["lo_pct"], r["hi_pct"] = d, lo, hi
                r["verdict"], r["sig_reg"], r["sig_imp"] = verdict(d, lo, hi)
            if c == "step10_ack" and k == truth[c]:
                r["ack"] = 1
                acks.append((commit, c))
            rows.append(r)
        commits.append(commit)
        prev_commit = commit
    return rows, acks, truth, aa, lv


FIELDS = ["archive", "run", "commit", "baseline_commit", "aa", "case",
          "has_median", "median", "lo", "hi", "has_cmp", "delta_pct",
          "lo_pct", "hi_pct", "verdict", "sig_reg", "sig_imp", "ack"]


def fmt(v):
    return "%.7g" % v if isinstance(v, float) else str(v)


def write_results(out, narchives, seed):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    with open(os.path.join(out, "results.csv"), "w") as f, \
            open(os.path.join(out, "truth.csv"), "w") as t:
        f.write(",".join(FIELDS) + "\n")
        t.write("archive,case,scenario,change_run,runs\n")
        for a in range(narchives):
            for kind in ("A", "B"):
                nruns = 60 if kind == "A" else rng.randint(40, 300)
                name = "%s%03d" % (kind.lower(), a)
                rows, _, truth, _, _ = archive_rows(name, kind, nruns, rng)
                for r in rows:
                    f.write(",".join(fmt(r[k]) for k in FIELDS) + "\n")
                for c, s in truth.items():
                    t.write("%s,%s,%s,%d,%d\n" % (name, c, c, s, nruns))


def write_archive(out, nruns, seed, blocks):
    """Real logs and manifests for the histories of results mode: base and
    head measured in alternating blocks, each value with 0.88 % noise (so
    a run's paired Δ% has about the 0.45 % noise of results mode, and its
    bootstrap interval states it), the whole run moved by the scenario's
    run-to-run noise; A/A runs as impls A and B at the code of the run
    before. The analysis of each run is benchsite's, at build time."""
    rng = random.Random(seed)
    rows, acks, truth, aa, lv = archive_rows("s", "A", nruns, rng)
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    by_run = {}
    for r in rows:
        by_run.setdefault(r["run"], []).append(r)
    block_sd = 0.0088
    for k in range(nruns):
        d = os.path.join(out, "runs", "%03d" % k)
        os.makedirs(d, exist_ok=True)
        first = by_run[k][0]
        with open(os.path.join(d, "manifest.csv"), "w") as m:
            m.write("key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                    "machine,synthetic-1\nfrequency_policy,performance\n"
                    "protocol,Development\n")
            m.write("commit,%s\n" % first["commit"])
            when = START + datetime.timedelta(hours=6 * k)
            m.write("date,%s\n" % when.strftime("%Y-%m-%dT%H:%M:%SZ"))
            if k in aa:
                m.write("aa_a,A\naa_b,B\n")
            else:
                m.write("baseline,base\ncandidate,head\n")
                if first["baseline_commit"]:
                    m.write("baseline_commit,%s\n" % first["baseline_commit"])
        with open(os.path.join(d, "log.csv"), "w") as lg:
            lg.write("benchmark,dataset,impl,run,block,phase,iterations,"
                     "per_call_us\n")
            for r in by_run[k]:
                c = r["case"]
                within, btw, heavy = median_noise(c)
                day = 1 + (t3(rng) if heavy else rng.gauss(0.0, 1.0)) * within
                day += rng.gauss(0.0, btw) if btw else 0.0
                now = 10.0 * lv[c][k] * day
                before = 10.0 * lv[c][k - 1] * day if k else now
                if k in aa:
                    impls = [("A", now), ("B", now)]
                else:
                    impls = [("base", before)]
                    no_candidate = c in ("u_gauss", "u_heavy") and k % 13 == 5
                    if not no_candidate:
                        impls.append(("head", now))
                for j in range(blocks):
                    order = impls if j % 2 == 0 else impls[::-1]
                    for impl, level in order:
                        v = level * (1 + rng.gauss(0.0, block_sd))
                        lg.write("%s,,%s,0,%d,confirm,100,%r\n"
                                 % (c, impl, j, v))
    with open(os.path.join(out, "acks.csv"), "w") as f:
        f.write("commit,benchmark,dataset,reason\n")
        for commit, c in acks:
            f.write("%s,%s,,\"synthetic step, known\"\n" % (commit, c))
    with open(os.path.join(out, "truth.csv"), "w") as t:
        t.write("case,scenario,change_run,aa_runs\n")
        for c, s in truth.items():
            t.write("%s,%s,%d,%s\n" % (c, c, s, " ".join(map(str, sorted(aa)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["results", "archive"])
    ap.add_argument("out")
    ap.add_argument("--archives", type=int, default=300)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--blocks", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    if a.mode == "results":
        write_results(a.out, a.archives, a.seed)
    else:
        write_archive(a.out, a.runs, a.seed, a.blocks)


if __name__ == "__main__":
    main()
