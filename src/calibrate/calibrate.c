/* benchsite calibrate: runs of the user's own benchmark against itself and
 * against planted slowdowns, each judged by the unchanged gate, tallied
 * into false-alarm and detection rates with exact bounds. */
#include "benchsite/calibrate.h"

#include "benchsite/compare.h"
#include "benchsite/log.h"
#include "benchsite/order.h"
#include "benchsite/quantile.h"
#include "binomial.h"
#include "buf.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *bs_calibrate_method_name(bs_calibrate_method m) {
  return m == BS_CALIBRATE_SCALED ? "scaled observations" : "real work";
}

void bs_calibrate_options_init(bs_calibrate_options *o) {
  static const double plants[] = {3, 5, 10};
  memset(o, 0, sizeof *o);
  bs_run_options_init(&o->run);
  o->plants = plants;
  o->nplants = 3;
  o->reps = BS_CALIBRATE_DEFAULT_REPS;
}

void bs_calibration_rate_set(bs_calibration_rate *r, uint64_t k, uint64_t n) {
  r->k = k;
  r->n = n;
  if (!n) {
    r->rate = NAN;
    r->low = 0;
    r->high = 1;
    return;
  }
  r->rate = (double)k / (double)n;
  r->low =
      bs__clopper_pearson_lower((size_t)k, (size_t)n, BS_CALIBRATE_CONFIDENCE);
  r->high =
      bs__clopper_pearson_upper((size_t)k, (size_t)n, BS_CALIBRATE_CONFIDENCE);
}

void bs_calibration_free(bs_calibration *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->ncases; i++) {
    free(c->cases[i].benchmark);
    free(c->cases[i].dataset);
    free(c->cases[i].found);
    free(c->cases[i].median_delta_pct);
  }
  free(c->cases);
  free(c->impl);
  free(c->plants);
  free(c->protocol);
  free(c->suite_found);
  free(c->suite_min_found);
  bs_manifest_free(c->environment);
  free(c);
}

/* A case as the judgements meet it: its name, and per judgement (0 the
 * A/A pair, 1 + i plant i) the runs flagged and every paired change. */
typedef struct tally {
  char *benchmark, *dataset;
  uint64_t flagged[1 + BS_CALIBRATE_MAX_PLANTS];
  uint64_t judged[1 + BS_CALIBRATE_MAX_PLANTS];
  double *deltas[1 + BS_CALIBRATE_MAX_PLANTS]; /* judged[j] each */
} tally;

typedef struct judge {
  const bs_calibrate_options *o;
  bs_calibrate_method method;
  bs_metric metric; /* the one the gate reads for this mode */
  tally *cases;
  size_t ncases, cap;
  uint64_t reps;
  uint64_t suite_flagged; /* runs whose A/A pair was flagged somewhere */
  bs__buf scaled;         /* a log of the pair with a scaled candidate */
} judge;

static void judge_release(judge *g) {
  for (size_t i = 0; i < g->ncases; i++) {
    free(g->cases[i].benchmark);
    free(g->cases[i].dataset);
    for (size_t j = 0; j <= BS_CALIBRATE_MAX_PLANTS; j++)
      free(g->cases[i].deltas[j]);
  }
  free(g->cases);
  bs__buf_release(&g->scaled);
}

static tally *find_case(judge *g, const char *benchmark, const char *dataset,
                        bs_error *err) {
  for (size_t i = 0; i < g->ncases; i++)
    if (!strcmp(g->cases[i].benchmark, benchmark) &&
        !strcmp(g->cases[i].dataset, dataset))
      return &g->cases[i];
  if (g->ncases == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    tally *t = realloc(g->cases, cap * sizeof *t);
    if (!t)
      return bs__oom(err), NULL;
    g->cases = t;
    g->cap = cap;
  }
  tally *t = &g->cases[g->ncases];
  memset(t, 0, sizeof *t);
  t->benchmark = bs__strdup(benchmark);
  t->dataset = bs__strdup(dataset);
  if (!t->benchmark || !t->dataset) {
    free(t->benchmark);
    free(t->dataset);
    return bs__oom(err), NULL;
  }
  for (size_t j = 0; j <= BS_CALIBRATE_MAX_PLANTS; j++)
    if (!(t->deltas[j] = malloc((size_t)g->o->reps * sizeof(double)))) {
      for (size_t q = 0; q < j; q++)
        free(t->deltas[q]);
      free(t->benchmark);
      free(t->dataset);
      return bs__oom(err), NULL;
    }
  g->ncases++;
  return t;
}

static void csv_field(bs__buf *b, const char *s) {
  bs__buf_putc(b, '"');
  for (; *s; s++) {
    if (*s == '"')
      bs__buf_putc(b, '"');
    bs__buf_putc(b, *s);
  }
  bs__buf_putc(b, '"');
}

/* The confirm rows of impls A and B of `log`, B's wall times (and CPU
 * times, when the gate reads them: `cpu`) multiplied by `factor`: the
 * observations of a candidate p % slower, on the noise this run measured
 * (SPEC: command and harness modes' plants). */
static bs_status scaled_log(bs__buf *b, const bs_log *log, double factor,
                            int cpu) {
  bs__buf_reset(b);
  bs__buf_puts(b, "benchmark,dataset,impl,run,block,phase,iterations,"
                  "per_call_us");
  bs__buf_puts(b, cpu ? ",cpu_per_call_us\n" : "\n");
  const bs_row *rows = bs_log_rows(log);
  for (size_t i = 0; i < bs_log_count(log); i++) {
    const bs_row *w = &rows[i];
    int cand = !strcmp(w->impl, "B");
    if (w->phase != BS_PHASE_CONFIRM || (!cand && strcmp(w->impl, "A")))
      continue;
    const bs_case *c = bs_log_row_case(log, w);
    csv_field(b, c->benchmark);
    bs__buf_putc(b, ',');
    csv_field(b, c->dataset);
    bs__buf_printf(b, ",%s,%llu,%lld,confirm,", w->impl,
                   (unsigned long long)bs_row_run(log, w),
                   (long long)bs_row_block(log, w));
    if (w->iterations)
      bs__buf_printf(b, "%llu", (unsigned long long)w->iterations);
    double f = cand ? factor : 1;
    bs__buf_printf(b, ",%.17g", w->per_call_us * f);
    /* A row without CPU time keeps its field empty, which the gate then
     * refuses by name, rather than a made-up 0. */
    if (cpu && (w->metrics & (1u << BS_METRIC_CPU)))
      bs__buf_printf(b, ",%.17g", bs_log_value(log, w, BS_METRIC_CPU) * f);
    else if (cpu)
      bs__buf_putc(b, ',');
    bs__buf_putc(b, '\n');
  }
  return bs__buf_status(b);
}

/* Judgement j of one run: the gate on baseline A against `cand` in log. */
static bs_status judge_pair(judge *g, const bs_log *log, const char *cand,
                            size_t j, int *any, bs_error *err) {
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_CONFIRMATORY);
  co.seed = g->o->run.seed;
  co.metric = g->metric;
  bs_compare_result *r = NULL;
  bs_status st = bs_compare_run(log, "A", cand, &co, &r, err);
  if (st)
    return st;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    tally *t = find_case(g, c->benchmark, c->dataset, err);
    if (!t) {
      bs_compare_result_free(r);
      return BS_ENOMEM;
    }
    if (t->judged[j] >= g->o->reps)
      continue; /* cannot happen: one judgement a run */
    t->deltas[j][t->judged[j]++] = c->delta_pct;
    t->flagged[j] += c->significant_regression != 0;
    *any |= c->significant_regression != 0;
  }
  bs_compare_result_free(r);
  return BS_OK;
}

/* Every judgement of one run's log. */
static bs_status judge_log(judge *g, const char *text, size_t len,
                           bs_error *err) {
  bs_log *log = bs_log_new();
  bs_log *scaled = NULL;
  if (!log)
    return bs__oom(err);
  bs_status st = bs_log_read_buffer(log, "calibration run", text, len, err);
  int any = 0, dummy = 0;
  if (!st)
    st = judge_pair(g, log, "B", 0, &any, err);
  for (size_t p = 0; !st && p < g->o->nplants; p++) {
    if (g->method == BS_CALIBRATE_REAL_WORK) {
      char id[32];
      snprintf(id, sizeof id, "P%zu", p + 1);
      st = judge_pair(g, log, id, p + 1, &dummy, err);
      continue;
    }
    bs_log_free(scaled);
    scaled = NULL;
    bs_status made = scaled_log(&g->scaled, log, 1 + g->o->plants[p] / 100.0,
                                g->metric == BS_METRIC_CPU);
    if (made || !(scaled = bs_log_new())) {
      st = made ? bs__oom_as(err, made) : bs__oom(err);
      break;
    }
    st = bs_log_read_buffer(scaled, "scaled run", g->scaled.data, g->scaled.len,
                            err);
    if (!st)
      st = judge_pair(g, scaled, "B", p + 1, &dummy, err);
  }
  bs_log_free(scaled);
  bs_log_free(log);
  if (!st) {
    g->reps++;
    g->suite_flagged += any != 0;
  }
  return st;
}

/* The candidate of a duet calibration's run j: B (the A/A pair) or the
 * plant Pj. */
static const char *duet_candidate(size_t j, char *id, size_t n) {
  if (!j)
    return "B";
  snprintf(id, n, "P%zu", j);
  return id;
}

/* Run j of one rep of a duet calibration, A beside its candidate: judgement
 * j (*any: the A/A pair flagged somewhere). The rep counts once its last
 * run is judged (duet_rep_done). */
static bs_status judge_duet_run(judge *g, const char *text, size_t len,
                                size_t j, int *any, bs_error *err) {
  bs_log *log = bs_log_new();
  if (!log)
    return bs__oom(err);
  char id[32];
  int dummy = 0;
  bs_status st = bs_log_read_buffer(log, "calibration run", text, len, err);
  if (!st)
    st = judge_pair(g, log, duet_candidate(j, id, sizeof id), j,
                    j ? &dummy : any, err);
  bs_log_free(log);
  return st;
}

static void duet_rep_done(judge *g, int any) {
  g->reps++;
  g->suite_flagged += any != 0;
}

/* Library mode side by side: each rep is 1 + nplants two-impl runs. */
static int duet_design(const bs_calibrate_options *o,
                       bs_calibrate_method method) {
  return method == BS_CALIBRATE_REAL_WORK && o->run.duet;
}

/* The tallies as a result, cases in case order. */
static bs_status finish(judge *g, bs_calibration **out, bs_error *err) {
  const bs_calibrate_options *o = g->o;
  size_t np = o->nplants;
  bs_calibration *c = calloc(1, sizeof *c);
  bs_case_key *keys = calloc(g->ncases ? g->ncases : 1, sizeof *keys);
  if (!c || !keys)
    goto oom;
  c->mode = o->run.mode;
  c->method = g->method;
  c->nplants = np;
  c->protocol = bs__strdup(o->protocol ? o->protocol : "");
  c->impl = bs__strdup(o->run.nimpls ? o->run.impls[0].name : "");
  c->plants = malloc(np * sizeof *c->plants);
  c->suite_found = calloc(np, sizeof *c->suite_found);
  c->suite_min_found = calloc(np, sizeof *c->suite_min_found);
  c->environment = bs_manifest_new();
  c->cases = calloc(g->ncases ? g->ncases : 1, sizeof *c->cases);
  if (!c->protocol || !c->impl || !c->plants || !c->suite_found ||
      !c->suite_min_found || !c->environment || !c->cases)
    goto oom;
  memcpy(c->plants, o->plants, np * sizeof *c->plants);
  for (size_t i = 0; o->environment && i < bs_manifest_count(o->environment);
       i++)
    if (bs_manifest_set(c->environment, bs_manifest_key(o->environment, i),
                        bs_manifest_value(o->environment, i)))
      goto oom;
  c->target_us = o->run.target_us;
  c->blocks = o->run.blocks;
  c->runs_per_rep = o->run.runs;
  c->duet = o->run.duet;
  c->seed = o->run.seed;
  c->reps_planned = o->reps;
  c->reps = g->reps;
  bs_calibration_rate_set(&c->suite_false_alarms, g->suite_flagged, g->reps);

  for (size_t i = 0; i < g->ncases; i++)
    keys[i] =
        (bs_case_key){g->cases[i].benchmark, g->cases[i].dataset, 0, 0, i, 0};
  bs_case_order(keys, g->ncases);
  uint64_t pooled_k[BS_CALIBRATE_MAX_PLANTS] = {0};
  uint64_t pooled_n[BS_CALIBRATE_MAX_PLANTS] = {0};
  for (size_t p = 0; p < np; p++)
    c->suite_min_found[p] = g->ncases ? 1 : NAN;
  for (size_t i = 0; i < g->ncases; i++) {
    tally *t = &g->cases[keys[i].id];
    bs_calibration_case *k = &c->cases[c->ncases];
    k->found = calloc(np, sizeof *k->found);
    k->median_delta_pct = calloc(np, sizeof *k->median_delta_pct);
    if (!k->found || !k->median_delta_pct) {
      free(k->found);
      free(k->median_delta_pct);
      goto oom;
    }
    k->benchmark = t->benchmark;
    k->dataset = t->dataset;
    t->benchmark = t->dataset = NULL;
    c->ncases++;
    bs_calibration_rate_set(&k->false_alarms, t->flagged[0], t->judged[0]);
    k->aa_median_delta_pct = bs_median(t->deltas[0], (size_t)t->judged[0]);
    for (size_t p = 0; p < np; p++) {
      bs_calibration_rate_set(&k->found[p], t->flagged[p + 1],
                              t->judged[p + 1]);
      k->median_delta_pct[p] =
          bs_median(t->deltas[p + 1], (size_t)t->judged[p + 1]);
      pooled_k[p] += t->flagged[p + 1];
      pooled_n[p] += t->judged[p + 1];
      if (!(k->found[p].rate >= c->suite_min_found[p]))
        c->suite_min_found[p] = k->found[p].rate;
    }
  }
  for (size_t p = 0; p < np; p++)
    bs_calibration_rate_set(&c->suite_found[p], pooled_k[p], pooled_n[p]);
  free(keys);
  *out = c;
  return BS_OK;
oom:
  free(keys);
  bs_calibration_free(c);
  return bs__oom(err);
}

static bs_status check_options(const bs_calibrate_options *o, bs_error *err) {
  if (o->run.nimpls != 1 || !o->run.impls)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "calibrate measures one build against itself: give "
                        "exactly one impl");
  if (o->nplants < 1 || o->nplants > BS_CALIBRATE_MAX_PLANTS || !o->plants)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--plants: 1 to %d sizes",
                        BS_CALIBRATE_MAX_PLANTS);
  for (size_t p = 0; p < o->nplants; p++) {
    if (!(o->plants[p] > 0 && o->plants[p] <= 100))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--plants: %g is not a size in (0, 100] %%",
                          o->plants[p]);
    if (p && !(o->plants[p] > o->plants[p - 1]))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--plants: sizes must be ascending and distinct");
  }
  if (o->reps < 1 || o->reps > 100000)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "--reps must be 1 to 100000");
  if (!(o->budget_s >= 0) || o->budget_s > 1e9)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--budget must be a number of seconds");
  return BS_OK;
}

bs_status bs_calibrate_judge_logs(const bs_calibrate_options *o,
                                  bs_calibrate_method method,
                                  const char *const *logs, const size_t *lens,
                                  size_t nlogs, bs_calibration **out,
                                  bs_error *err) {
  *out = NULL;
  bs_status st = check_options(o, err);
  if (st)
    return st;
  judge g;
  memset(&g, 0, sizeof g);
  g.o = o;
  g.method = method;
  g.metric = bs_run_gate_metric(o->run.mode);
  bs__buf_init(&g.scaled, BS__BUF_DEFAULT_LIMIT);
  if (duet_design(o, method)) {
    size_t per = 1 + o->nplants;
    for (size_t r = 0; !st && (r + 1) * per <= nlogs && r < o->reps; r++) {
      int any = 0;
      for (size_t j = 0; !st && j < per; j++)
        st = judge_duet_run(&g, logs[r * per + j], lens[r * per + j], j, &any,
                            err);
      if (!st)
        duet_rep_done(&g, any);
    }
  } else {
    for (size_t r = 0; !st && r < nlogs && r < o->reps; r++)
      st = judge_log(&g, logs[r], lens[r], err);
  }
  if (!st)
    st = finish(&g, out, err);
  judge_release(&g);
  return st;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) +
         (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

typedef struct run_ctx {
  const bs_calibrate_options *o;
  bs_calibrate_progress p;
  struct timespec t0;
} run_ctx;

static int on_run(void *ctx, const bs_run_progress *rp) {
  run_ctx *c = ctx;
  c->p.run = rp;
  c->p.elapsed_s = seconds_since(&c->t0);
  int stop = c->o->progress(c->o->progress_ctx, &c->p);
  c->p.run = NULL;
  return stop;
}

static void now_utc(char *out, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  if (!gmtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(out, n, "1970-01-01T00:00:00Z");
}

/* One run of impls (k of them, planted by pcts or none) for rep r, its
 * log judged whole (j SIZE_MAX: the interleaved and scaled designs) or as
 * run j of a duet rep (*any: its A/A pair flagged somewhere). */
static bs_status measure_run(const bs_calibrate_options *o, run_ctx *rc,
                             judge *g, const bs_run_impl *impls, size_t k,
                             const double *pcts, uint64_t r, size_t j, int *any,
                             bs_error *err) {
  bs_run_options ro = o->run;
  ro.impls = impls;
  ro.nimpls = k;
  ro.plant_pct = 0;
  ro.plant_pcts = pcts;
  ro.seed = o->run.seed + r;
  ro.max_runs = 0; /* the gate's single look, as the A/A counts need */
  ro.progress = o->progress ? on_run : NULL;
  ro.progress_ctx = rc;
  rc->p.rep = r;
  rc->p.pair = j == SIZE_MAX ? 0 : j;
  bs_run_result res;
  bs_run_result_init(&res);
  bs_status st = bs_run_measure(&ro, &res, err);
  if (!st && o->progress) {
    rc->p.elapsed_s = seconds_since(&rc->t0);
    if (o->progress(o->progress_ctx, &rc->p))
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
  }
  if (!st)
    st = j == SIZE_MAX ? judge_log(g, res.log, res.log_len, err)
                       : judge_duet_run(g, res.log, res.log_len, j, any, err);
  bs_run_result_release(&res);
  return st;
}

bs_status bs_calibrate_run(const bs_calibrate_options *o, bs_calibration **out,
                           bs_error *err) {
  *out = NULL;
  bs_status st = check_options(o, err);
  if (st)
    return st;
  /* Library mode: the base twice (A, B) and each plant (P1..Pn), the same
   * library loaded as a private copy each, interleaved in one run's
   * blocks -- or, side by side (duet), A beside B and A beside each Pj,
   * one two-impl run each; command and harness modes: the base twice. */
  bs_calibrate_method method = o->run.mode == BS_RUN_LIBRARY
                                   ? BS_CALIBRATE_REAL_WORK
                                   : BS_CALIBRATE_SCALED;
  int duet = duet_design(o, method);
  size_t k = method == BS_CALIBRATE_REAL_WORK ? 2 + o->nplants : 2;
  static const char *const names[] = {"A",  "B",  "P1", "P2", "P3",
                                      "P4", "P5", "P6", "P7", "P8"};
  bs_run_impl impls[2 + BS_CALIBRATE_MAX_PLANTS];
  double pcts[2 + BS_CALIBRATE_MAX_PLANTS] = {0};
  for (size_t i = 0; i < k; i++) {
    impls[i] = o->run.impls[0];
    impls[i].name = names[i];
    if (i >= 2)
      pcts[i] = o->plants[i - 2];
  }
  run_ctx rc;
  memset(&rc, 0, sizeof rc);
  rc.o = o;
  rc.p.reps = o->reps;
  rc.p.pairs = duet ? 1 + o->nplants : 1;
  clock_gettime(CLOCK_MONOTONIC, &rc.t0);
  judge g;
  memset(&g, 0, sizeof g);
  g.o = o;
  g.method = method;
  g.metric = bs_run_gate_metric(o->run.mode);
  bs__buf_init(&g.scaled, BS__BUF_DEFAULT_LIMIT);
  int budget_hit = 0;
  for (uint64_t r = 0; !st && r < o->reps; r++) {
    if (o->budget_s > 0 && r >= 2 && seconds_since(&rc.t0) >= o->budget_s) {
      budget_hit = 1;
      break;
    }
    if (!duet) {
      st = measure_run(o, &rc, &g, impls, k,
                       method == BS_CALIBRATE_REAL_WORK ? pcts : NULL, r,
                       SIZE_MAX, NULL, err);
      continue;
    }
    /* Run j: A and its candidate (B, then each plant), planted 0 and p. */
    int any = 0;
    for (size_t j = 0; !st && j <= o->nplants; j++) {
      bs_run_impl two[2] = {impls[0], impls[j ? 1 + j : 1]};
      double two_pcts[2] = {0, j ? o->plants[j - 1] : 0};
      st = measure_run(o, &rc, &g, two, 2, two_pcts, r, j, &any, err);
    }
    if (!st)
      duet_rep_done(&g, any);
  }
  if (!st)
    st = finish(&g, out, err);
  judge_release(&g);
  if (st)
    return st;
  bs_calibration *c = *out;
  if (!c)
    return bs_error_set(err, BS_EINTERNAL, NULL, 0, "no calibration");
  c->budget_hit = budget_hit;
  c->seconds = seconds_since(&rc.t0);
  const char *date =
      o->environment ? bs_manifest_get(o->environment, "date") : NULL;
  if (date && strlen(date) < sizeof c->date)
    snprintf(c->date, sizeof c->date, "%s", date);
  else
    now_utc(c->date, sizeof c->date);
  return BS_OK;
}
