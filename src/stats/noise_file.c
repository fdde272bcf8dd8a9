/* benchsite: reading a noise JSON back (`compare --noise`): each case's
 * paired noise floor, the A/A run's environment and metric, every floor
 * checked against the file's own paired deltas; and the same lookup on a
 * validation just run. */
#include "benchsite/noise.h"

#include "benchsite/quantile.h"
#include "buf.h"
#include "csvin.h"
#include "grow.h"
#include "jsonread.h"
#include "lmath.h"
#include "manifest_json.h"
#include "oom.h"
#include "strlist.h"
#include "strset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- reading a noise JSON back ------------------------------------------ */

typedef struct floor_entry {
  char *benchmark;
  char *dataset;
  double floor_pct;
} floor_entry;

struct bs_noise_floors {
  floor_entry *entries;
  size_t n, cap;
  bs_manifest *env;
  bs_metric metric; /* the file's "metric"; wall when it has none */
  bs__strset index; /* "benchmark\0dataset" -> entry */
};

/* The index key of a case, NUL-separated (names hold no NUL). */
static bs_status floor_key(bs__buf *k, const char *benchmark,
                           const char *dataset) {
  bs__buf_reset(k);
  bs_status st = bs__buf_append(k, benchmark, strlen(benchmark) + 1);
  return st ? st : bs__buf_append(k, dataset, strlen(dataset));
}

void bs_noise_floors_free(bs_noise_floors *f) {
  if (!f)
    return;
  bs_manifest_free(f->env);
  for (size_t i = 0; i < f->n; i++) {
    free(f->entries[i].benchmark);
    free(f->entries[i].dataset);
  }
  free(f->entries);
  bs__strset_release(&f->index);
  free(f);
}

size_t bs_noise_floors_count(const bs_noise_floors *f) { return f ? f->n : 0; }

const bs_manifest *bs_noise_floors_environment(const bs_noise_floors *f) {
  return f ? f->env : NULL;
}

bs_metric bs_noise_floors_metric(const bs_noise_floors *f) {
  return f ? f->metric : BS_METRIC_WALL;
}

bs_status bs_noise_floors_check_metric(const bs_noise_floors *f,
                                       const char *name, bs_metric metric,
                                       bs_error *err) {
  bs_metric fm = bs_noise_floors_metric(f);
  if (fm == metric)
    return BS_OK;
  return bs_error_set(err, BS_EINPUT, name, 0,
                      "the noise floors are of metric %s (%s), not of "
                      "metric %s (%s) compared here; run the A/A validation "
                      "with --metric %s",
                      bs_metric_get(fm)->name, bs_metric_get(fm)->quantity,
                      bs_metric_get(metric)->name,
                      bs_metric_get(metric)->quantity,
                      bs_metric_get(metric)->name);
}

bs_status bs_noise_floors_check_environment(const bs_noise_floors *f,
                                            const char *name,
                                            const bs_manifest *run,
                                            bs_error *err) {
  const bs_manifest *aa = bs_noise_floors_environment(f);
  /* An unknown setup is never assumed comparable (SPEC §2.9): without a
   * manifest on either side nobody can tell the floors hold here. */
  if (!aa || !bs_manifest_count(aa))
    return bs_error_set(err, BS_EINPUT, name, 0,
                        "the noise file records no environment "
                        "(\"environment\" is empty or absent: it was "
                        "written without --manifest), so nobody can tell "
                        "which setup its floors hold for; rerun benchsite "
                        "noise with --manifest");
  if (!run || !bs_manifest_count(run))
    return bs_error_set(err, BS_EINPUT, name, 0,
                        "this run has no environment manifest (%s), so "
                        "nobody can tell whether the noise floors were "
                        "measured on its setup; give --manifest",
                        run ? "it is empty" : "no --manifest");
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  if (bs_manifest_comparable(run, aa, diff, &nd))
    return BS_OK;
  char keys[768] = "";
  size_t used = 0;
  for (size_t k = 0; k < nd; k++) {
    const char *va = bs_manifest_comparability_value(run, diff[k]);
    const char *vb = bs_manifest_comparability_value(aa, diff[k]);
    int w = snprintf(keys + used, sizeof keys - used,
                     "%s%s (this run \"%.60s\", the A/A run \"%.60s\")",
                     used ? ", " : "", diff[k], va ? va : "missing",
                     vb ? vb : "missing");
    if (w > 0 && (size_t)w < sizeof keys - used)
      used += (size_t)w;
  }
  return bs_error_set(err, BS_EINPUT, name, 0,
                      "the noise floors were measured on a setup not "
                      "comparable with this run: %s; run the A/A validation "
                      "on this setup",
                      keys);
}

/* What the reader keeps of a noise file: the schema, the metric, the
 * environment and, case by case as each is read (bs__jfilter.each), the
 * four members a floor needs -- never the experiments, which are nearly
 * all of the file. */
static const char *const case_keys[] = {"benchmark", "dataset",
                                        "paired_noise_floor_pct",
                                        "paired_deltas_pct", NULL};
static const bs__jfilter deltas_filter = {NULL, NULL, NULL, 1, NULL};
static const bs__jfilter *const case_members[] = {NULL, NULL, NULL,
                                                  &deltas_filter};
static const bs__jfilter case_filter = {case_keys, case_members, &bs__json_drop,
                                        0, NULL};
static const char *const no_keys[] = {NULL};
static bs_status read_case(void *ctx, const bs__jvalue *c, bs_error *err);
static const bs__jfilter cases_filter = {no_keys, NULL, &case_filter, 0,
                                         read_case};
/* An environment is an object of strings (an array is not kept). */
static const bs__jfilter env_filter = {NULL, NULL, &bs__json_drop, 0, NULL};
static const char *const root_keys[] = {"schema", "metric", "environment",
                                        "cases", NULL};
static const bs__jfilter *const root_members[] = {NULL, NULL, &env_filter,
                                                  &cases_filter};
static const bs__jfilter root_filter = {root_keys, root_members, &bs__json_drop,
                                        0, NULL};

typedef struct floors_reader {
  bs_noise_floors *f;
  const char *name;
  size_t i; /* cases read */
  bs__buf key;
  double *abs; /* scratch: |paired Δ%| of one case */
  size_t abs_cap;
  /* The first bad case. The parse goes on after it, so that bad JSON
   * further on is reported first, as a whole-tree reader would. */
  bs_status status;
  bs_error error;
} floors_reader;

static bs_status check_case(floors_reader *rd, const bs__jvalue *c,
                            bs_error *err);

static bs_status read_case(void *ctx, const bs__jvalue *c, bs_error *err) {
  floors_reader *rd = ctx;
  if (rd->status)
    return BS_OK;
  bs_status st = check_case(rd, c, &rd->error);
  if (st == BS_ENOMEM)
    return bs__oom(err);
  rd->status = st;
  return BS_OK;
}

/* A floor is only trusted as what it claims to be: the 90th percentile of
 * the file's own per-run paired Δ% (SPEC §2.8), each of which is above
 * -100 % (d_j > -b_j for positive times, so med(d) > -med(b)). Our writer
 * prints %.17g, so the recomputed quantile is bit-identical; another
 * writer's rounding is allowed 1e-9 relative. */
static bs_status check_case(floors_reader *rd, const bs__jvalue *c,
                            bs_error *err) {
  bs_noise_floors *f = rd->f;
  const char *name = rd->name;
  size_t i = ++rd->i;
  const bs__jvalue *bench = bs__json_member(c, "benchmark");
  const bs__jvalue *ds = bs__json_member(c, "dataset");
  const bs__jvalue *fl = bs__json_member(c, "paired_noise_floor_pct");
  const bs__jvalue *dl = bs__json_member(c, "paired_deltas_pct");
  if (c->type != BS__JOBJECT || !bench || bench->type != BS__JSTRING || !ds ||
      ds->type != BS__JSTRING)
    return bs_error_set(err, BS_EINPUT, name, c->line,
                        "case %zu: needs string \"benchmark\" and "
                        "\"dataset\"",
                        i);
  char qb[BS__QUOTE_BUF], qd[BS__QUOTE_BUF];
  bs__csvin_quote(qb, bench->string, bench->len, 1);
  bs__csvin_quote(qd, ds->string, ds->len, 1);
  if (!fl || fl->type != BS__JNUMBER || !(fl->number >= 0))
    return bs_error_set(err, BS_EINPUT, name, fl ? fl->line : c->line,
                        "case %zu (benchmark %s, dataset %s): "
                        "\"paired_noise_floor_pct\" must be a non-negative "
                        "number",
                        i, qb, qd);
  if (!dl || dl->type != BS__JNUMBERS || dl->nnumbers < BS_NOISE_MIN_RUNS)
    return bs_error_set(
        err, BS_EINPUT, name, dl ? dl->line : c->line,
        "case %zu (benchmark %s, dataset %s): \"paired_deltas_pct\" must be "
        "an array of at least %d numbers, the per-run paired Δ%% its floor "
        "is the 90th percentile of",
        i, qb, qd, BS_NOISE_MIN_RUNS);
  size_t n = dl->nnumbers;
  if (n > rd->abs_cap) {
    double *t = realloc(rd->abs, n * sizeof *t);
    if (!t)
      return bs__oom(err);
    rd->abs = t;
    rd->abs_cap = n;
  }
  for (size_t k = 0; k < n; k++) {
    double d = dl->numbers[k];
    if (!(d > -100.0))
      return bs_error_set(err, BS_EINPUT, name, dl->line,
                          "case %zu (benchmark %s, dataset %s): paired Δ%% "
                          "%.6g of run %zu is at or below -100 %%, which no "
                          "pair of positive times gives",
                          i, qb, qd, d, k + 1);
    rd->abs[k] = fabs(d);
  }
  bs_sort_doubles(rd->abs, n);
  double q = bs_quantile_sorted(rd->abs, n, BS_NOISE_FLOOR_QUANTILE);
  if (!(fabs(fl->number - q) <= 1e-9 * bs__fmax(1.0, q)))
    return bs_error_set(err, BS_EINPUT, name, fl->line,
                        "case %zu (benchmark %s, dataset %s): "
                        "paired_noise_floor_pct %.6g is not the 90th "
                        "percentile of its %zu paired_deltas_pct (%.6g); "
                        "the file was altered or not written by benchsite "
                        "noise",
                        i, qb, qd, fl->number, n, q);
  size_t first = 0;
  int added =
      floor_key(&rd->key, bench->string, ds->string)
          ? -1
          : bs__strset_put(&f->index, rd->key.data, rd->key.len, f->n, &first);
  if (added < 0)
    return bs__oom(err);
  if (!added)
    return bs_error_set(err, BS_EINPUT, name, c->line,
                        "case %zu repeats benchmark %s, dataset %s of case "
                        "%zu",
                        i, qb, qd, first + 1);
  if (f->n == f->cap) {
    floor_entry *t = BS__GROW(f->entries, f->cap, f->n + 1, 16);
    if (!t)
      return bs__oom(err);
    f->entries = t;
  }
  floor_entry *e = &f->entries[f->n];
  e->benchmark = bs__strdup(bench->string);
  e->dataset = bs__strdup(ds->string);
  e->floor_pct = fl->number;
  f->n++;
  if (!e->benchmark || !e->dataset)
    return bs__oom(err);
  return BS_OK;
}

bs_status bs_noise_floors_parse(const char *name, const char *text, size_t len,
                                bs_noise_floors **out, bs_error *err) {
  *out = NULL;
  bs__jvalue *root = NULL;
  floors_reader rd;
  memset(&rd, 0, sizeof rd);
  rd.name = name;
  bs__buf_init(&rd.key, 0);
  bs_noise_floors *f = calloc(1, sizeof *f);
  bs_status st;
  if (f)
    bs__strset_init(&f->index);
  if (!f || !(f->env = bs_manifest_new())) {
    st = bs__oom(err);
    goto fail;
  }
  rd.f = f;
  /* What is kept never needs more than the text itself: a larger tree is
   * a hostile file, refused long before it could cost a multiple of it. */
  st = bs__json_parse_filtered(name, text, len, &root_filter, &rd,
                               len + ((size_t)1 << 20), &root, err);
  if (st)
    goto fail;
  if (rd.status) {
    if (err)
      *err = rd.error;
    st = rd.status;
    goto fail;
  }
  const bs__jvalue *schema = bs__json_member(root, "schema");
  if (root->type != BS__JOBJECT || !schema || schema->type != BS__JSTRING ||
      strcmp(schema->string, "benchsite.noise/1") != 0) {
    st = bs_error_set(err, BS_EINPUT, name, schema ? schema->line : 1,
                      "not a benchsite noise file (expected \"schema\": "
                      "\"benchsite.noise/1\")");
    goto fail;
  }
  const bs__jvalue *cases = bs__json_member(root, "cases");
  if (!cases || cases->type != BS__JARRAY) {
    st = bs_error_set(err, BS_EINPUT, name, cases ? cases->line : 1,
                      "\"cases\" must be an array");
    goto fail;
  }
  /* Files written before metrics existed measured wall time. */
  const bs__jvalue *metric = bs__json_member(root, "metric");
  f->metric = BS_METRIC_WALL;
  if (metric &&
      (metric->type != BS__JSTRING || strlen(metric->string) != metric->len ||
       bs_metric_parse(metric->string, &f->metric, NULL))) {
    st = bs_error_set(err, BS_EINPUT, name, metric->line,
                      "\"metric\" must name a metric (wall, cpu or rss)");
    goto fail;
  }
  const bs__jvalue *env = bs__json_member(root, "environment");
  if (env && env->type != BS__JOBJECT) {
    st = bs_error_set(err, BS_EINPUT, name, env->line,
                      "\"environment\" must be an object");
    goto fail;
  }
  for (size_t i = 0; env && i < env->n; i++) {
    const bs__jvalue *v = &env->items[i];
    if (v->type != BS__JSTRING || strlen(v->string) != v->len ||
        strlen(env->keys[i]) == 0) {
      st = bs_error_set(err, BS_EINPUT, name, v->line,
                        "environment key %zu: needs a non-empty key and a "
                        "string value",
                        i + 1);
      goto fail;
    }
    if ((st = bs_manifest_set(f->env, env->keys[i], v->string))) {
      st = st == BS_ENOMEM
               ? bs__oom(err)
               : bs_error_set(err, BS_EINPUT, name, v->line,
                              "environment key %zu is repeated", i + 1);
      goto fail;
    }
  }
  bs__json_free(root);
  bs__buf_release(&rd.key);
  free(rd.abs);
  *out = f;
  return BS_OK;
fail:
  bs__json_free(root);
  bs__buf_release(&rd.key);
  free(rd.abs);
  bs_noise_floors_free(f);
  return st;
}

int bs_noise_result_lookup(void *ctx, const char *benchmark,
                           const char *dataset, double *floor_pct) {
  const bs_noise_result *aa = ctx;
  for (size_t i = 0; aa && i < aa->ncases; i++) {
    const bs_noise_case *c = &aa->cases[i];
    if (!strcmp(c->benchmark, benchmark) && !strcmp(c->dataset, dataset) &&
        isfinite(c->paired_noise_floor_pct)) {
      *floor_pct = c->paired_noise_floor_pct;
      return 1;
    }
  }
  return 0;
}

int bs_noise_floors_lookup(void *ctx, const char *benchmark,
                           const char *dataset, double *floor_pct) {
  const bs_noise_floors *f = ctx;
  if (!f)
    return 0;
  bs__buf key;
  bs__buf_init(&key, 0);
  size_t i = 0;
  int found = !floor_key(&key, benchmark, dataset) &&
              bs__strset_get(&f->index, key.data, key.len, &i);
  bs__buf_release(&key);
  if (found)
    *floor_pct = f->entries[i].floor_pct;
  return found;
}
