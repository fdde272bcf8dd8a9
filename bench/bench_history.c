/* Times the history model (bs_history_finish: chains, the creep scan,
 * drift across runs, change points, what is open) on a synthetic archive
 * of CASES cases × RUNS runs, each run chained to the one before, as the
 * site builds it for every build; and the change-point search alone on
 * the same medians. CPU time of this process.
 *
 * The cases: half unchanged (1 % run-to-run noise), a quarter with one
 * +10 % step, an eighth with two steps (+10 %, then −8 %), an eighth
 * ending in ten +0.8 % links; every link's noise 0.45 %, stated by its
 * interval.
 *
 * usage: bench_history [CASES [RUNS [REPS [OUT]]]]   (default 200 1000 3)
 * With OUT, writes OUT/medians.csv (case,run,median) and OUT/steps.csv
 * (case,entry,p: the steps the search found, each case seeded with its
 * index + 1) for bench_history.sh's numpy peer. */
#include "benchsite/history.h"
#include "benchsite/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double uniform(bs_rng *r) {
  return (double)(bs_rng_next(r) >> 11) * 0x1.0p-53;
}

static double gauss(bs_rng *r) {
  double u = uniform(r), v = uniform(r);
  return sqrt(-2 * log(u + 0x1.0p-60)) * cos(6.283185307179586 * v);
}

/* The true level of case c at run k (relative). */
static double level(size_t c, size_t k, size_t runs, size_t at) {
  switch (c % 8) {
  case 0:
  case 1:
    return k >= at ? 1.10 : 1.0;
  case 2:
    return k >= at + runs / 4 ? 1.012 : k >= at ? 1.10 : 1.0;
  case 3:
    return k + 10 >= runs ? pow(1.008, (double)(k + 10 - runs + 1)) : 1.0;
  default:
    return 1.0;
  }
}

static bs_history *make(size_t ncases, size_t runs, bs_manifest *mf,
                        char (*commits)[24], double **medians) {
  bs_rng rng;
  bs_rng_seed(&rng, 42);
  bs_history *h = bs_history_new(runs);
  if (!h)
    return NULL;
  for (size_t k = 0; k < runs; k++) {
    bs_history_run *r = &h->runs[k];
    r->id = r->commit = commits[k + 1];
    r->baseline_commit = commits[k];
    r->date = "2027-01-01T00:00:00Z";
    r->manifest = mf;
    r->impl = malloc(5);
    r->results = calloc(ncases, sizeof *r->results);
    r->nresults = ncases;
    if (!r->impl || !r->results)
      return NULL;
    memcpy(r->impl, "head", 5);
    for (size_t c = 0; c < ncases; c++) {
      bs_history_result *res = &r->results[c];
      size_t at = runs / 4 + (c * 37) % (runs / 2);
      char name[32];
      snprintf(name, sizeof name, "case%03zu", c);
      res->benchmark = malloc(strlen(name) + 1);
      res->dataset = calloc(1, 1);
      if (!res->benchmark || !res->dataset)
        return NULL;
      memcpy(res->benchmark, name, strlen(name) + 1);
      double lv = level(c, k, runs, at);
      double prev = k ? level(c, k - 1, runs, at) : lv;
      res->has_median = 1;
      res->n = 20;
      res->median = 10 * lv * (1 + 0.01 * gauss(&rng));
      res->lo = res->median * 0.99;
      res->hi = res->median * 1.01;
      medians[c][k] = res->median;
      res->has_cmp = 1;
      res->delta_pct = 100 * (lv / prev - 1) + 0.45 * gauss(&rng);
      res->delta_lo_pct = res->delta_pct - 1.96 * 0.45;
      res->delta_hi_pct = res->delta_pct + 1.96 * 0.45;
      res->significant_regression =
          res->delta_pct >= 3 && res->delta_lo_pct > 0;
      res->significant_improvement =
          res->delta_pct <= -3 && res->delta_hi_pct < 0;
      res->verdict = res->delta_pct >= 3    ? BS_VERDICT_SLOWER
                     : res->delta_pct <= -3 ? BS_VERDICT_FASTER
                                            : BS_VERDICT_EQUIVALENT;
      res->blocks = 20;
    }
  }
  return h;
}

/* The medians and the steps found, for the peer. */
static int write_out(const char *dir, double **medians, size_t ncases,
                     size_t runs) {
  char path[4096];
  snprintf(path, sizeof path, "%s/medians.csv", dir);
  FILE *m = fopen(path, "w");
  snprintf(path, sizeof path, "%s/steps.csv", dir);
  FILE *s = fopen(path, "w");
  if (!m || !s) {
    fprintf(stderr, "bench_history: cannot write in %s\n", dir);
    return 1;
  }
  fputs("case,run,median\n", m);
  fputs("case,entry,p\n", s);
  for (size_t c = 0; c < ncases; c++) {
    for (size_t k = 0; k < runs; k++)
      fprintf(m, "%zu,%zu,%.17g\n", c, k, medians[c][k]);
    bs_history_step *st = NULL;
    size_t n = 0;
    if (bs_history_detect_steps(medians[c], runs, c + 1, &st, &n, NULL))
      return 1;
    for (size_t i = 0; i < n; i++)
      fprintf(s, "%zu,%zu,%.17g\n", c, st[i].entry, st[i].p_value);
    free(st);
  }
  int bad = ferror(m) | ferror(s);
  bad |= fclose(m) != 0;
  bad |= fclose(s) != 0;
  return bad;
}

int main(int argc, char **argv) {
  size_t ncases = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 200;
  size_t runs = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 1000;
  int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 3;
  const char *out = argc > 4 ? argv[4] : NULL;
  if (ncases == 0 || runs < 20 || reps < 1) {
    fprintf(stderr, "usage: bench_history [CASES [RUNS [REPS [OUT]]]]\n");
    return 2;
  }
  bs_manifest *mf = bs_manifest_new();
  char(*commits)[24] = malloc((runs + 1) * sizeof *commits);
  double **medians = malloc(ncases * sizeof *medians);
  if (!mf || !commits || !medians ||
      bs_manifest_set(mf, "target", "native") != BS_OK) {
    free(commits);
    free(medians);
    bs_manifest_free(mf);
    return 3;
  }
  for (size_t c = 0; c < ncases; c++)
    if (!(medians[c] = malloc(runs * sizeof **medians))) {
      while (c > 0)
        free(medians[--c]);
      free(medians);
      free(commits);
      bs_manifest_free(mf);
      return 3;
    }
  for (size_t k = 0; k <= runs; k++)
    snprintf(commits[k], sizeof commits[k], "c%zu", k);

  double best = HUGE_VAL, best_steps = HUGE_VAL;
  size_t nsteps = 0, creeping = 0, drifting = 0, open = 0;
  for (int rep = 0; rep < reps; rep++) {
    bs_history *h = make(ncases, runs, mf, commits, medians);
    if (!h)
      return 3;
    double t0 = cpu_seconds();
    bs_error err;
    if (bs_history_finish(h, NULL, &err) != BS_OK) {
      fprintf(stderr, "bench_history: %s\n", err.message);
      return 1;
    }
    double t1 = cpu_seconds();
    if (t1 - t0 < best)
      best = t1 - t0;
    nsteps = h->nstep_refs;
    creeping = h->creeping;
    drifting = h->drifting;
    open = h->nopen_cases;
    bs_history_free(h);
    /* The change-point search alone, on the same medians. */
    t0 = cpu_seconds();
    for (size_t c = 0; c < ncases; c++) {
      bs_history_step *st = NULL;
      size_t n = 0;
      if (bs_history_detect_steps(medians[c], runs, c + 1, &st, &n, NULL))
        return 3;
      free(st);
    }
    t1 = cpu_seconds();
    if (t1 - t0 < best_steps)
      best_steps = t1 - t0;
  }
  printf("history model, %zu cases x %zu runs (best of %d, CPU): "
         "bs_history_finish %.3f s (%.2f us a case-run); the change-point "
         "search alone %.3f s; %zu steps, %zu creeping, %zu drifting, "
         "%zu cases open\n",
         ncases, runs, reps, best, 1e6 * best / (double)(ncases * runs),
         best_steps, nsteps, creeping, drifting, open);
  if (out && write_out(out, medians, ncases, runs))
    return 1;
  for (size_t c = 0; c < ncases; c++)
    free(medians[c]);
  free(medians);
  free(commits);
  bs_manifest_free(mf);
  return 0;
}
